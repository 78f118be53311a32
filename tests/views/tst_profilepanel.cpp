// ProfilePanel in the main window: a batch run by the real opsched-cli lands in the Runs panel as
// it goes; a crashing child leaves the window working and says what happened; results databases
// open from File > Open.
#include "dag/dag_view.h"
#include "fake_cli.h"
#include "profile/profile_panel.h"
#include "runs/run_database_panel.h"
#include "runs/run_list_model.h"
#include "schedules/schedule_results_model.h"
#include "timeline/timeline_view.h"
#include "window/main_window.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using opsched::MainWindow;
using opsched::ProfilePanel;

class TestProfilePanel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void init();
    void followsTheOpenModel();
    void refusesAnIncompleteRequest();
    void takesEveryDeviceTheCliTakes();
    void profilesWithTheRealCliAndListsRunsAsTheyLand();
    void windowSurvivesACrashingProfiler();
    void missingCliIsAnActionableMessage();
    void opensADatabaseFromFileOpen();
    void reportsABadDatabase();
    void defaultDatabaseHasOneOpschedFolder();
    void userCancelIsNotAnError();
    void logFollowsNewLines();
    void profileShortcutShowsProgress();

private:
    QString fakeCli(const QByteArray& body) { return opsched::test::writeFakeCli(dir_, body); }
    QTemporaryDir dir_;
};

void TestProfilePanel::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("opsched-tests"));
    // One settings file per process: tests of several checkouts may run at once on one machine.
    QCoreApplication::setApplicationName(QStringLiteral("tst_profilepanel-%1").arg(QCoreApplication::applicationPid()));
}

void TestProfilePanel::init()
{
    QSettings().clear();
}

void TestProfilePanel::followsTheOpenModel()
{
    MainWindow w;
    w.setInteractive(false);
    QVERIFY(w.openModel(QStringLiteral("zoo:squeezenet")));
    const auto request = w.profilePanel()->request();
    QCOMPARE(request.models, std::vector<std::string> { "zoo:squeezenet" });
    QCOMPARE(request.schedulers, std::string("sequential,greedy,ios"));
    QVERIFY(request.device.starts_with("sim:") || request.device.starts_with("cuda:"));
    QCOMPARE(request.warps, opsched::engine::ProfileRequest {}.warps); // the engine's default, as the CLI's

    // The run parameters reach the child's command line.
    auto* panel = w.profilePanel();
    panel->findChild<QSpinBox*>(QStringLiteral("profileRepeat"))->setValue(25);
    panel->findChild<QSpinBox*>(QStringLiteral("profileR"))->setValue(2);
    panel->findChild<QSpinBox*>(QStringLiteral("profileS"))->setValue(5);
    panel->findChild<QCheckBox*>(QStringLiteral("profileCudaGraph"))->setChecked(true);
    const QString args = opsched::profileArguments(panel->request()).join(QLatin1Char(' '));
    QVERIFY2(args.contains(QStringLiteral("--repeat 25 --r 2 --s 5")), qPrintable(args));
    QVERIFY2(args.contains(QStringLiteral("--cuda-graph")), qPrintable(args));
}

void TestProfilePanel::refusesAnIncompleteRequest()
{
    ProfilePanel panel;
    panel.process()->setCliPath(fakeCli("exit 0"));
    QSignalSpy done(&panel, &ProfilePanel::finished);
    panel.start(); // no model
    QCOMPARE(done.size(), 1);
    QCOMPARE(done.at(0).at(0).toBool(), false);
    QVERIFY(done.at(0).at(1).toString().contains(QStringLiteral("model")));
    QVERIFY(!panel.isRunning());
}

void TestProfilePanel::takesEveryDeviceTheCliTakes()
{
    // The device box is editable: a calibrated device file (sim:FILE.json) is profiled like a preset;
    // a name the CLI would refuse is refused before any child starts, in the CLI's words.
    ProfilePanel panel;
    panel.process()->setCliPath(fakeCli("exit 0"));
    panel.setModelRef(QStringLiteral("zoo:squeezenet"));
    panel.setDatabase(dir_.filePath(QStringLiteral("devices.db")));
    auto* device = panel.findChild<QComboBox*>(QStringLiteral("profileDevice"));
    QVERIFY(device && device->isEditable());
    QSignalSpy done(&panel, &ProfilePanel::finished);
    device->setEditText(QStringLiteral("sim:nope"));
    panel.start();
    QCOMPARE(done.size(), 1);
    QVERIFY2(done.at(0).at(1).toString().contains(QStringLiteral("nope")), qPrintable(done.at(0).at(1).toString()));
    QVERIFY(!panel.isRunning());
    const QString file = QStringLiteral(OPSCHED_TEST_DATA_DIR "/sim_devices/h100_fitted.json");
    device->setEditText(QStringLiteral("sim:") + file);
    QCOMPARE(panel.request().device, "sim:" + file.toStdString());
    panel.start();
    QVERIFY(panel.isRunning());
    QVERIFY(done.wait(10000));
    QVERIFY2(done.at(1).at(0).toBool(), qPrintable(done.at(1).at(1).toString()));
}

