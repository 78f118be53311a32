#include "dag/op_properties_widget.h"
#include "dag/op_table_model.h"
#include "engine/results/mapping_result.h"
#include "engine/results/schedule_result.h"
#include "model/model_ref.h"
#include "plan/schedule_edit.h"
#include "runs/run_compare_panel.h"
#include "schedules/schedule_editor.h"
#include "schedules/schedule_panel.h"
#include "timeline/timeline_view.h"
#include "timeline/warp_chart.h"
#include "window/main_window.h"
#include "window/start_page.h"
#include "zoo/zoo.h"

#include <algorithm>
#include <functional>
#include <set>

#include <QAbstractItemModel>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPainter>
#include <QScrollArea>
#include <QScrollBar>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QWheelEvent>

#include "runs/run_database_panel.h"
#include "store/store.h"
#include <QTest>
#include <QUrl>

using opsched::MainWindow;

class TestMainWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void init();
    void startsEmpty();
    void firstStartOnALaptopScreenShowsResultsAndEverySetting();
    void opensZooModel();
    void reportsUnknownModel();
    void remembersRecentModels();
    void filterMatchesNames();
    void sortsNumbersAsNumbers();
    void hasIconAndDeviceLine();
    void runsIosAndShowsItsTimeline();
    void cancelStopsASearch();
    void schedulesAtAnotherBatch();
    void lowersWithEventsWhenAsked();
    void propertiesFollowTheSelection();
    void droppedFilesOpen();
    void fitsALaptopScreen();
    void undoShortcutsAndUnsavedEdits();
    void startPageOpensRecentAndBuiltIn();
    void displayNames_data();
    void displayNames();
    void onnxModelNamedByItsFolder();
    void wheelScrollsPanelsNotTheirFields();
    void resultsTableShowsEveryColumn();
    void kernelTableShowsEveryColumn();
    void diffShowsMostStreams();
    void timelineSaysWhichRunItShows();
    void helpListsEveryShortcut();
    void firstStartFillsMostOfTheScreen_data();
    void firstStartFillsMostOfTheScreen();
    void databaseComesBackOnTheNextStart();

private:
    static QTableView* table(MainWindow& w) { return w.findChild<QTableView*>(QStringLiteral("opTable")); }
    static QLineEdit* filter(MainWindow& w) { return w.findChild<QLineEdit*>(QStringLiteral("opFilter")); }
};

void TestMainWindow::initTestCase()
{
    // Settings go to a throwaway test location, never the user's opsched configuration.
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("opsched-tests"));
    // One settings file per process: tests of several checkouts may run at once on one machine.
    QCoreApplication::setApplicationName(QStringLiteral("tst_mainwindow-%1").arg(QCoreApplication::applicationPid()));
}

void TestMainWindow::init()
{
    QSettings().clear();
}

void TestMainWindow::firstStartOnALaptopScreenShowsResultsAndEverySetting()
{
    // 1280x720 and 1024x640 screens (the window takes nine tenths): the Schedules panel keeps every
    // setting in view (no sideways scrolling), and at 1280x720 a few result rows under Run.
    for (const QSize window : { QSize(1152, 648), QSize(921, 576) }) {
        QSettings().clear();
        MainWindow w;
        w.setInteractive(false);
        w.resize(window);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTest::qWait(50); // the first-start dock sizes
        auto* table = w.findChild<QTableView*>(QStringLiteral("resultsTable"));
        auto* dock = w.findChild<QDockWidget*>(QStringLiteral("schedulesDock"));
        QVERIFY(table && dock);
        auto* scroll = qobject_cast<QScrollArea*>(dock->widget());
        QVERIFY(scroll);
        QVERIFY2(!scroll->horizontalScrollBar()->isVisible(),
            qPrintable(QStringLiteral("%1 wide: the panel scrolls sideways").arg(window.width())));
        if (window.height() < 600)
            continue; // 1024x640: the timeline's own minimum leaves the panel scrolling a little
        QRect shown(table->mapTo(scroll->viewport(), QPoint(0, 0)), table->size());
        shown &= scroll->viewport()->rect();
        const int rows = table->horizontalHeader()->height() + 2 * table->verticalHeader()->defaultSectionSize();
        QVERIFY2(shown.height() >= rows, qPrintable(QStringLiteral("%1 px of the results show").arg(shown.height())));
    }
    QSettings().clear();
}

void TestMainWindow::startsEmpty()
{
    MainWindow w;
    QVERIFY(!w.graph());
    QCOMPARE(w.windowTitle(), QStringLiteral("opsched"));
    QVERIFY(table(w));
    QCOMPARE(table(w)->model()->rowCount(), 0);
    QVERIFY(w.recentFiles().isEmpty());
}

