// The operator DAG view: the layout arrives from the worker thread with one box per op, the view
// renders, colours by stage once a schedule is set, maps clicks to ops, and zooms around the cursor.
// With OPSCHED_DAGVIEW_PNG_DIR set, the rendered images are written there for a look.
#include "common/group_colour.h"
#include "dag/dag_view.h"
#include "engine/model.h"
#include "engine/results/schedule_result.h"
#include "window/main_window.h"

#include "graph/layered_layout.h"
#include "model/model_ref.h"
#include "schedule/basic_schedulers.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QItemSelectionModel>
#include <QPainter>
#include <QResizeEvent>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <QWheelEvent>

#include <limits>
#include <set>

using namespace opsched;

namespace {

ScheduleRequest scheduleRequest(const char* scheduler)
{
    ScheduleRequest request;
    request.scheduler = scheduler;
    return request;
}

} // namespace

class TestDagView : public QObject {
    Q_OBJECT

private slots:
    void cleanupTestCase();
    void boxLabels_data();
    void boxLabels();
    void exportsTheWholeGraph();
    void legendCoversNoBox_data();
    void legendCoversNoBox();
    void emptyViewRenders();
    void laysOutZooNetworks_data();
    void laysOutZooNetworks();
    void coloursByStage();
    void clickSelectsOp();
    void selectOpHighlightsWithoutSignal();
    void wheelZoomsAroundCursor();
    void foldsIntoColumnsForTheViewShape();
    void newGraphReplacesPendingLayout();
    void mainWindowWiring();
    void opensLargeGraphsByScope();
    void clickOpensAndBreadcrumbCloses();
    void selectingAnOpInsideAGroupOpensIt();
    void foldsRepeatedLayersIntoAStack();
    void groupsShowStagesAndDevices();
    void bertLayersReadableAtFitInTheWindow();
    void scopeTitlesTellScopesApart();
    void criticalPathOutlinesBoxesAndGroups();

private:
    static std::shared_ptr<const Graph> load(const char* ref) { return std::make_shared<const Graph>(loadModel(ref)); }
    // The window's settings in a file of this process's own, emptied: tests of several checkouts
    // may run at once on one machine.
    static void isolateSettings()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("opsched-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_dagview-%1").arg(QCoreApplication::applicationPid()));
        QSettings().clear();
    }
    static bool waitForLayout(DagView& view)
    {
        if (view.layout())
            return true;
        QSignalSpy ready(&view, &DagView::layoutReady);
        return ready.wait(10000);
    }
    // Sized, given the graph, and laid out.
    static bool layOut(DagView& view, std::shared_ptr<const Graph> graph, QSize size)
    {
        view.resize(size);
        view.setGraph(std::move(graph));
        return waitForLayout(view);
    }
    // The same in a window on screen (for clicks and keys).
    static bool layOutShown(DagView& view, std::shared_ptr<const Graph> graph, QSize size)
    {
        view.resize(size);
        view.show();
        return QTest::qWaitForWindowExposed(&view) && layOut(view, std::move(graph), size);
    }
    static QImage renderImage(const DagView& view, QSize size)
    {
        QImage image(size, QImage::Format_ARGB32);
        image.fill(Qt::white);
        QPainter painter(&image);
        view.render(painter, size);
        return image;
    }
    static void save(const QImage& image, const QString& name)
    {
        const QString dir = qEnvironmentVariable("OPSCHED_DAGVIEW_PNG_DIR");
        if (!dir.isEmpty())
            QVERIFY(image.save(QDir(dir).filePath(name)));
    }
};

void TestDagView::emptyViewRenders()
{
    DagView view;
    QVERIFY(!view.layout());
    QVERIFY(!view.isLayingOut());
    QVERIFY(!view.hasSchedule());
    view.setSchedule(nullptr);
    const QImage image = renderImage(view, { 300, 200 });
    QCOMPARE(image.size(), QSize(300, 200));
    QVERIFY(!view.opAt({ 10, 10 }).valid());
}

void TestDagView::laysOutZooNetworks_data()
{
    QTest::addColumn<QString>("ref");
    QTest::newRow("inception_v3") << QStringLiteral("zoo:inception_v3");
    QTest::newRow("nasnet_a") << QStringLiteral("zoo:nasnet_a");
}