void TestProfilePanel::profilesWithTheRealCliAndListsRunsAsTheyLand()
{
    MainWindow w;
    w.setInteractive(false);
    QVERIFY(w.openModel(QStringLiteral("zoo:squeezenet")));
    ProfilePanel* panel = w.profilePanel();
    panel->process()->setCliPath(QStringLiteral(OPSCHED_CLI_PATH));
    const QString db = dir_.filePath(QStringLiteral("real.db"));
    panel->setDatabase(db);
    panel->findChild<QLineEdit*>(QStringLiteral("profileBatches"))->setText(QStringLiteral("1,2"));

    QSignalSpy jobs(panel->process(), &opsched::ProfileProcess::jobFinished);
    QSignalSpy done(panel, &ProfilePanel::finished);
    QSignalSpy listed(w.runsPanel(), &opsched::RunDatabasePanel::listed);
    panel->start();
    QVERIFY(panel->isRunning());
    QVERIFY(!panel->findChild<QPushButton*>(QStringLiteral("profileButton"))->isEnabled());
    QVERIFY(done.wait(120000));
    QVERIFY2(done.at(0).at(0).toBool(), qPrintable(done.at(0).at(1).toString()));
    QCOMPARE(jobs.size(), 6); // 3 schedulers x 2 batch sizes, one progress line each
    QCOMPARE(jobs.last().at(1).toInt(), 6);
    QVERIFY(panel->findChild<QPushButton*>(QStringLiteral("profileButton"))->isEnabled());

    // The Runs panel follows the database the batch writes, reread as runs landed.
    QCOMPARE(w.runsPanel()->path(), db);
    QTRY_COMPARE_WITH_TIMEOUT(w.runsPanel()->runs()->rowCount(), 6, 20000);
    QTRY_VERIFY_WITH_TIMEOUT(!w.runsPanel()->isBusy(), 20000);
    QVERIFY(listed.size() >= 2); // read more than once while the batch ran

    // Selecting two runs shows one in the timeline, with kernel rows, and both in the comparison.
    QSignalSpy shown(w.runsPanel(), &opsched::RunDatabasePanel::runShown);
    w.runsPanel()->selectRows({ 0, 2 });
    QVERIFY(shown.wait(20000) || !shown.isEmpty());
    QTRY_VERIFY(!w.runsPanel()->isBusy());
    QCOMPARE(w.runsPanel()->selectedRuns()->rowCount(), 2);
    QVERIFY(w.shownResult() && w.shownResult()->stored);
    const opsched::TimelineData* timeline = w.timelineView()->data();
    QVERIFY(timeline);
    QCOMPARE(timeline->rowKind(1), opsched::TimelineRowKind::Kernels);
    QVERIFY(!timeline->kernels.empty());
    // The run is of the open model: its stored schedule colours the DAG by stage.
    QCOMPARE(QString::fromStdString(w.shownResult()->request.scheduler), QStringLiteral("ios"));
    QVERIFY(w.shownResult()->output.schedule);
    QVERIFY(w.dagView()->hasSchedule());
}

void TestProfilePanel::windowSurvivesACrashingProfiler()
{
    MainWindow w;
    w.setInteractive(false);
    QVERIFY(w.openModel(QStringLiteral("zoo:squeezenet")));
    ProfilePanel* panel = w.profilePanel();
    panel->setDatabase(dir_.filePath(QStringLiteral("crash.db")));
    panel->process()->setCliPath(fakeCli("echo '[1/3] squeezenet sequential batch 1: 1.000 ms (run 1, 0.01 s)'\n"
                                         "echo 'cuptiActivityFlushAll: driver error' >&2\n"
                                         "kill -SEGV $$"));
    QSignalSpy done(panel, &ProfilePanel::finished);
    panel->start();
    QVERIFY(done.wait(20000));
    QCOMPARE(done.at(0).at(0).toBool(), false);
    QVERIFY2(w.lastError().contains(QStringLiteral("crashed")), qPrintable(w.lastError()));
    QVERIFY2(w.lastError().contains(QStringLiteral("cuptiActivityFlushAll: driver error")), qPrintable(w.lastError()));
    QVERIFY(!panel->isRunning());

    // The window carries on: the panel can start again and the rest of the window works.
    QVERIFY(panel->findChild<QPushButton*>(QStringLiteral("profileButton"))->isEnabled());
    QVERIFY(w.openModel(QStringLiteral("zoo:googlenet")));
    QCOMPARE(w.profilePanel()->request().models, std::vector<std::string> { "zoo:googlenet" });
}