void TestMainWindow::opensZooModel()
{
    MainWindow w;
    w.setInteractive(false);
    QVERIFY(w.openModel(QStringLiteral("zoo:squeezenet")));
    QVERIFY(w.lastError().isEmpty());
    QCOMPARE(table(w)->model()->rowCount(), 50);
    QVERIFY(w.windowTitle().contains(QStringLiteral("squeezenet")));

    QVERIFY(w.openModel(QStringLiteral("zoo:inception_v3"), 2));
    QCOMPARE(w.graph()->batch(), 2);
    QVERIFY(w.windowTitle().contains(QStringLiteral("inception_v3")));
}

void TestMainWindow::reportsUnknownModel()
{
    MainWindow w;
    w.setInteractive(false);
    QVERIFY(w.openModel(QStringLiteral("zoo:squeezenet")));
    QVERIFY(!w.openModel(QStringLiteral("zoo:nope")));
    QVERIFY2(w.lastError().contains(QStringLiteral("unknown zoo network")), qPrintable(w.lastError()));
    // The model that was open stays open.
    QCOMPARE(table(w)->model()->rowCount(), 50);
    QVERIFY(w.windowTitle().contains(QStringLiteral("squeezenet")));
    QVERIFY(!w.recentFiles().contains(QStringLiteral("zoo:nope")));

    QVERIFY(!w.openModel(QStringLiteral("/no/such/model.onnx")));
    QVERIFY(!w.lastError().isEmpty());
}

void TestMainWindow::remembersRecentModels()
{
    {
        MainWindow w;
        w.setInteractive(false);
        QVERIFY(w.openModel(QStringLiteral("zoo:squeezenet")));
        QVERIFY(w.openModel(QStringLiteral("zoo:googlenet")));
        QCOMPARE(w.recentFiles(), (QStringList { "zoo:googlenet", "zoo:squeezenet" }));
        // Reopening moves an entry to the front instead of repeating it.
        QVERIFY(w.openModel(QStringLiteral("zoo:squeezenet")));
        QCOMPARE(w.recentFiles(), (QStringList { "zoo:squeezenet", "zoo:googlenet" }));
        for (int seed = 0; seed < 10; ++seed)
            QVERIFY(w.openModel(QStringLiteral("zoo:random?seed=%1").arg(seed)));
        QCOMPARE(w.recentFiles().size(), MainWindow::kMaxRecentFiles);
        QCOMPARE(w.recentFiles().front(), QStringLiteral("zoo:random?seed=9"));
    }
    MainWindow again; // the list outlives the window
    QCOMPARE(again.recentFiles().front(), QStringLiteral("zoo:random?seed=9"));
}

void TestMainWindow::filterMatchesNames()
{
    MainWindow w;
    w.setInteractive(false);
    QVERIFY(w.openModel(QStringLiteral("zoo:squeezenet")));
    QLineEdit* edit = filter(w);
    QVERIFY(edit);
    // fire2.squeeze, .expand3x3, .expand1x1, .concat, .bypass, .add: names only, not the Inputs column.
    edit->setText(QStringLiteral("fire2"));
    QCOMPARE(table(w)->model()->rowCount(), 6);
    edit->setText(QStringLiteral("FIRE2.EXPAND"));
    QCOMPARE(table(w)->model()->rowCount(), 2);
    edit->clear();
    QCOMPARE(table(w)->model()->rowCount(), 50);
}

void TestMainWindow::sortsNumbersAsNumbers()
{
    MainWindow w;
    w.setInteractive(false);
    QVERIFY(w.openModel(QStringLiteral("zoo:squeezenet")));
    QAbstractItemModel* model = table(w)->model();
    // Unsorted at first: the graph's topological order.
    QCOMPARE(model->index(0, opsched::OpTableModel::NameColumn).data().toString(), QStringLiteral("conv1"));

    table(w)->sortByColumn(opsched::OpTableModel::GflopColumn, Qt::DescendingOrder);
    double previous
        = model->index(0, opsched::OpTableModel::GflopColumn).data(opsched::OpTableModel::SortRole).toDouble();
    QCOMPARE(previous, w.graph()->op(opsched::OpId(0)).cost.flops); // conv1 is squeezenet's heaviest op
    for (int row = 1; row < model->rowCount(); ++row) {
        const double flops
            = model->index(row, opsched::OpTableModel::GflopColumn).data(opsched::OpTableModel::SortRole).toDouble();
        QVERIFY(flops <= previous);
        previous = flops;
    }
}

void TestMainWindow::hasIconAndDeviceLine()
{
    MainWindow w;
    // The icon comes from the qrc compiled into the static views library, rendered by Qt's SVG plugin.
    QVERIFY(!w.windowIcon().isNull());
    QVERIFY(!w.windowIcon().pixmap(32, 32).isNull());
    auto* device = w.findChild<QLabel*>(QStringLiteral("deviceStatus"));
    QVERIFY(device);
    QVERIFY2(device->text().startsWith(QStringLiteral("device: ")), qPrintable(device->text()));
}

