// The Timeline as a user meets it, in the real main window: a 36-stream Nimble plan of Inception
// V3 on sim:v100, scrolled to its last stream, a range dragged with the mouse, and the statistics
// the window shows for it checked against the spans themselves. Also the keys (Z, F, W/S, A/D),
// search, flows and the critical path, the table -> timeline selection, and the exported image.
#include "common/export.h"
#include "engine/results/schedule_result.h"
#include "runs/run_compare_panel.h"
#include "schedules/schedule_panel.h"
#include "timeline/kernel_stats.h"
#include "timeline/range_stats_model.h"
#include "timeline/time_ruler.h"
#include "timeline/timeline_panel.h"
#include "timeline/timeline_view.h"
#include "timeline/warp_chart.h"
#include "window/main_window.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <set>

using namespace opsched;

class TestTimelineWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void thirtySixStreamsScrollAndMeasure();
    void keysPanZoomAndFit();
    void searchFlowsAndCriticalPath();
    void tableSelectionRevealsTheOp();
    void exportedImageHasTheRulerAndEveryRow();
    void twoRunsSideBySide();

private:
    // Opens inception_v3, runs `scheduler` on sim:v100 in a shown window.
    static bool runIn(MainWindow& w, const QString& scheduler);
};

void TestTimelineWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("opsched-tests"));
    // One settings file per process: tests of several checkouts may run at once on one machine.
    QCoreApplication::setApplicationName(
        QStringLiteral("tst_timelinewindow-%1").arg(QCoreApplication::applicationPid()));
    QSettings().clear();
}

bool TestTimelineWindow::runIn(MainWindow& w, const QString& scheduler)
{
    w.setInteractive(false);
    w.resize(1366, 740);
    w.show();
    if (!QTest::qWaitForWindowExposed(&w) || !w.openModel(QStringLiteral("zoo:inception_v3")))
        return false;
    auto* panel = w.schedulePanel();
    QSignalSpy done(panel, &SchedulePanel::finished);
    panel->findChild<QComboBox*>(QStringLiteral("deviceCombo"))->setCurrentText(QStringLiteral("sim:v100"));
    panel->runScheduler(scheduler);
    if (!done.wait(60000) || !done.takeFirst().at(0).toBool())
        return false;
    QCoreApplication::processEvents();
    return w.timelineView()->data() != nullptr;
}