void TestProfilePanel::missingCliIsAnActionableMessage()
{
    MainWindow w;
    w.setInteractive(false);
    QVERIFY(w.openModel(QStringLiteral("zoo:squeezenet")));
    ProfilePanel* panel = w.profilePanel();
    panel->setDatabase(dir_.filePath(QStringLiteral("none.db")));
    panel->process()->setCliPath(dir_.filePath(QStringLiteral("not-there")));
    QSignalSpy done(panel, &ProfilePanel::finished);
    panel->start();
    QCOMPARE(done.size(), 1);
    QVERIFY2(w.lastError().contains(QStringLiteral("OPSCHED_CLI")), qPrintable(w.lastError()));
}

void TestProfilePanel::opensADatabaseFromFileOpen()
{
    // A database written by the real CLI, opened the way File > Open and drops do.
    const QString db = dir_.filePath(QStringLiteral("opened.db"));
    QProcess cli;
    cli.start(QStringLiteral(OPSCHED_CLI_PATH),
        { QStringLiteral("profile"), QStringLiteral("zoo:squeezenet"), QStringLiteral("--schedulers"),
            QStringLiteral("sequential,ios"), QStringLiteral("--device"), QStringLiteral("sim:v100"),
            QStringLiteral("--db"), db, QStringLiteral("--repeat"), QStringLiteral("2") });
    QVERIFY(cli.waitForFinished(60000));
    QCOMPARE(cli.exitCode(), 0);

    MainWindow w;
    w.setInteractive(false);
    QVERIFY(MainWindow::isDatabaseFile(db));
    QVERIFY(!MainWindow::isDatabaseFile(QStringLiteral("model.onnx")));
    QSignalSpy listed(w.runsPanel(), &opsched::RunDatabasePanel::listed);
    QVERIFY(w.openFile(db));
    QVERIFY(listed.wait(20000));
    QCOMPARE(listed.at(0).at(0).toBool(), true);
    QCOMPARE(w.runsPanel()->runs()->rowCount(), 2);
    QCOMPARE(w.recentFiles().value(0), QFileInfo(db).absoluteFilePath());
    QCOMPARE(w.profilePanel()->database(), db); // profiling next adds to it
    // No model is open: a stored run still shows, with op names from the run.
    QSignalSpy shown(w.runsPanel(), &opsched::RunDatabasePanel::runShown);
    w.runsPanel()->selectRows({ 1 });
    QVERIFY(shown.wait(20000));
    QVERIFY(w.timelineView()->data());
    QVERIFY(!w.timelineView()->data()->opLabels.empty());

    // A file that cannot be read then changes nothing: the Runs panel keeps the good database and
    // its runs, Recent Files and the next start keep it too.
    const QString bad = dir_.filePath(QStringLiteral("random.db"));
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QByteArray(4096, '\x5a'));
    f.close();
    listed.clear();
    w.openFile(bad);
    QVERIFY(listed.wait(20000));
    QCOMPARE(listed.at(0).at(0).toBool(), false);
    QCOMPARE(w.runsPanel()->path(), db);
    QCOMPARE(w.runsPanel()->runs()->rowCount(), 2);
    QVERIFY(!w.recentFiles().contains(QFileInfo(bad).absoluteFilePath()));
    QCOMPARE(w.recentFiles().value(0), QFileInfo(db).absoluteFilePath());
    MainWindow next;
    next.setInteractive(false);
    QTRY_COMPARE_WITH_TIMEOUT(next.runsPanel()->path(), db, 20000);
    // And a refresh still reads the good one.
    listed.clear();
    w.runsPanel()->refresh();
    QVERIFY(listed.wait(20000));
    QCOMPARE(listed.at(0).at(0).toBool(), true);
    QCOMPARE(w.runsPanel()->runs()->rowCount(), 2);
}