// The smoke test the GUI issue asks for: open Inception V3, run ios on sim:h100, and check that the
// timeline and the warps chart hold what the run produced.
void TestMainWindow::runsIosAndShowsItsTimeline()
{
    opsched::MainWindow w;
    w.setInteractive(false);
    QVERIFY(w.openModel(QStringLiteral("zoo:inception_v3")));
    auto* panel = w.schedulePanel();
    QSignalSpy done(panel, &opsched::SchedulePanel::finished);
    panel->findChild<QComboBox*>(QStringLiteral("deviceCombo"))->setCurrentText(QStringLiteral("sim:h100"));
    panel->runScheduler(QStringLiteral("ios"));
    QVERIFY(done.wait(30000));
    QCOMPARE(done.takeFirst().at(0).toBool(), true);
    QCOMPARE(panel->results()->rowCount(), 1);

    const opsched::TimelineData* data = w.timelineView()->data();
    QVERIFY(data != nullptr);
    // Each stream is an op row with a kernel row under it; ios runs branches on several streams.
    QVERIFY(data->rows.rowCount() >= 4);
    QCOMPARE(data->rowKinds.size(), data->rows.rowCount());
    QCOMPARE(data->rowNames.size(), data->rows.rowCount());
    std::size_t opSpans = 0, kernelSpans = 0;
    for (std::size_t r = 0; r < data->rows.rowCount(); ++r) {
        const bool kernelRow = r % 2 == 1;
        QCOMPARE(data->rowKind(r), kernelRow ? opsched::TimelineRowKind::Kernels : opsched::TimelineRowKind::Ops);
        (kernelRow ? kernelSpans : opSpans) += data->rows.row(r).size();
    }
    QCOMPARE(static_cast<int>(opSpans), 120 - 11); // every op but the 11 plain concats
    QVERIFY(kernelSpans > 0);
    QCOMPARE(kernelSpans, data->kernels.size()); // every kernel drawn once
    // A kernel lies inside its op's box on the stream above, and names that op.
    const double slack = 1e-12;
    for (std::size_t r = 1; r < data->rows.rowCount(); r += 2)
        for (const auto& k : data->rows.row(r)) {
            QVERIFY(k.id < data->kernels.size());
            const auto& kernel = data->kernels[k.id];
            QVERIFY(kernel.op < 120);
            QVERIFY(k.end > k.start);
            QVERIFY(kernel.warps > 0);
            QVERIFY(!kernel.name.empty());
            const auto& ops = data->rows.row(r - 1);
            const auto box = std::find_if(
                ops.begin(), ops.end(), [&](const opsched::TimelineSpan& op) { return op.id == kernel.op; });
            QVERIFY2(box != ops.end(), kernel.name.c_str());
            QVERIFY2(k.start >= box->start - slack && k.end <= box->end + slack, kernel.name.c_str());
        }
    QVERIFY(!data->stages.empty());
    QVERIFY(!data->warps.empty());
    QVERIFY(data->latency > 0);
    // The warps chart follows the timeline's zoom.
    QImage image(800, 200, QImage::Format_ARGB32);
    QPainter painter(&image);
    w.timelineView()->render(painter, image.size());
}

void TestMainWindow::cancelStopsASearch()
{
    opsched::MainWindow w;
    w.setInteractive(false);
    QVERIFY(w.openModel(QStringLiteral("zoo:nasnet_a")));
    auto* panel = w.schedulePanel();
    QSignalSpy done(panel, &opsched::SchedulePanel::finished);
    panel->runScheduler(QStringLiteral("ios"));
    QVERIFY(panel->isRunning());
    panel->cancel();
    QVERIFY(done.wait(30000));
    const auto args = done.takeFirst();
    QCOMPARE(args.at(0).toBool(), false);
    QCOMPARE(args.at(1).toString(), QStringLiteral("cancelled"));
    QCOMPARE(panel->results()->rowCount(), 0);
}

// The Batch box rebuilds the model at that batch for the run: the result says so, and the same
// schedule costs more at batch 8, exactly what the model loaded at batch 8 costs.
void TestMainWindow::schedulesAtAnotherBatch()
{
    opsched::MainWindow w;
    w.setInteractive(false);
    QVERIFY(w.openModel(QStringLiteral("zoo:squeezenet")));
    auto* panel = w.schedulePanel();
    auto* batch = panel->findChild<QSpinBox*>(QStringLiteral("batchSpin"));
    QVERIFY(batch != nullptr);
    QCOMPARE(batch->value(), 1); // follows the open model
    QSignalSpy done(panel, &opsched::SchedulePanel::finished);
    panel->runScheduler(QStringLiteral("sequential"));
    QVERIFY(done.wait(30000));
    batch->setValue(8);
    panel->runScheduler(QStringLiteral("sequential"));
    QVERIFY(done.wait(30000));
    QCOMPARE(panel->results()->rowCount(), 2);
    const auto one = panel->results()->result(0);
    const auto eight = panel->results()->result(1);
    QVERIFY(one && eight);
    QCOMPARE(one->batch, std::int64_t { 1 });
    QCOMPARE(eight->batch, std::int64_t { 8 });
    QVERIFY(eight->latency > one->latency);
    // The same as scheduling the model loaded at batch 8 directly.
    opsched::ScheduleRequest direct = eight->request;
    direct.batch = 0;
    const auto reference = opsched::computeScheduleResult(opsched::loadModel("zoo:squeezenet", 8), direct);
    QCOMPARE(eight->latency, reference->latency);
    QCOMPARE(w.graph()->batch(), std::int64_t { 1 }); // the open model stays as opened
}