void TestTimelineWindow::thirtySixStreamsScrollAndMeasure()
{
    MainWindow w;
    QVERIFY(runIn(w, QStringLiteral("nimble")));
    TimelineView* view = w.timelineView();
    const TimelineData& data = *view->data();
    std::vector<std::size_t> opRows;
    for (std::size_t r = 0; r < data.rows.rowCount(); ++r)
        if (data.rowKind(r) == TimelineRowKind::Ops)
            opRows.push_back(r);
    QCOMPARE(opRows.size(), std::size_t(36));
    // Many streams start collapsed to their op rows; the rows still overflow the dock.
    QVERIFY(view->isCollapsed(opRows.front()));
    const std::size_t last = opRows.back();
    QCOMPARE(data.rowNames[last], std::string("stream 35"));
    QVERIFY2(view->rowTop(last) > view->height(), qPrintable(QString::number(view->rowTop(last))));
    auto* bar = view->findChild<QScrollBar*>(QStringLiteral("timelineScrollBar"));
    QVERIFY(bar && bar->isVisible());

    // Scroll to the end with the wheel over the stream names, as a user would.
    const QPoint names(20, view->height() / 2);
    for (int i = 0; i < 40 && view->scrollY() < view->maxScrollY(); ++i) {
        QWheelEvent wheel(names, view->mapToGlobal(names), {}, QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
            Qt::NoScrollPhase, false);
        QCoreApplication::sendEvent(view, &wheel);
    }
    QCOMPARE(view->scrollY(), view->maxScrollY());
    QCOMPARE(bar->value(), view->scrollY());
    const int y = view->rowTop(last) + TimelineView::kRowHeight / 2;
    QVERIFY(view->rowTop(last) >= TimelineView::kRulerHeight);
    QVERIFY(view->rowTop(last) + view->rowHeight(last) <= view->height());
    QCOMPARE(view->rowAt(y), static_cast<int>(last));

    // Expanding the last stream by clicking its name shows its kernel row below it.
    QTest::mouseClick(view, Qt::LeftButton, {}, QPoint(20, y));
    QVERIFY(!view->isCollapsed(last));
    QCOMPARE(view->rowHeight(last + 1), TimelineView::kKernelRowHeight);
    QTest::keyClick(view, Qt::Key_End);
    QVERIFY(view->rowTop(last + 1) + view->rowHeight(last + 1) <= view->height());

    // Drag across the middle of the run in the last stream's row.
    const int x0 = TimelineView::kLabelWidth + static_cast<int>(view->axis().width() * 0.30);
    const int x1 = TimelineView::kLabelWidth + static_cast<int>(view->axis().width() * 0.55);
    const double t0 = view->axis().toTime(x0 - TimelineView::kLabelWidth);
    const double t1 = view->axis().toTime(x1 - TimelineView::kLabelWidth);
    QTest::mousePress(view, Qt::LeftButton, {}, QPoint(x0, y));
    QTest::mouseMove(view, QPoint((x0 + x1) / 2, y));
    QTest::mouseMove(view, QPoint(x1, y));
    QTest::mouseRelease(view, Qt::LeftButton, {}, QPoint(x1, y));
    QVERIFY(view->selection());
    QVERIFY(std::abs(view->selection()->first - t0) < 1e-12);
    QVERIFY(std::abs(view->selection()->second - t1) < 1e-12);
    QCOMPARE(view->axis().toX(t0), static_cast<double>(x0 - TimelineView::kLabelWidth)); // no panning happened

    // What should be shown, counted straight from the spans.
    std::size_t ops = 0, kernels = 0;
    double lastBusy = 0;
    for (std::size_t r = 0; r < data.rows.rowCount(); ++r)
        for (const auto& s : data.rows.row(r)) {
            if (s.end < t0 || s.start > t1)
                continue;
            (data.rowKind(r) == TimelineRowKind::Ops ? ops : kernels) += 1;
            if (r == last)
                lastBusy += std::min(s.end, t1) - std::max(s.start, t0); // one stream's ops never overlap
        }
    QVERIFY(ops > 0 && kernels > 0);
    auto* summary = w.findChild<QLabel*>(QStringLiteral("rangeSummary"));
    QVERIFY(summary);
    const QString text = summary->text();
    QVERIFY2(text.contains(QStringLiteral("Range")), qPrintable(text));
    QVERIFY2(
        text.contains(QStringLiteral("Δt %1").arg(QString::fromStdString(formatDuration(t1 - t0)))), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("%1 ops, %2 kernels").arg(ops).arg(kernels)), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("active warps on average")), qPrintable(text));

    // The Streams table: one row per stream; the last one's busy time as counted.
    auto* streams = w.findChild<QTableView*>(QStringLiteral("rangeTable"));
    QVERIFY(streams);
    QAbstractItemModelTester tester(streams->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(streams->model()->rowCount(), 36);
    const RangeStatsModel* model = w.timelinePanel()->rangeModel();
    const StreamRangeStats& lastStats = model->stats().streams.back();
    QCOMPARE(lastStats.row, last);
    QVERIFY(std::abs(lastStats.busy - lastBusy) < 1e-12);
    QVERIFY(model->stats().peakConcurrency >= 1);
    for (const auto& st : model->stats().streams)
        if (st.busy > 0)
            QVERIFY(st.concurrency >= 1 - 1e-9 && st.concurrency <= model->stats().peakConcurrency + 1e-9);
        else
            QCOMPARE(st.concurrency, 0.0);

    // The kernel summary exports as CSV; a path that cannot be written says why.
    QTemporaryDir csvDir;
    const QString csv = csvDir.filePath(QStringLiteral("kernels.csv"));
    QCOMPARE(w.timelinePanel()->exportKernelCsv(csv), QString());
    QFile written(csv);
    QVERIFY(written.open(QIODevice::ReadOnly));
    QCOMPARE(written.readAll().toStdString(), kernelSummaryCsv(w.timelinePanel()->kernelModel()->rows()));
    QVERIFY(w.timelinePanel()
                ->exportKernelCsv(csvDir.filePath(QStringLiteral("no/such/dir/k.csv")))
                .contains(QStringLiteral("Cannot write")));

    // The kernel summary covers the same kernels.
    const auto& rows = w.timelinePanel()->kernelModel()->rows();
    std::size_t summed = 0;
    for (const auto& r : rows)
        summed += r.count;
    QCOMPARE(summed, kernels);
    // Clicking a kernel in the summary finds it in the timeline.
    QTableView* kernelTable = w.timelinePanel()->kernelTable();
    const QModelIndex first = kernelTable->model()->index(0, KernelStatsModel::NameColumn);
    emit kernelTable->clicked(first);
    QCOMPARE(w.findChild<QLineEdit*>(QStringLiteral("timelineSearch"))->text(), first.data().toString());
    QVERIFY(view->matchCount() >= 1);
    w.findChild<QLineEdit*>(QStringLiteral("timelineSearch"))->clear();

    // The warps chart shows the range too, and a readout under the mouse.
    QVERIFY(!w.warpChart()->readoutAt(x0).isEmpty());
    QVERIFY(w.warpChart()->readoutAt(x0).contains(QStringLiteral("active warps")));
    // Tall enough to read: the host lane, a plot of a few text lines with its axis, the ruler (it was
    // a 12 px lane over a plot of about 30 px).
    QVERIFY(w.warpChart()->hostLaneHeight() >= 16);
    QVERIFY(w.warpChart()->height() >= w.warpChart()->hostLaneHeight() + 3 * w.fontMetrics().height());

    // Z zooms to the range; Esc clears it and the summary goes back to the whole run.
    QTest::keyClick(view, Qt::Key_Z);
    QVERIFY(std::abs(view->axis().start() - t0) < 1e-12);
    QVERIFY(std::abs(view->axis().end() - t1) < 1e-12);
    QCOMPARE(w.warpChart()->axis().start(), view->axis().start());
    QTest::keyClick(view, Qt::Key_Escape);
    QVERIFY(!view->selection());
    QVERIFY(summary->text().contains(QStringLiteral("Whole run")));
}