void TestProfilePanel::reportsABadDatabase()
{
    const QString path = dir_.filePath(QStringLiteral("bad.sqlite"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("SQLite format 3\0garbage", 23);
    f.close();
    MainWindow w;
    w.setInteractive(false);
    const QString before = w.profilePanel()->database();
    QSignalSpy listed(w.runsPanel(), &opsched::RunDatabasePanel::listed);
    w.openFile(path);
    QVERIFY(listed.wait(20000));
    QCOMPARE(listed.at(0).at(0).toBool(), false);
    QVERIFY(!w.lastError().isEmpty());
    // A database that cannot be read does not become where profiling writes.
    QCOMPARE(w.profilePanel()->database(), before);
    w.openFile(dir_.filePath(QStringLiteral("missing.db")));
    QVERIFY2(w.lastError().contains(QStringLiteral("does not exist")), qPrintable(w.lastError()));
}

void TestProfilePanel::defaultDatabaseHasOneOpschedFolder()
{
    const QString path = ProfilePanel::defaultDatabase();
    QVERIFY2(path.endsWith(QStringLiteral("/opsched/results.db")), qPrintable(path));
    QVERIFY2(!path.contains(QStringLiteral("opsched/opsched")), qPrintable(path));
    QVERIFY2(!path.contains(QStringLiteral("tst_profilepanel/")), qPrintable(path)); // not the application's folder
    ProfilePanel panel;
    QCOMPARE(panel.database(), path);
}

void TestProfilePanel::userCancelIsNotAnError()
{
    MainWindow w;
    w.setInteractive(false);
    QVERIFY(w.openModel(QStringLiteral("zoo:squeezenet")));
    ProfilePanel* panel = w.profilePanel();
    panel->setDatabase(dir_.filePath(QStringLiteral("cancel.db")));
    // A child that reports its plan, then waits; SIGTERM ends it as the real CLI would.
    panel->process()->setCliPath(
        fakeCli("trap 'exit 130' TERM\necho 'profiling 3 jobs'\nwhile true; do sleep 0.1; done"));
    QSignalSpy done(panel, &ProfilePanel::finished);
    panel->start();
    QVERIFY(panel->isRunning());
    QTest::qWait(200);
    panel->cancel();
    QVERIFY(done.wait(20000));
    QCOMPARE(done.at(0).at(0).toBool(), false);
    QVERIFY(panel->process()->wasCancelled());
    // Not reported as an error (no dialog when interactive). The fake child wrote no database, which
    // the Runs panel may report on its own.
    QVERIFY2(!w.lastError().contains(QStringLiteral("Cancelled")), qPrintable(w.lastError()));
    QVERIFY(panel->findChild<QLabel*>(QStringLiteral("profileStatus"))->text().startsWith(QStringLiteral("Cancelled")));
}

void TestProfilePanel::logFollowsNewLines()
{
    MainWindow w;
    w.setInteractive(false);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openModel(QStringLiteral("zoo:squeezenet")));
    ProfilePanel* panel = w.profilePanel();
    panel->setDatabase(dir_.filePath(QStringLiteral("log.db")));
    panel->process()->setCliPath(fakeCli("i=0\nwhile [ $i -lt 200 ]; do echo \"line $i\"; i=$((i+1)); done"));
    QSignalSpy done(panel, &ProfilePanel::finished);
    panel->start();
    QVERIFY(done.wait(20000));
    auto* log = panel->findChild<QPlainTextEdit*>(QStringLiteral("profileLog"));
    QVERIFY(log->verticalScrollBar()->maximum() > 0);
    QCOMPARE(log->verticalScrollBar()->value(), log->verticalScrollBar()->maximum());
    QVERIFY(log->toPlainText().contains(QStringLiteral("line 199")));
}

void TestProfilePanel::cleanupTestCase()
{
    QSettings settings;
    settings.clear();
    settings.sync();
    QFile::remove(settings.fileName());
}

void TestProfilePanel::profileShortcutShowsProgress()
{
    // A short window: the Profile panel scrolls, its progress and log below the fields.
    MainWindow w;
    w.setInteractive(false);
    w.resize(1200, 600);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openModel(QStringLiteral("zoo:squeezenet")));
    ProfilePanel* panel = w.profilePanel();
    panel->setDatabase(dir_.filePath(QStringLiteral("shortcut.db")));
    panel->process()->setCliPath(
        fakeCli("trap 'exit 130' TERM\necho 'profiling 1 job'\nwhile true; do sleep 0.1; done"));
    auto* progress = panel->findChild<QProgressBar*>();
    QVERIFY(progress);
    // Ctrl+Shift+P, as the Run menu has it.
    QAction* profile = nullptr;
    for (QAction* a : w.findChildren<QAction*>())
        if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P))
            profile = a;
    QVERIFY(profile);
    QSignalSpy done(panel, &ProfilePanel::finished);
    profile->trigger();
    QVERIFY(panel->isRunning());
    QCoreApplication::processEvents();
    // The progress bar is scrolled into view, not left below the fields.
    QTRY_VERIFY(!progress->visibleRegion().isEmpty());
    panel->cancel();
    QVERIFY(done.wait(20000));
}

QTEST_MAIN(TestProfilePanel)
#include "tst_profilepanel.moc"