// The Lowering box: greedy's stages lowered with events carry no barrier and a wait per
// cross-stream dependency; `best` keeps whichever plan simulates faster, never the slower one.
void TestMainWindow::lowersWithEventsWhenAsked()
{
    opsched::MainWindow w;
    w.setInteractive(false);
    QVERIFY(w.openModel(QStringLiteral("zoo:googlenet")));
    auto* panel = w.schedulePanel();
    auto* lowering = panel->findChild<QComboBox*>(QStringLiteral("loweringCombo"));
    QVERIFY(lowering != nullptr);
    QCOMPARE(lowering->currentText(), QStringLiteral("barriers"));
    QSignalSpy done(panel, &opsched::SchedulePanel::finished);
    for (const char* name : { "barriers", "events", "best" }) {
        lowering->setCurrentText(QString::fromLatin1(name));
        panel->runScheduler(QStringLiteral("greedy"));
        QVERIFY(done.wait(30000));
    }
    QCOMPARE(panel->results()->rowCount(), 3);
    const auto barriers = panel->results()->result(0);
    const auto events = panel->results()->result(1);
    const auto best = panel->results()->result(2);
    QVERIFY(barriers && events && best);
    QVERIFY(!barriers->output.plan.barriers.empty());
    QVERIFY(events->output.plan.barriers.empty());
    QVERIFY(events->output.plan.waitCount() > 0);
    QCOMPARE(events->request.pruning.lowering, std::string("events"));
    QCOMPARE(best->latency, std::min(barriers->latency, events->latency));
}

void TestMainWindow::propertiesFollowTheSelection()
{
    opsched::MainWindow w;
    w.setInteractive(false);
    QVERIFY(w.openModel(QStringLiteral("zoo:squeezenet")));
    w.selectOpInTable(w.graph()->findOp("fire2.expand3x3")->value());
    auto* props = w.propertiesPanel();
    QCOMPARE(props->text(QStringLiteral("Name")), QStringLiteral("fire2.expand3x3"));
    QCOMPARE(props->text(QStringLiteral("Output")), QStringLiteral("1x64x55x55"));
    QVERIFY(props->text(QStringLiteral("Stream")).isEmpty()); // no schedule yet

    QSignalSpy done(w.schedulePanel(), &opsched::SchedulePanel::finished);
    w.schedulePanel()->runScheduler(QStringLiteral("greedy"));
    QVERIFY(done.wait(30000));
    QVERIFY(!props->text(QStringLiteral("Stage")).isEmpty());
    QVERIFY(!props->text(QStringLiteral("Stream")).isEmpty());
    QVERIFY(props->text(QStringLiteral("Duration")).endsWith(QStringLiteral(" us")));
}