void TestDagView::laysOutZooNetworks()
{
    QFETCH(QString, ref);
    const auto graph = load(ref.toUtf8().constData());
    DagView view;
    view.setGroupAbove(std::numeric_limits<std::size_t>::max()); // every op in a box of its own
    view.resize(900, 700);
    QElapsedTimer timer;
    timer.start();
    view.setGraph(graph);
    QVERIFY(view.isLayingOut() || view.layout());
    QVERIFY(waitForLayout(view));
    qInfo("%s: %lld ms from setGraph to layoutReady", qPrintable(ref), static_cast<long long>(timer.elapsed()));
    // The budget: NASNet-A (the largest zoo network) opens and lays out in under a second.
    QVERIFY2(timer.elapsed() < 1000, qPrintable(QStringLiteral("%1 ms").arg(timer.elapsed())));

    const LayeredLayout* layout = view.layout();
    QVERIFY(layout);
    QCOMPARE(layout->nodes.size(), graph->opCount());
    QCOMPARE(layout->edges.size(), graph->dag().edgeCount());
    QVERIFY(!view.isLayingOut());

    // Fitted on arrival: every box is inside the widget.
    const QRectF area(QPointF(0, 0), QSizeF(view.size()));
    for (std::uint32_t v = 0; v < graph->opCount(); ++v)
        QVERIFY2(area.contains(view.opRect(OpId(v))), qPrintable(QStringLiteral("op %1").arg(v)));

    const QImage image = renderImage(view, view.size());
    QVERIFY(!image.isNull());
    save(image, QStringLiteral("dag_%1.png").arg(ref.mid(4)));

    // A larger export fits again, and a zoomed-in view renders only what is visible.
    save(renderImage(view, { 1600, 2400 }), QStringLiteral("dag_%1_large.png").arg(ref.mid(4)));
    view.zoomBy(8, QPointF(450, 60));
    QVERIFY(view.scale() > 0);
    save(renderImage(view, view.size()), QStringLiteral("dag_%1_zoomed.png").arg(ref.mid(4)));
}

void TestDagView::coloursByStage()
{
    const auto graph = load("zoo:inception_v3");
    DagView view;
    QVERIFY(layOut(view, graph, { 900, 1200 }));

    // By kind at first: ops of one kind share a colour.
    const OpId first(0U);
    for (std::uint32_t v = 1; v < graph->opCount(); ++v)
        if (graph->op(OpId(v)).kind == graph->op(first).kind)
            QCOMPARE(view.opColour(OpId(v)), view.opColour(first));
    QCOMPARE(view.stageOf(first), -1);

    const Schedule schedule = sequentialSchedule(*graph);
    view.setSchedule(&schedule);
    QVERIFY(view.hasSchedule());
    for (std::size_t s = 0; s < schedule.stages.size(); ++s)
        for (std::size_t g = 0; g < schedule.stages[s].groups.size(); ++g)
            for (OpId op : schedule.stages[s].groups[g]) {
                QCOMPARE(view.stageOf(op), static_cast<int>(s));
                QCOMPARE(view.groupOf(op), static_cast<int>(g));
                QCOMPARE(view.opColour(op), groupColour(static_cast<int>(s)));
            }
    // Neighbouring stages always differ, and no colour comes back within 40 stages.
    for (int s = 0; s + 1 < static_cast<int>(schedule.stages.size()); ++s)
        QVERIFY(groupColour(s) != groupColour(s + 1));
    for (int a = 0; a < 40; ++a)
        for (int b = a + 1; b < 40; ++b) {
            const QColor ca = groupColour(a), cb = groupColour(b);
            const int distance
                = std::abs(ca.red() - cb.red()) + std::abs(ca.green() - cb.green()) + std::abs(ca.blue() - cb.blue());
            QVERIFY2(distance >= 12, qPrintable(QStringLiteral("stages %1 and %2").arg(a).arg(b)));
        }

    // The pixels say so too: each box has its stage's colour (left of its label, which is centred
    // with a 5 px margin).
    const QImage image = renderImage(view, view.size());
    save(image, QStringLiteral("dag_inception_v3_stages.png"));
    int checked = 0;
    for (std::uint32_t v = 0; v < graph->opCount(); v += 7) {
        const QRectF box = view.opRect(OpId(v));
        const QPoint inside(static_cast<int>(box.left()) + 3, static_cast<int>(box.center().y()));
        QCOMPARE(QColor(image.pixel(inside)).rgb(), groupColour(view.stageOf(OpId(v))).rgb());
        ++checked;
    }
    QVERIFY(checked > 10);

    // Cleared: back to kinds.
    view.setSchedule(nullptr);
    QVERIFY(!view.hasSchedule());
    QCOMPARE(view.stageOf(first), -1);
    QCOMPARE(view.opColour(first), view.opColour(first)); // still valid
}