void TestTimelineWindow::keysPanZoomAndFit()
{
    MainWindow w;
    QVERIFY(runIn(w, QStringLiteral("ios")));
    TimelineView* view = w.timelineView();
    view->setFocus();
    const TimeAxis whole = view->axis();
    QTest::keyClick(view, Qt::Key_W);
    QVERIFY(view->axis().duration() < whole.duration() * 0.7);
    const TimeAxis zoomed = view->axis();
    QTest::keyClick(view, Qt::Key_D);
    QVERIFY(view->axis().start() > zoomed.start());
    QTest::keyClick(view, Qt::Key_Left);
    QTest::keyClick(view, Qt::Key_A);
    QVERIFY(view->axis().start() < zoomed.start());
    QTest::keyClick(view, Qt::Key_S);
    QVERIFY(view->axis().duration() > zoomed.duration());
    // F fits the run, even though the window has an F shortcut for the DAG.
    QTest::keyClick(view, Qt::Key_W);
    QTest::keyClick(view, Qt::Key_W);
    QTest::keyClick(view, Qt::Key_F);
    QCOMPARE(view->axis().start(), 0.0);
    QVERIFY(std::abs(view->axis().end() - whole.end()) < 1e-15);
    // The wheel zooms around the cursor; the ruler reads the time under it.
    const QPoint at(TimelineView::kLabelWidth + 200, TimelineView::kRulerHeight + 5);
    QTest::mouseMove(view, at);
    QVERIFY(view->cursorTime());
    const double before = *view->cursorTime();
    QWheelEvent wheel(
        at, view->mapToGlobal(at), {}, QPoint(0, 240), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(view, &wheel);
    QVERIFY(view->axis().duration() < whole.duration());
    QVERIFY(std::abs(view->axis().toTime(200) - before) < view->axis().secondsPerPixel());
    // The wheel over the warps chart zooms the timeline around the same instant.
    const double before2 = view->axis().duration();
    const QPoint overChart(TimelineView::kLabelWidth + 300, w.warpChart()->height() / 2);
    const double at300 = view->axis().toTime(300);
    QWheelEvent chartWheel(overChart, w.warpChart()->mapToGlobal(overChart), {}, QPoint(0, 120), Qt::NoButton,
        Qt::NoModifier, Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(w.warpChart(), &chartWheel);
    QVERIFY(view->axis().duration() < before2);
    QVERIFY(std::abs(view->axis().toTime(300) - at300) < view->axis().secondsPerPixel());
    QCOMPARE(w.warpChart()->axis().start(), view->axis().start());
    // Dragging with the right button pans.
    const double start = view->axis().start();
    QTest::mousePress(view, Qt::RightButton, {}, at);
    QTest::mouseMove(view, at - QPoint(100, 0));
    QTest::mouseRelease(view, Qt::RightButton, {}, at - QPoint(100, 0));
    QVERIFY(view->axis().start() > start);
    QVERIFY(!view->selection());
}

void TestTimelineWindow::searchFlowsAndCriticalPath()
{
    MainWindow w;
    QVERIFY(runIn(w, QStringLiteral("nimble")));
    TimelineView* view = w.timelineView();
    auto* search = w.findChild<QLineEdit*>(QStringLiteral("timelineSearch"));
    QVERIFY(search);
    // Op names and kernel names: "mixed_7c" matches ops and their kernels, all in the run's last part.
    QTest::keyClicks(search, QStringLiteral("MIXED_7C"));
    const int n = view->matchCount();
    QVERIFY2(n > 4, qPrintable(QString::number(n)));
    auto* label = w.findChild<QLabel*>(QStringLiteral("searchMatches"));
    QCOMPARE(label->text(), QStringLiteral("%1 matches").arg(n));
    QTest::keyClick(search, Qt::Key_Return);
    QCOMPARE(view->currentMatch(), 0);
    QCOMPARE(label->text(), QStringLiteral("1 of %1").arg(n));
    view->previousMatch(); // wraps to the last
    QCOMPARE(view->currentMatch(), n - 1);
    search->clear();
    QCOMPARE(view->matchCount(), 0);
    QTest::keyClicks(search, QStringLiteral("no such op"));
    QCOMPARE(label->text(), QStringLiteral("no match"));
    view->nextMatch(); // nothing to move to, nothing breaks
    QCOMPARE(view->currentMatch(), -1);

    // Nimble's plan waits across streams: flows exist and can be shown; the critical path is a
    // chain of ops in time order whose last op ends the run.
    const TimelineData& data = *view->data();
    QVERIFY(!data.flows.empty());
    for (const auto& f : data.flows) {
        QVERIFY(f.to >= f.from - 1e-12);
        QVERIFY(f.fromRow != f.toRow);
        QCOMPARE(data.rowKind(f.fromRow), TimelineRowKind::Ops);
    }
    auto* flows = w.findChild<QCheckBox*>(QStringLiteral("showFlows"));
    QVERIFY(flows->isEnabled());
    flows->setChecked(true);
    QVERIFY(view->showFlows());
    QVERIFY(!data.criticalPath.empty());
    std::set<std::uint32_t> onPath(data.criticalPath.begin(), data.criticalPath.end());
    double lastEnd = 0, previousStart = -1;
    for (auto op : data.criticalPath)
        for (std::size_t r = 0; r < data.rows.rowCount(); ++r)
            if (data.rowKind(r) == TimelineRowKind::Ops)
                for (const auto& s : data.rows.row(r))
                    if (s.id == op) {
                        QVERIFY(s.start >= previousStart - 1e-12);
                        previousStart = s.start;
                        lastEnd = std::max(lastEnd, s.end);
                    }
    QVERIFY(std::abs(lastEnd - data.rows.lastEnd()) < 1e-12);
    w.findChild<QCheckBox*>(QStringLiteral("showCriticalPath"))->setChecked(true);
    QVERIFY(view->showCriticalPath());
    QImage image(view->size(), QImage::Format_ARGB32);
    QPainter p(&image);
    view->render(p, image.size());
}

void TestTimelineWindow::tableSelectionRevealsTheOp()
{
    MainWindow w;
    QVERIFY(runIn(w, QStringLiteral("nimble")));
    TimelineView* view = w.timelineView();
    // The op on the last stream: selecting it in the table scrolls the timeline to it.
    const TimelineData& data = *view->data();
    std::size_t lastOps = 0;
    for (std::size_t r = 0; r < data.rows.rowCount(); ++r)
        if (data.rowKind(r) == TimelineRowKind::Ops)
            lastOps = r;
    const TimelineSpan& span = data.rows.row(lastOps).front();
    QVERIFY(view->rowTop(lastOps) > view->height());
    w.selectOpInTable(span.id);
    QCOMPARE(view->revealedOp(), std::optional<std::uint32_t>(span.id));
    QVERIFY(view->rowTop(lastOps) >= TimelineView::kRulerHeight);
    QVERIFY(view->rowTop(lastOps) + view->rowHeight(lastOps) <= view->height());
    QVERIFY(view->axis().overlaps(span.start, span.end));
}

void TestTimelineWindow::exportedImageHasTheRulerAndEveryRow()
{
    MainWindow w;
    QVERIFY(runIn(w, QStringLiteral("nimble")));
    TimelineView* view = w.timelineView();
    const QSize size = view->fullSize();
    QVERIFY(size.height() > view->height()); // every row, not only those on screen
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("timeline.png"));
    QCOMPARE(exportImage(file, size, [&](QPainter& p, const QSize& s) { view->render(p, s, 0); }), QString());
    const QImage image(file);
    QCOMPARE(image.size(), size);
    // The ruler's band differs from the rows' background; tick marks are drawn in it.
    const QRgb ruler = image.pixel(TimelineView::kLabelWidth + 1, 2);
    QVERIFY(ruler != image.pixel(size.width() - 2, size.height() - 2));
    int dark = 0;
    for (int x = TimelineView::kLabelWidth; x < size.width() - TimelineView::rightMargin(); ++x)
        dark += qGray(image.pixel(x, TimelineView::kRulerHeight - 3)) < 100 ? 1 : 0;
    QVERIFY2(dark >= 5, qPrintable(QString::number(dark))); // tick marks
    // The last stream's row has boxes.
    const auto lastRowY = size.height() - 4 - TimelineView::kRowHeight / 2;
    int coloured = 0;
    for (int x = TimelineView::kLabelWidth; x < size.width() - TimelineView::rightMargin(); ++x) {
        const QColor c = image.pixelColor(x, lastRowY);
        coloured += c.saturation() > 60 ? 1 : 0;
    }
    QVERIFY(coloured > 0);
}

void TestTimelineWindow::twoRunsSideBySide()
{
    MainWindow w;
    QVERIFY(runIn(w, QStringLiteral("ios")));
    const auto ios = w.timelineView()->sharedData();
    QSignalSpy done(w.schedulePanel(), &SchedulePanel::finished);
    w.schedulePanel()->runScheduler(QStringLiteral("nimble"));
    QVERIFY(done.wait(60000));
    const auto nimble = w.timelineView()->sharedData();
    QVERIFY(ios != nimble);

    RunComparePanel* diff = w.runComparePanel();
    QCOMPARE(diff->runCount(), 2);
    // The newest (nimble) is B, the one before (ios) A.
    QCOMPARE(diff->viewA()->sharedData(), ios);
    QCOMPARE(diff->viewB()->sharedData(), nimble);
    // One time axis, the longer run's: both views fit it, and zooming one moves the other.
    const double longer
        = std::max(std::max(ios->latency, ios->rows.lastEnd()), std::max(nimble->latency, nimble->rows.lastEnd()));
    QCOMPARE(diff->viewA()->axis().end(), longer);
    QCOMPARE(diff->viewB()->axis().end(), longer);
    diff->viewA()->resize(900, 300);
    diff->viewB()->resize(900, 300);
    diff->viewA()->setFocus();
    QTest::keyClick(diff->viewA(), Qt::Key_W);
    QTest::keyClick(diff->viewA(), Qt::Key_D);
    QCOMPARE(diff->viewB()->axis().start(), diff->viewA()->axis().start());
    QCOMPARE(diff->viewB()->axis().duration(), diff->viewA()->axis().duration());

    // The table: one row per op that ran a kernel in either run, with both placements.
    const RunDiff& d = diff->model()->diff();
    QCOMPARE(diff->model()->rowCount(), 109); // inception_v3's ops minus the 11 plain concats
    QCOMPARE(d.onlyInA + d.onlyInB, std::size_t(0));
    QVERIFY(d.streamChanges > 0); // nimble spreads ops over 36 streams, ios over a few
    QCOMPARE(d.latencyA, ios->latency);
    QVERIFY(diff->summary()->text().contains(QStringLiteral("ops on another stream")));
    auto* table = diff->findChild<QTableView*>(QStringLiteral("diffTable"));
    QAbstractItemModelTester tester(table->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);

    // Swapping A and B.
    diff->setRuns(0, 1);
    QCOMPARE(diff->viewA()->sharedData(), nimble);
    QCOMPARE(diff->model()->diff().latencyB, ios->latency);
    // Opening another model forgets the runs of this one.
    QVERIFY(w.openModel(QStringLiteral("zoo:squeezenet")));
    QCOMPARE(diff->runCount(), 0);
    QVERIFY(!diff->viewA()->data());
}

void TestTimelineWindow::cleanupTestCase()
{
    QSettings settings;
    settings.clear();
    settings.sync();
    QFile::remove(settings.fileName());
}

QTEST_MAIN(TestTimelineWindow)
#include "tst_timelinewindow.moc"