void TestMainWindow::droppedFilesOpen()
{
    opsched::MainWindow w;
    w.setInteractive(false);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("model.txt"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("not a model");
    f.close();
    QVERIFY(!w.openDroppedUrls({ QUrl::fromLocalFile(path) }));
    // The file was tried, and refused with loadModel's reason.
    QVERIFY2(w.lastError().contains(QStringLiteral("unknown model format")), qPrintable(w.lastError()));
}

void TestMainWindow::fitsALaptopScreen()
{
    // A 1366x768 laptop leaves about 700 px for a window; the window must fit in 600.
    opsched::MainWindow w;
    w.setInteractive(false);
    w.resize(1366, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openModel(QStringLiteral("zoo:inception_v3")));
    QCoreApplication::processEvents();
    QVERIFY2(w.minimumSizeHint().height() <= 600, qPrintable(QString::number(w.minimumSizeHint().height())));
    QVERIFY2(w.minimumHeight() <= 600, qPrintable(QString::number(w.minimumHeight())));
    w.resize(1366, 600);
    QCoreApplication::processEvents();
    QVERIFY2(w.height() <= 600, qPrintable(QString::number(w.height())));

    // The timeline dock grows with the window instead of leaving the growth to the op table.
    auto* dock = w.findChild<QDockWidget*>(QStringLiteral("timelineDock"));
    QVERIFY(dock);
    const int small = dock->height();
    const double share = static_cast<double>(small) / w.height();
    w.resize(1366, 1000);
    QCoreApplication::processEvents();
    // It keeps (about) its share of the window's height.
    QVERIFY2(dock->height() > small + 100 && dock->height() > 0.8 * share * w.height(),
        qPrintable(QStringLiteral("%1 -> %2").arg(small).arg(dock->height())));
}

void TestMainWindow::undoShortcutsAndUnsavedEdits()
{
    opsched::MainWindow w;
    w.setInteractive(false);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openModel(QStringLiteral("zoo:squeezenet")));
    QSignalSpy done(w.schedulePanel(), &opsched::SchedulePanel::finished);
    w.schedulePanel()->runScheduler(QStringLiteral("sequential"));
    QVERIFY(done.wait(30000));
    opsched::ScheduleEditor* editor = w.scheduleEditor();
    QVERIFY(editor->isEnabled());
    const opsched::Schedule before = editor->schedule();
    const auto e3 = opsched::findOp(before, *w.graph()->findOp("fire2.expand3x3"));
    editor->apply(
        opsched::moveOp(before, *w.graph()->findOp("fire2.expand1x1"), e3->stage, 1, 0), QStringLiteral("pair"));
    QVERIFY(!(editor->schedule() == before));

    // The Edit menu's actions with the usual keys, wherever the focus is in the window.
    QAction* undo = w.findChild<QAction*>(QStringLiteral("undoAction"));
    QAction* redo = w.findChild<QAction*>(QStringLiteral("redoAction"));
    QVERIFY(undo && redo);
    QCOMPARE(undo->shortcut(), QKeySequence(QKeySequence::Undo));
    QVERIFY(redo->shortcuts().contains(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z)));
    w.activateWindow();
    table(w)->setFocus();
    QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(editor->schedule(), before);
    QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    QVERIFY(!(editor->schedule() == before));
    QVERIFY(editor->hasUnsavedEdits());

    // Opening another model asks first; Cancel keeps the edits and the model.
    QString asked;
    w.setDiscardEditsPrompt([&](const QString& q) {
        asked = q;
        return QMessageBox::Cancel;
    });
    QVERIFY(!w.openModel(QStringLiteral("zoo:googlenet")));
    QVERIFY(asked.contains(QStringLiteral("not exported")));
    QVERIFY(w.windowTitle().contains(QStringLiteral("squeezenet")));
    QVERIFY(editor->hasUnsavedEdits());
    // Discard lets it go.
    w.setDiscardEditsPrompt([](const QString&) { return QMessageBox::Discard; });
    QVERIFY(w.openModel(QStringLiteral("zoo:googlenet")));
    QVERIFY(!editor->hasUnsavedEdits());
    // Without edits nothing is asked.
    asked.clear();
    w.setDiscardEditsPrompt([&](const QString& q) {
        asked = q;
        return QMessageBox::Cancel;
    });
    QVERIFY(w.openModel(QStringLiteral("zoo:squeezenet")));
    QVERIFY(asked.isEmpty());
}

void TestMainWindow::startPageOpensRecentAndBuiltIn()
{
    {
        opsched::MainWindow w;
        w.setInteractive(false);
        QVERIFY(w.openModel(QStringLiteral("zoo:squeezenet")));
    }
    opsched::MainWindow w;
    w.setInteractive(false);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    opsched::StartPage* start = w.startPage();
    QVERIFY(start->isVisible());
    QVERIFY(!table(w)->isVisible());
    // The built-in networks, each with what it is.
    QListWidget* networks = start->networkList();
    QVERIFY(networks->count() >= 5);
    QListWidgetItem* googlenet = nullptr;
    for (int i = 0; i < networks->count(); ++i)
        if (networks->item(i)->data(Qt::UserRole).toString() == QStringLiteral("zoo:googlenet"))
            googlenet = networks->item(i);
    QVERIFY(googlenet);
    QVERIFY(googlenet->text().size() > QStringLiteral("googlenet").size() + 5); // with its summary
    // The recent file from the last session, one activation away.
    QListWidget* recent = start->recentList();
    QCOMPARE(recent->count(), 1);
    QCOMPARE(recent->item(0)->data(Qt::UserRole).toString(), QStringLiteral("zoo:squeezenet"));
    emit recent->itemActivated(recent->item(0));
    QVERIFY(w.windowTitle().contains(QStringLiteral("squeezenet")));
    QVERIFY(!start->isVisible());
    QVERIFY(table(w)->isVisible());
    emit networks->itemActivated(googlenet);
    QVERIFY(w.windowTitle().contains(QStringLiteral("googlenet")));
    QCOMPARE(start->recentList()->count(), 2);
}