void TestDagView::clickSelectsOp()
{
    const auto graph = load("zoo:inception_v3");
    DagView view;
    QVERIFY(layOutShown(view, graph, { 900, 1000 }));

    QSignalSpy selected(&view, &DagView::opSelected);
    for (std::uint32_t v : { 0U, 17U, 64U, static_cast<std::uint32_t>(graph->opCount() - 1) }) {
        const QRectF box = view.opRect(OpId(v));
        QVERIFY(box.width() > 4 && box.height() > 2);
        QCOMPARE(view.opAt(box.center()), OpId(v));
        QTest::mouseClick(&view, Qt::LeftButton, {}, box.center().toPoint());
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.takeFirst().at(0).value<std::uint32_t>(), v);
        QCOMPARE(view.selectedOp(), OpId(v));
    }
    // Empty space selects nothing and says nothing.
    QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(2, 2));
    QCOMPARE(selected.count(), 0);
    QVERIFY(!view.selectedOp().valid());

    // A drag pans instead of selecting.
    const QPointF before = view.mapFromLayout({ 0, 0 });
    const QPoint start = view.opRect(OpId(17U)).center().toPoint();
    QTest::mousePress(&view, Qt::LeftButton, {}, start);
    QTest::mouseMove(&view, start + QPoint(40, 30));
    QTest::mouseRelease(&view, Qt::LeftButton, {}, start + QPoint(40, 30));
    QCOMPARE(selected.count(), 0);
    QCOMPARE(view.mapFromLayout({ 0, 0 }), before + QPointF(40, 30));
}

void TestDagView::selectOpHighlightsWithoutSignal()
{
    const auto graph = load("zoo:nasnet_a");
    DagView view;
    QVERIFY(layOut(view, graph, { 800, 600 }));
    QSignalSpy selected(&view, &DagView::opSelected);
    view.zoomBy(20, QPointF(400, 0)); // zoomed in at the top: the last op is off screen
    const OpId last(static_cast<std::uint32_t>(graph->opCount() - 1));
    QVERIFY(!QRectF(QPointF(0, 0), QSizeF(view.size())).contains(view.opRect(last)));
    view.selectOp(last);
    QCOMPARE(view.selectedOp(), last);
    QCOMPARE(selected.count(), 0);
    // Scrolled into view.
    QVERIFY(QRectF(QPointF(0, 0), QSizeF(view.size())).contains(view.opRect(last)));
    save(renderImage(view, view.size()), QStringLiteral("dag_nasnet_a_selected.png"));
    view.selectOp(OpId());
    QVERIFY(!view.selectedOp().valid());
}