void TestMainWindow::displayNames_data()
{
    QTest::addColumn<QString>("ref");
    QTest::addColumn<QString>("graphName");
    QTest::addColumn<QString>("shown");
    QTest::newRow("zoo") << "zoo:inception_v3"
                         << "inception_v3"
                         << "inception_v3";
    QTest::newRow("model.onnx by its folder") << "/data/resnet50/model.onnx"
                                              << "model"
                                              << "resnet50";
    QTest::newRow("MODEL.ONNX too") << "/data/vit_b16/MODEL.onnx"
                                    << "torch_jit"
                                    << "vit_b16";
    QTest::newRow("a named file keeps its graph name") << "/data/x/resnet.onnx"
                                                       << "ResNet"
                                                       << "ResNet";
    QTest::newRow("a graph called model takes the file's name") << "/data/x/bert.onnx"
                                                                << "model"
                                                                << "bert";
    QTest::newRow("relative model.onnx") << "squeeze/model.onnx"
                                         << "model"
                                         << "squeeze";
}

void TestMainWindow::displayNames()
{
    QFETCH(QString, ref);
    QFETCH(QString, graphName);
    QFETCH(QString, shown);
    QCOMPARE(opsched::modelDisplayName(ref, graphName), shown);
}

void TestMainWindow::onnxModelNamedByItsFolder()
{
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("two_branch_net")));
    const QString path = dir.filePath(QStringLiteral("two_branch_net/model.onnx"));
    QVERIFY(QFile::copy(QStringLiteral(OPSCHED_TEST_DATA_DIR "/onnx/two_branch.onnx"), path));
    opsched::MainWindow w;
    w.setInteractive(false);
    QVERIFY2(w.openModel(path), qPrintable(w.lastError()));
    QVERIFY2(w.windowTitle().endsWith(QStringLiteral("two_branch_net")), qPrintable(w.windowTitle()));
}

void TestMainWindow::wheelScrollsPanelsNotTheirFields()
{
    opsched::MainWindow w;
    w.setInteractive(false);
    w.resize(1200, 600);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openModel(QStringLiteral("zoo:squeezenet")));
    auto* batch = w.schedulePanel()->findChild<QSpinBox*>(QStringLiteral("batchSpin"));
    auto* device = w.schedulePanel()->findChild<QComboBox*>(QStringLiteral("deviceCombo"));
    QVERIFY(batch && device);
    const int batchBefore = batch->value();
    const QString deviceBefore = device->currentText();
    auto wheel = [](QWidget* target) {
        const QPoint at(target->width() / 2, target->height() / 2);
        QWheelEvent event(
            at, target->mapToGlobal(at), {}, QPoint(0, 120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QCoreApplication::sendEvent(target, &event);
    };
    // Scrolling over the panel passes over the fields without changing them...
    w.schedulePanel()->setFocus();
    wheel(batch);
    wheel(device);
    QCOMPARE(batch->value(), batchBefore);
    QCOMPARE(device->currentText(), deviceBefore);
    // ... and a field that was clicked (has focus) takes the wheel.
    batch->setFocus();
    QVERIFY(batch->hasFocus());
    wheel(batch);
    QCOMPARE(batch->value(), batchBefore + 1);
}

void TestMainWindow::cleanupTestCase()
{
    QSettings settings;
    settings.clear();
    settings.sync();
    QFile::remove(settings.fileName());
}

void TestMainWindow::resultsTableShowsEveryColumn()
{
    // First start on a 1366x768 laptop: every column of the results table in view, no horizontal
    // scrolling, and room for several results.
    opsched::MainWindow w;
    w.setInteractive(false);
    w.resize(1366, 740);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTest::qWait(50); // the first-start dock sizes are set once the event loop runs
    QVERIFY(w.openModel(QStringLiteral("zoo:inception_v3")));
    QSignalSpy done(w.schedulePanel(), &opsched::SchedulePanel::finished);
    w.schedulePanel()->runScheduler(QStringLiteral("greedy"));
    QVERIFY(done.wait(30000));
    QCoreApplication::processEvents();
    // A mapping's long device list is elided rather than pushing Search s out of view.
    opsched::ScheduleRequest mapRequest;
    mapRequest.scheduler = "map:heft";
    mapRequest.device = "sim:xeon,sim:t4,sim:a100,sim:v100";
    w.schedulePanel()->addResult(opsched::computeMappingResult(opsched::zoo::build("inception_v3", 1), mapRequest));
    QCoreApplication::processEvents();
    auto* results = w.schedulePanel()->findChild<QTableView*>(QStringLiteral("resultsTable"));
    QVERIFY(results);
    QCOMPARE(results->model()->rowCount(), 2);
    const int columns = results->model()->columnCount();
    QCOMPARE(columns, 9);
    const int last = results->horizontalHeader()->logicalIndex(columns - 1);
    const int right = results->columnViewportPosition(last) + results->columnWidth(last);
    QVERIFY2(right <= results->viewport()->width(),
        qPrintable(
            QStringLiteral("columns end at %1, the table shows %2").arg(right).arg(results->viewport()->width())));
    // The table itself is not cut by the panel's scroll area on the right.
    const QRect shown = results->visibleRegion().boundingRect();
    QVERIFY2(shown.width() >= results->width() - 1,
        qPrintable(QStringLiteral("%1 of %2").arg(shown.width()).arg(results->width())));
    QVERIFY(results->minimumHeight() >= 6 * results->verticalHeader()->defaultSectionSize());
    // ... and in view without scrolling the panel: the header and several rows.
    const int rows
        = (shown.height() - results->horizontalHeader()->height()) / results->verticalHeader()->defaultSectionSize();
    QVERIFY2(rows >= 4, qPrintable(QStringLiteral("%1 rows in view").arg(rows)));
}

void TestMainWindow::kernelTableShowsEveryColumn()
{
    // At 1280x720 the Kernels table shows Max and Time % without scrolling: the name column takes
    // what the numbers leave and elides long names in the middle.
    opsched::MainWindow w;
    w.setInteractive(false);
    w.resize(1280, 720);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTest::qWait(50);
    QVERIFY(w.openModel(QStringLiteral("zoo:inception_v3")));
    QSignalSpy done(w.schedulePanel(), &opsched::SchedulePanel::finished);
    w.schedulePanel()->runScheduler(QStringLiteral("greedy"));
    QVERIFY(done.wait(30000));
    auto* tabs = w.findChild<QTabWidget*>(QStringLiteral("timelineAnalysis"));
    auto* kernels = w.findChild<QTableView*>(QStringLiteral("kernelTable"));
    QVERIFY(tabs && kernels);
    for (int i = 0; i < tabs->count(); ++i)
        if (tabs->widget(i)->isAncestorOf(kernels))
            tabs->setCurrentIndex(i);
    QCoreApplication::processEvents();
    QVERIFY(kernels->isVisible());
    QVERIFY(kernels->model()->rowCount() > 10);
    const int columns = kernels->model()->columnCount();
    const int last = kernels->horizontalHeader()->logicalIndex(columns - 1);
    QCOMPARE(kernels->model()->headerData(last, Qt::Horizontal).toString(), QStringLiteral("Time %"));
    const int right = kernels->columnViewportPosition(last) + kernels->columnWidth(last);
    QVERIFY2(right <= kernels->viewport()->width(),
        qPrintable(
            QStringLiteral("columns end at %1, the table shows %2").arg(right).arg(kernels->viewport()->width())));
    QVERIFY2(kernels->columnWidth(0) >= 60, qPrintable(QString::number(kernels->columnWidth(0))));

    // On a 1024x640 screen's first-start window the Streams table shows what it shows without
    // scrolling sideways (some columns give way).
    w.resize(opsched::MainWindow::firstStartSize(QSize(1024, 640)));
    tabs->setCurrentIndex(0);
    QCoreApplication::processEvents();
    auto* streams = w.findChild<QTableView*>(QStringLiteral("rangeTable"));
    QVERIFY(streams && streams->isVisible());
    int streamsRight = 0;
    for (int c = 0; c < streams->model()->columnCount(); ++c)
        if (!streams->isColumnHidden(c))
            streamsRight = std::max(streamsRight, streams->columnViewportPosition(c) + streams->columnWidth(c));
    QVERIFY2(streamsRight <= streams->viewport()->width(),
        qPrintable(QStringLiteral("columns end at %1, the table shows %2")
                       .arg(streamsRight)
                       .arg(streams->viewport()->width())));
    QVERIFY(
        !streams->isColumnHidden(0) && !streams->isColumnHidden(1) && !streams->isColumnHidden(4)); // stream, busy, ops
}

void TestMainWindow::diffShowsMostStreams()
{
    // At 1600x970 the Diff gave each run 2-3 rows: its timelines now show one row per stream and
    // take most of the height, so a run with many streams shows several at once.
    opsched::MainWindow w;
    w.setInteractive(false);
    w.resize(1600, 970);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTest::qWait(50);
    QVERIFY(w.openModel(QStringLiteral("zoo:inception_v3")));
    QSignalSpy done(w.schedulePanel(), &opsched::SchedulePanel::finished);
    for (const char* scheduler : { "greedy", "nimble" }) {
        w.schedulePanel()->runScheduler(QString::fromUtf8(scheduler));
        QVERIFY(done.wait(30000));
    }
    auto* dock = w.findChild<QDockWidget*>(QStringLiteral("diffDock"));
    auto* diff = w.findChild<opsched::RunComparePanel*>(QStringLiteral("runCompare"));
    QVERIFY(dock && diff);
    dock->raise();
    QCoreApplication::processEvents();
    QVERIFY(diff->runCount() >= 2);
    opsched::TimelineView* b = diff->viewB();
    QVERIFY(b->isVisible());
    std::set<int> rows;
    for (int y = 0; y < b->height(); y += 3)
        if (const int r = b->rowAt(y);
            r >= 0 && b->rowTop(static_cast<std::size_t>(r)) + b->rowHeight(static_cast<std::size_t>(r)) <= b->height())
            rows.insert(r);
    QVERIFY2(
        rows.size() >= 5, qPrintable(QStringLiteral("%1 rows in view, %2 px high").arg(rows.size()).arg(b->height())));
}

void TestMainWindow::timelineSaysWhichRunItShows()
{
    // The Timeline's title and the status bar name the run shown, and follow when another is shown.
    opsched::MainWindow w;
    w.setInteractive(false);
    QVERIFY(w.openModel(QStringLiteral("zoo:squeezenet")));
    auto* timelineDock = w.findChild<QDockWidget*>(QStringLiteral("timelineDock"));
    auto* runStatus = w.findChild<QLabel*>(QStringLiteral("runStatus"));
    QVERIFY(timelineDock && runStatus);
    QCOMPARE(timelineDock->windowTitle(), QStringLiteral("Timeline"));
    QVERIFY(runStatus->text().isEmpty());
    QSignalSpy done(w.schedulePanel(), &opsched::SchedulePanel::finished);
    for (const char* scheduler : { "greedy", "nimble" }) {
        w.schedulePanel()->runScheduler(QString::fromUtf8(scheduler));
        QVERIFY(done.wait(30000));
        const QString expected = QString::fromUtf8("squeezenet — %1 · sim:").arg(QString::fromUtf8(scheduler));
        QVERIFY2(timelineDock->windowTitle().startsWith(QStringLiteral("Timeline — ") + expected),
            qPrintable(timelineDock->windowTitle()));
        QVERIFY2(runStatus->text().contains(expected), qPrintable(runStatus->text()));
        QVERIFY(runStatus->text().contains(QStringLiteral("batch 1")));
    }
}

void TestMainWindow::helpListsEveryShortcut()
{
    // Help > Keyboard Shortcuts lists every shortcut of every menu and submenu (second shortcuts such
    // as Ctrl+Y too, read from the menus) and the timeline's keys; each menu's mnemonics differ.
    opsched::MainWindow w;
    w.setInteractive(false);
    const QString help = w.shortcutsHelp();
    int withShortcut = 0;
    std::function<void(QMenu*)> check = [&](QMenu* menu) {
        QSet<QChar> mnemonics;
        for (QAction* a : menu->actions()) {
            const int amp = a->text().indexOf(QLatin1Char('&'));
            if (amp >= 0 && amp + 1 < a->text().size()) {
                const QChar m = a->text().at(amp + 1).toLower();
                QVERIFY2(!mnemonics.contains(m), qPrintable(menu->title() + QStringLiteral(": ") + a->text()));
                mnemonics.insert(m);
            }
            if (a->menu()) {
                check(a->menu());
                continue;
            }
            for (const QKeySequence& k : a->shortcuts()) {
                ++withShortcut;
                QVERIFY2(help.contains(k.toString(QKeySequence::NativeText).toHtmlEscaped()), qPrintable(a->text()));
            }
        }
    };
    for (QAction* menu : w.menuBar()->actions())
        if (menu->menu())
            check(menu->menu());
    QVERIFY(withShortcut >= 8);
    for (const char* key : { "Ctrl+Shift+E", "Ctrl+Y", "Esc" })
        QVERIFY2(help.contains(QLatin1String(key)), key);
    QVERIFY(help.contains(QStringLiteral("Zoom to the selected range"), Qt::CaseInsensitive));
}

void TestMainWindow::firstStartFillsMostOfTheScreen_data()
{
    QTest::addColumn<QSize>("screen");
    QTest::addColumn<QSize>("window");
    QTest::newRow("1600x1000 (was opened at 1100x700)") << QSize(1600, 1000) << QSize(1440, 900);
    QTest::newRow("laptop 1366x768") << QSize(1366, 740) << QSize(1229, 666);
    QTest::newRow("small 1024x640") << QSize(1024, 640) << QSize(921, 576);
    QTest::newRow("4K: capped") << QSize(3840, 2100) << QSize(1900, 1200);
}

void TestMainWindow::firstStartFillsMostOfTheScreen()
{
    QFETCH(QSize, screen);
    QFETCH(QSize, window);
    QCOMPARE(opsched::MainWindow::firstStartSize(screen), window);
}

void TestMainWindow::databaseComesBackOnTheNextStart()
{
    // The Runs panel's database is in Recent Files and reopens with the next window.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("results.db"));
    opsched::store::Store::open(path.toStdString(), opsched::store::OpenMode::ReadWrite);
    {
        opsched::MainWindow first;
        first.setInteractive(false);
        first.openDatabase(path);
        // Once read (a file that cannot be read is not remembered).
        QTRY_VERIFY_WITH_TIMEOUT(first.recentFiles().contains(QFileInfo(path).absoluteFilePath()), 20000);
    }
    opsched::MainWindow next;
    next.setInteractive(false);
    QTRY_COMPARE_WITH_TIMEOUT(
        QFileInfo(next.runsPanel()->path()).absoluteFilePath(), QFileInfo(path).absoluteFilePath(), 20000);
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