void TestDagView::wheelZoomsAroundCursor()
{
    const auto graph = load("zoo:inception_v3");
    DagView view;
    QVERIFY(layOut(view, graph, { 800, 600 }));
    const double scale = view.scale();
    const QPointF cursor(300, 200);
    const QPointF under = view.mapToLayout(cursor);
    QWheelEvent wheel(cursor, view.mapToGlobal(cursor), QPoint(), QPoint(0, 240), Qt::NoButton, Qt::NoModifier,
        Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(&view, &wheel);
    QVERIFY(view.scale() > scale * 1.3);
    const QPointF after = view.mapToLayout(cursor);
    QVERIFY(std::abs(after.x() - under.x()) < 1e-6 && std::abs(after.y() - under.y()) < 1e-6);

    // Fit brings it back.
    view.fitToView();
    QCOMPARE(view.scale(), scale);

    // So does a double click on empty space; one on a box keeps the zoom.
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.zoomBy(3, cursor);
    const double zoomed = view.scale();
    QPoint box(-1, -1); // a box in view, wherever the columns put the ops
    for (std::uint32_t op = 0; op < graph->opCount() && !QRect(QPoint(0, 0), view.size()).contains(box); ++op)
        box = view.opRect(OpId(op)).center().toPoint();
    QVERIFY(QRect(QPoint(0, 0), view.size()).contains(box));
    QTest::mouseDClick(&view, Qt::LeftButton, {}, box);
    QCOMPARE(view.scale(), zoomed);
    QPoint empty(-1, -1); // a point on no box and off the breadcrumb
    for (int y = 60; y < view.height() && empty.x() < 0; y += 7)
        for (int x = 2; x < view.width() && empty.x() < 0; x += 7)
            if (view.nodeAt(QPointF(x, y)) < 0)
                empty = QPoint(x, y);
    QVERIFY(empty.x() >= 0);
    QTest::mouseDClick(&view, Qt::LeftButton, {}, empty);
    QCOMPARE(view.scale(), scale);
}

void TestDagView::foldsIntoColumnsForTheViewShape()
{
    // BERT's 197 layers: a wide view gets a wide drawing (more columns), a tall one a tall drawing,
    // also when the view changes shape after the layout (a panel docked elsewhere); at Fit either
    // shows the ops larger than one column would.
    const auto graph = load("zoo:bert");
    DagView view;
    QVERIFY(layOut(view, graph, { 1500, 400 }));
    const double wide = view.layout()->width / view.layout()->height;
    const double wideScale = view.scale();
    view.resize(400, 1000);
    QResizeEvent resize(view.size(), QSize(1500, 400));
    QCoreApplication::sendEvent(&view, &resize);
    const double tall = view.layout()->width / view.layout()->height;
    QVERIFY2(wide > 2 * tall, qPrintable(QStringLiteral("%1 vs %2").arg(wide).arg(tall)));
    QVERIFY(wide > 1.5);
    const LayeredLayout single = layeredLayout(graph->dag());
    QVERIFY(wideScale > 2 * std::min((1500.0 - 40) / single.width, (400.0 - 80) / single.height));
}

void TestDagView::newGraphReplacesPendingLayout()
{
    DagView view;
    view.resize(600, 400);
    view.setGraph(load("zoo:nasnet_a"));
    const auto squeeze = load("zoo:squeezenet");
    view.setGraph(squeeze); // the nasnet layout, when it comes, is dropped
    QVERIFY(waitForLayout(view));
    QCOMPARE(view.layout()->nodes.size(), squeeze->opCount());
    QTest::qWait(50);
    QCOMPARE(view.layout()->nodes.size(), squeeze->opCount());
    view.setGraph(nullptr);
    QVERIFY(!view.layout());
    // Destroyed with a layout running: waits for it.
    auto* pending = new DagView;
    pending->setGraph(load("zoo:nasnet_a"));
    delete pending;
}

// The main window's "DAG" tab: laid out on open, coloured by a stage schedule and back by kind for a
// plan-only one, and a click in the DAG selects the op's row in the table (and the other way round).
void TestDagView::mainWindowWiring()
{
    isolateSettings();
    MainWindow w;
    w.setInteractive(false);
    w.resize(1200, 900);
    auto* tabs = w.findChild<QTabWidget*>(QStringLiteral("centralTabs"));
    QVERIFY(tabs);
    QCOMPARE(tabs->count(), 2);
    QCOMPARE(tabs->tabText(0), QStringLiteral("Ops"));
    QCOMPARE(tabs->tabText(1), QStringLiteral("DAG"));
    auto* table = w.findChild<QTableView*>(QStringLiteral("opTable"));
    QVERIFY(table);
    DagView* view = w.dagView();
    QVERIFY(view);
    QCOMPARE(w.findChild<DagView*>(QStringLiteral("dagView")), view);

    QVERIFY(w.openModel(QStringLiteral("zoo:inception_v3")));
    QCOMPARE(view->graph(), w.graph());
    tabs->setCurrentWidget(view);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(waitForLayout(*view));
    QCOMPARE(view->layout()->nodes.size(), w.graph()->opCount());

    // Stage schedulers colour by stage; plan-only ones go back to kinds.
    const auto sequential = computeScheduleResult(*w.graph(), scheduleRequest("sequential"));
    w.showSchedule(sequential);
    QVERIFY(view->hasSchedule());
    QCOMPARE(view->stageOf(OpId(5U)), 5);
    const auto nimble = computeScheduleResult(*w.graph(), scheduleRequest("nimble"));
    QVERIFY(!nimble->output.schedule);
    w.showSchedule(nimble);
    QVERIFY(!view->hasSchedule());
    w.showSchedule(sequential);
    w.showSchedule(nullptr);
    QVERIFY(!view->hasSchedule());

    // DAG -> table.
    const OpId op(30U);
    QTest::mouseClick(view, Qt::LeftButton, {}, view->opRect(op).center().toPoint());
    QCOMPARE(view->selectedOp(), op);
    const QModelIndexList rows = table->selectionModel()->selectedRows();
    QCOMPARE(rows.size(), 1);
    QCOMPARE(rows.front().data().toString(), QString::fromStdString(w.graph()->op(op).name));

    // Table -> DAG.
    table->selectRow(12);
    QCOMPARE(view->selectedOp(), OpId(12U));

    // Another model replaces the layout.
    QVERIFY(w.openModel(QStringLiteral("zoo:squeezenet")));
    QVERIFY(waitForLayout(*view));
    QCOMPARE(view->layout()->nodes.size(), std::size_t { 50 });
    QVERIFY(!view->selectedOp().valid());
    save(w.grab().toImage(), QStringLiteral("mainwindow_dag_squeezenet.png"));
}

void TestDagView::boxLabels_data()
{
    QTest::addColumn<int>("chars"); // box width in average characters
    QTest::addColumn<QString>("expected");
    const QString name = QStringLiteral("Mixed_5b.branch3x3dbl_2");
    QTest::newRow("all fits") << 40 << name + QStringLiteral(" · 9/0");
    QTest::newRow("tail and tag") << 24 << QStringLiteral("branch3x3dbl_2 · 9/0");
    QTest::newRow("tail alone") << 16 << QStringLiteral("branch3x3dbl_2");
    QTest::newRow("end of the tail") << 8 << QStringLiteral("END");
    QTest::newRow("too narrow for a name") << 2 << QStringLiteral("");
}

void TestDagView::boxLabels()
{
    QFETCH(int, chars);
    QFETCH(QString, expected);
    const QFont font;
    const QFontMetrics fm(font);
    const QString name = QStringLiteral("Mixed_5b.branch3x3dbl_2");
    const QString tag = QStringLiteral(" · 9/0");
    const int width = fm.horizontalAdvance(QString(chars, QLatin1Char('x')));
    const QString label = dagBoxLabel(name, tag, fm, width);
    QVERIFY2(fm.horizontalAdvance(label) <= width, qPrintable(label));
    if (expected == QStringLiteral("END")) {
        // Elided at the start, keeping the end that tells branches apart; never at both ends.
        QVERIFY2(label.startsWith(QStringLiteral("…")) && label.endsWith(QStringLiteral("dbl_2")), qPrintable(label));
        QCOMPARE(label.count(QStringLiteral("…")), 1);
    } else if (expected.isEmpty())
        QVERIFY2(label.isEmpty() || label == QStringLiteral("9/0"), qPrintable(label));
    else
        QCOMPARE(label, expected);
}

void TestDagView::exportsTheWholeGraph()
{
    auto graph = std::make_shared<const Graph>(loadModel("zoo:inception_v3"));
    DagView view;
    QVERIFY(layOut(view, graph, { 400, 300 }));
    view.zoomBy(4.0, QPointF(200, 150)); // the user looks at a few boxes
    const QSize full = view.fullSize();
    QVERIFY(full.height() > 1000); // inception is tall
    QImage image(full, QImage::Format_ARGB32);
    image.fill(Qt::white);
    {
        QPainter p(&image);
        view.renderWhole(p, full);
    }
    // The first op's colour near the top, the last op's near the bottom (above the legend).
    const QColor first = view.opColour(OpId(0U));
    const QColor last = view.opColour(OpId(static_cast<std::uint32_t>(graph->opCount() - 1)));
    auto found = [&](const QColor& c, int y0, int y1) {
        for (int y = y0; y < y1; ++y)
            for (int x = 0; x < image.width(); x += 2)
                if (image.pixel(x, y) == c.rgb())
                    return true;
        return false;
    };
    QVERIFY(found(first, 0, full.height() / 10));
    QVERIFY(found(last, full.height() * 8 / 10, full.height()));
}

void TestDagView::legendCoversNoBox_data()
{
    // Narrow views wrap the legend onto several lines; it used to reserve one and cover the
    // bottom boxes.
    QTest::addColumn<QString>("model");
    QTest::addColumn<QSize>("size");
    QTest::addColumn<bool>("devices");
    QTest::newRow("inception 800x600") << "zoo:inception_v3" << QSize(800, 600) << false;
    QTest::newRow("inception narrow 260x500") << "zoo:inception_v3" << QSize(260, 500) << false;
    QTest::newRow("squeezenet wide and low 1200x220") << "zoo:squeezenet" << QSize(1200, 220) << false;
    QTest::newRow("nasnet narrow 300x400") << "zoo:nasnet_a" << QSize(300, 400) << false;
    QTest::newRow("devices narrow 200x400") << "zoo:squeezenet" << QSize(200, 400) << true;
}

void TestDagView::legendCoversNoBox()
{
    QFETCH(QString, model);
    QFETCH(QSize, size);
    QFETCH(bool, devices);
    auto graph = std::make_shared<const Graph>(loadModel(model.toStdString()));
    DagView view;
    view.resize(size);
    view.setGraph(graph);
    QVERIFY(waitForLayout(view));
    if (devices) {
        std::vector<int> deviceOf(graph->opCount());
        for (std::size_t i = 0; i < deviceOf.size(); ++i)
            deviceOf[i] = static_cast<int>(i % 3);
        view.setDevices(deviceOf, { "sim:xeon", "sim:t4", "sim:a100-with-a-long-name" }, "device");
    }
    view.fitToView();
    const QRectF legend = view.legendRect(size);
    QVERIFY(!legend.isEmpty());
    QVERIFY(legend.bottom() <= size.height());
    for (std::uint32_t v = 0; v < graph->opCount(); ++v) {
        const QRectF box = view.opRect(OpId(v));
        QVERIFY2(!box.intersects(legend),
            qPrintable(QStringLiteral("op %1 at %2,%3 %4x%5 under the legend at y %6")
                           .arg(v)
                           .arg(box.x())
                           .arg(box.y())
                           .arg(box.width())
                           .arg(box.height())
                           .arg(legend.top())));
    }
}

// The first node whose title is `title`, or -1.
static int nodeTitled(const DagView& view, const QString& title)
{
    for (std::uint32_t v = 0; v < view.scopeView()->nodes.size(); ++v)
        if (view.nodeTitle(v) == title)
            return static_cast<int>(v);
    return -1;
}

void TestDagView::opensLargeGraphsByScope()
{
    // BERT (269 ops) opens on its embeddings, 12 layers and pooler; Inception (120) op by op.
    DagView view;
    QVERIFY(layOut(view, load("zoo:bert"), { 1000, 700 }));
    QCOMPARE(view.layout()->nodes.size(), std::size_t { 14 });
    QCOMPARE(view.scopeView()->nodes.size(), std::size_t { 14 });
    for (int layer = 0; layer < 12; ++layer) {
        const int v = nodeTitled(view, QStringLiteral("l%1").arg(layer));
        QVERIFY2(v >= 0, qPrintable(QStringLiteral("layer %1").arg(layer)));
        QVERIFY(view.nodeDetail(static_cast<std::uint32_t>(v)).contains(QStringLiteral("22 ops")));
        // Every op of a closed group is drawn by the group's box.
        for (std::uint32_t op : view.scopeView()->nodes[static_cast<std::size_t>(v)].ops)
            QCOMPARE(view.opRect(OpId(op)), view.nodeRect(static_cast<std::uint32_t>(v)));
    }
    QCOMPARE(view.breadcrumbRects().size(), std::size_t { 1 }); // "graph"
    save(renderImage(view, view.size()), QStringLiteral("dag_bert_grouped.png"));

    view.setGraph(load("zoo:inception_v3"));
    QVERIFY(waitForLayout(view));
    QCOMPARE(view.layout()->nodes.size(), view.graph()->opCount());
}

void TestDagView::clickOpensAndBreadcrumbCloses()
{
    DagView view;
    QVERIFY(layOutShown(view, load("zoo:bert"), { 1000, 700 }));
    const int layer = nodeTitled(view, QStringLiteral("l3"));
    QVERIFY(layer >= 0);
    const std::vector<std::uint32_t> ops = view.scopeView()->nodes[static_cast<std::size_t>(layer)].ops;
    QSignalSpy changed(&view, &DagView::scopesChanged);
    QSignalSpy ready(&view, &DagView::layoutReady);
    QSignalSpy selected(&view, &DagView::opSelected);
    QTest::mouseClick(&view, Qt::LeftButton, {}, view.nodeRect(static_cast<std::uint32_t>(layer)).center().toPoint());
    QCOMPARE(changed.count(), 1);
    QVERIFY(ready.wait(10000));
    QCOMPARE(selected.count(), 0); // opening is not selecting
    // l3's ops (its attention block closed) are boxes of their own, zoomed onto: all in view and
    // larger than at Fit.
    QVERIFY(view.scopeView()->nodes.size() > 14);
    const QRectF area(QPointF(0, 0), QSizeF(view.size()));
    std::set<std::uint32_t> parts;
    for (std::uint32_t op : ops) {
        const QRectF box = view.opRect(OpId(op));
        QVERIFY2(area.contains(box), qPrintable(QString::fromStdString(view.graph()->op(OpId(op)).name)));
        parts.insert(view.scopeView()->nodeOf[op]);
    }
    QVERIFY(parts.size() >= 4); // attention, ln1, ffn, ln2
    QVERIFY(view.nodeRect(*parts.begin()).width() > 100);
    QCOMPARE(QString::fromStdString(view.scopes().scopes[static_cast<std::size_t>(view.focusScope())].name),
        QStringLiteral("l3"));
    save(renderImage(view, view.size()), QStringLiteral("dag_bert_l3_open.png"));

    // The breadcrumb reads graph > l3; its first part closes l3 again.
    const std::vector<QRectF> crumbs = view.breadcrumbRects();
    QCOMPARE(crumbs.size(), std::size_t { 2 });
    QTest::mouseClick(&view, Qt::LeftButton, {}, crumbs.front().center().toPoint());
    QVERIFY(ready.wait(10000));
    QCOMPARE(view.scopeView()->nodes.size(), std::size_t { 14 });
    QCOMPARE(view.focusScope(), 0);

    // A right click inside an open scope closes it; Backspace closes the breadcrumb's last scope.
    view.expandScope(view.scopes().scopeOf[ops.front()]);
    QVERIFY(ready.wait(10000));
    const std::size_t opened = view.scopeView()->nodes.size();
    QVERIFY(opened > 14);
    const int inside = static_cast<int>(view.scopeView()->nodeOf[ops.front()]);
    QTest::mouseClick(&view, Qt::RightButton, {}, view.nodeRect(static_cast<std::uint32_t>(inside)).center().toPoint());
    QVERIFY(ready.wait(10000));
    QVERIFY(view.scopeView()->nodes.size() < opened);
    while (view.focusScope() > 0) {
        QTest::keyClick(&view, Qt::Key_Backspace);
        QVERIFY(ready.wait(10000));
    }
    QCOMPARE(view.scopeView()->nodes.size(), std::size_t { 14 });
}

void TestDagView::selectingAnOpInsideAGroupOpensIt()
{
    // The op table or the timeline picks an op that a closed group draws: its scopes open and the
    // op is centred in a box of its own, without a signal back.
    const auto graph = load("zoo:bert");
    DagView view;
    QVERIFY(layOut(view, graph, { 900, 600 }));
    OpId target;
    for (std::uint32_t op = 0; op < graph->opCount() && !target.valid(); ++op)
        if (graph->op(OpId(op)).name == "l7.attn.softmax")
            target = OpId(op);
    QVERIFY(target.valid());
    QSignalSpy selected(&view, &DagView::opSelected);
    QSignalSpy ready(&view, &DagView::layoutReady);
    view.selectOp(target);
    QCOMPARE(view.selectedOp(), target);
    QVERIFY(ready.wait(10000));
    QCOMPARE(selected.count(), 0);
    const std::uint32_t node = view.scopeView()->nodeOf[target.value()];
    QCOMPARE(view.scopeView()->nodes[node].kind, ScopeNode::Kind::Op);
    QVERIFY(QRectF(QPointF(0, 0), QSizeF(view.size())).contains(view.opRect(target)));
    QVERIFY(view.opRect(target).width() >= 100); // readable
    QCOMPARE(view.opAt(view.opRect(target).center()), target);
    save(renderImage(view, view.size()), QStringLiteral("dag_bert_selected_inside.png"));
}

void TestDagView::foldsRepeatedLayersIntoAStack()
{
    DagView view;
    QVERIFY(layOutShown(view, load("zoo:bert"), { 1000, 700 }));
    QSignalSpy ready(&view, &DagView::layoutReady);
    QTest::keyClick(&view, Qt::Key_R);
    QVERIFY(view.foldsRepeats());
    QVERIFY(ready.wait(10000));
    QCOMPARE(view.scopeView()->nodes.size(), std::size_t { 3 });
    const int stack = nodeTitled(view, QStringLiteral("l0\u201311 \u00d712"));
    QVERIFY(stack >= 0);
    QVERIFY(view.nodeDetail(static_cast<std::uint32_t>(stack)).contains(QStringLiteral("12 alike scopes, 264 ops")));
    save(renderImage(view, view.size()), QStringLiteral("dag_bert_folded.png"));

    // Clicking the stack opens its first layer; the other eleven stay stacked.
    QTest::mouseClick(&view, Qt::LeftButton, {}, view.nodeRect(static_cast<std::uint32_t>(stack)).center().toPoint());
    QVERIFY(ready.wait(10000));
    QVERIFY(nodeTitled(view, QStringLiteral("l1\u201311 \u00d711")) >= 0);
    QCOMPARE(QString::fromStdString(view.scopes().scopes[static_cast<std::size_t>(view.focusScope())].name),
        QStringLiteral("l0"));

    QTest::keyClick(&view, Qt::Key_R); // unfolds
    QVERIFY(ready.wait(10000));
    QVERIFY(nodeTitled(view, QStringLiteral("l11")) >= 0);
}

void TestDagView::groupsShowStagesAndDevices()
{
    const auto graph = load("zoo:bert");
    DagView view;
    QVERIFY(layOut(view, graph, { 1000, 700 }));
    const int layer = nodeTitled(view, QStringLiteral("l2"));
    QVERIFY(layer >= 0);
    const auto v = static_cast<std::uint32_t>(layer);
    const auto& ops = view.scopeView()->nodes[v].ops;

    const Schedule schedule = sequentialSchedule(*graph);
    view.setSchedule(&schedule);
    int first = 1 << 30, last = -1;
    for (std::uint32_t op : ops) {
        first = std::min(first, view.stageOf(OpId(op)));
        last = std::max(last, view.stageOf(OpId(op)));
    }
    QVERIFY(view.nodeDetail(v).contains(QStringLiteral("stages %1\u2013%2").arg(first).arg(last)));
    double share = 0;
    for (const auto& [colour, part] : view.nodeMix(v))
        share += part;
    QVERIFY(std::abs(share - 1.0) < 1e-9);
    QCOMPARE(view.nodeMix(v).size(), ops.size()); // one stage per op in a sequential schedule

    std::vector<int> deviceOf(graph->opCount(), 0);
    deviceOf[ops.front()] = 1;
    view.setDevices(deviceOf, { "cpu:0", "cuda:0" });
    QVERIFY(view.nodeDetail(v).contains(QStringLiteral("on cpu:0 (21), cuda:0 (1)")));
    QCOMPARE(view.nodeMix(v).size(), std::size_t { 2 });
    QCOMPARE(view.nodeMix(v).front().first, groupColour(0));
    // The box reads as its larger device.
    QCOMPARE(view.nodeColour(v), groupColour(0).lighter(125));
    save(renderImage(view, view.size()), QStringLiteral("dag_bert_devices.png"));
}

void TestDagView::scopeTitlesTellScopesApart()
{
    const std::vector<std::string> names = { "/features/features.5/attn/MatMul", "/features/features.5/attn/Add",
        "/features/features.5/Add", "/features/features.6/attn/MatMul", "/features/features.6/attn/Add",
        "/features/features.6/Add", "/encoder/encoder_layer_2/MatMul", "/encoder/encoder_layer_2/Add",
        "/encoder/encoder_layer_3/Add", "/encoder/encoder_layer_3/MatMul" };
    std::vector<std::pair<std::uint32_t, std::uint32_t>> chain;
    for (std::uint32_t i = 0; i + 1 < names.size(); ++i)
        chain.emplace_back(i, i + 1);
    const NameScopes scopes
        = buildNameScopes(names, std::vector<int>(names.size(), 0), Dag::fromEdges(names.size(), chain));
    const std::vector<QString> titles = scopeTitles(scopes);
    QStringList all;
    for (const QString& t : titles)
        all << t;
    // A unique name alone; a shared one with its parent; never a bare index.
    QVERIFY2(all.contains(QStringLiteral("encoder_layer_2")), qPrintable(all.join(QLatin1Char(' '))));
    QVERIFY2(all.contains(QStringLiteral("features.5/attn")), qPrintable(all.join(QLatin1Char(' '))));
    QVERIFY2(all.contains(QStringLiteral("features.6")), qPrintable(all.join(QLatin1Char(' '))));
    QVERIFY2(!all.contains(QStringLiteral("6")), qPrintable(all.join(QLatin1Char(' '))));
}

void TestDagView::criticalPathOutlinesBoxesAndGroups()
{
    const auto graph = load("zoo:bert");
    DagView view;
    QVERIFY(layOutShown(view, graph, { 1000, 700 }));
    const std::vector<OpId> path = engine::describeModel(*graph).summary.criticalPath;
    QVERIFY(path.size() > 24);
    view.setCriticalPath(path);
    // The heaviest chain runs through every layer: each layer's group is on it and says how much.
    const int layer = nodeTitled(view, QStringLiteral("l5"));
    QVERIFY(layer >= 0);
    const auto v = static_cast<std::uint32_t>(layer);
    QVERIFY(view.onCriticalPath(v));
    QVERIFY(view.nodeDetail(v).contains(QStringLiteral("of its ops on the critical path")));

    // Drawn only while shown (C toggles): a dark ring just outside the box.
    const QRectF box = view.nodeRect(v);
    const QPoint ring(static_cast<int>(box.left()) - 3, static_cast<int>(box.center().y()));
    auto dark = [&] {
        const QColor c(renderImage(view, view.size()).pixel(ring));
        return c.red() + c.green() + c.blue() < 200;
    };
    QVERIFY(!view.showsCriticalPath());
    QVERIFY(!dark());
    QSignalSpy changed(&view, &DagView::scopesChanged);
    QTest::keyClick(&view, Qt::Key_C);
    QVERIFY(view.showsCriticalPath());
    QCOMPARE(changed.count(), 1);
    QVERIFY(dark());
    save(renderImage(view, view.size()), QStringLiteral("dag_bert_critical.png"));

    // Every group opened, the ops on the chain carry the outline and those off it do not.
    QSignalSpy ready(&view, &DagView::layoutReady);
    view.expandAll();
    QVERIFY(ready.wait(10000));
    QCOMPARE(view.scopeView()->nodes.size(), graph->opCount());
    int on = 0, off = 0;
    for (std::uint32_t n = 0; n < view.scopeView()->nodes.size(); ++n) {
        const ScopeNode& node = view.scopeView()->nodes[n];
        if (node.kind != ScopeNode::Kind::Op)
            continue;
        const bool chain = std::find(path.begin(), path.end(), OpId(node.op)) != path.end();
        QCOMPARE(view.onCriticalPath(n), chain);
        (chain ? on : off) += 1;
    }
    QVERIFY(on > 0);
    QVERIFY(off > 0);
    QTest::keyClick(&view, Qt::Key_C);
    QVERIFY(!view.showsCriticalPath());
}

void TestDagView::bertLayersReadableAtFitInTheWindow()
{
    // In a 1600x1000 window at Fit, every encoder layer's box shows its whole name and its op count.
    isolateSettings();
    MainWindow w;
    w.setInteractive(false);
    w.resize(1600, 1000);
    QVERIFY(w.openModel(QStringLiteral("zoo:bert")));
    auto* tabs = w.findChild<QTabWidget*>(QStringLiteral("centralTabs"));
    DagView* view = w.dagView();
    tabs->setCurrentWidget(view);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(waitForLayout(*view));
    view->fitToView();
    QFont bold = view->font();
    bold.setBold(true);
    const QFontMetrics fm(bold);
    for (int layer = 0; layer < 12; ++layer) {
        const QString title = QStringLiteral("l%1").arg(layer);
        const int v = nodeTitled(*view, title);
        QVERIFY(v >= 0);
        const QRectF box = view->nodeRect(static_cast<std::uint32_t>(v));
        QVERIFY2(box.width() - 10 >= fm.horizontalAdvance(QStringLiteral("22 ops · 1.23 GFLOP"))
                && box.height() >= 2 * fm.height() + 4,
            qPrintable(QStringLiteral("%1: %2x%3").arg(title).arg(box.width()).arg(box.height())));
        QVERIFY(QRectF(QPointF(0, 0), QSizeF(view->size())).contains(box));
    }
    save(w.grab().toImage(), QStringLiteral("mainwindow_dag_bert.png"));
}

void TestDagView::cleanupTestCase()
{
    QSettings settings;
    settings.clear();
    settings.sync();
    QFile::remove(settings.fileName());
}

QTEST_MAIN(TestDagView)
#include "tst_dagview.moc"
