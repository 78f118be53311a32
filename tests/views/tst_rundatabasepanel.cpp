// RunDatabasePanel: a results database listed and loaded off the GUI thread, new runs appended
// while a batch writes, selected runs handed on with their timelines, bad files reported.
#include "engine/results/stored_run.h"
#include "runs/run_database_panel.h"
#include "runs/run_list_model.h"
#include "schedules/schedule_results_model.h"

#include "model/model_ref.h"
#include "store/store.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace opsched;

class TestRunDatabasePanel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void listsTheRuns();
    void selectedRunsAreLoadedWithTheirTimelines();
    void refreshAppendsRunsABatchAdds();
    void reportsAFileThatIsNotADatabase();
    void reportsAMissingFile();

private:
    store::RunRecord simulatedRun(const std::string& scheduler) const;
    void writeRun(const QString& path, const std::string& scheduler) const;

    QTemporaryDir dir_;
    std::shared_ptr<const Graph> graph_;
};

void TestRunDatabasePanel::initTestCase()
{
    QVERIFY(dir_.isValid());
    graph_ = std::make_shared<const Graph>(loadModel("zoo:squeezenet"));
}

store::RunRecord TestRunDatabasePanel::simulatedRun(const std::string& scheduler) const
{
    ScheduleRequest request;
    request.scheduler = scheduler;
    request.device = "sim:h100";
    return recordFromResult(*graph_, "zoo:squeezenet", *computeScheduleResult(*graph_, request));
}

void TestRunDatabasePanel::writeRun(const QString& path, const std::string& scheduler) const
{
    store::Store db = store::Store::open(path.toStdString(), store::OpenMode::ReadWrite);
    db.writeRun(simulatedRun(scheduler));
}

void TestRunDatabasePanel::listsTheRuns()
{
    const QString path = dir_.filePath(QStringLiteral("list.db"));
    writeRun(path, "sequential");
    writeRun(path, "ios");
    RunDatabasePanel panel;
    QAbstractItemModelTester tester(panel.runs(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy listed(&panel, &RunDatabasePanel::listed);
    panel.openDatabase(path);
    QVERIFY(panel.isBusy()); // the read runs on a worker
    QVERIFY(listed.wait(10000));
    QCOMPARE(listed.at(0).at(0).toBool(), true);
    QCOMPARE(panel.runs()->rowCount(), 2);
    QCOMPARE(panel.runs()->index(0, RunListModel::SchedulerColumn).data().toString(), QStringLiteral("sequential"));
    QCOMPARE(panel.runs()->index(1, RunListModel::SchedulerColumn).data().toString(), QStringLiteral("ios"));
    QCOMPARE(panel.runs()->index(1, RunListModel::ModelColumn).data().toString(), QStringLiteral("squeezenet"));
    QVERIFY(panel.runs()->run(1)->kernelCount > 0);
    QCOMPARE(panel.path(), path);
}

void TestRunDatabasePanel::selectedRunsAreLoadedWithTheirTimelines()
{
    const QString path = dir_.filePath(QStringLiteral("select.db"));
    writeRun(path, "sequential");
    writeRun(path, "ios");
    RunDatabasePanel panel;
    QAbstractItemModelTester tester(panel.selectedRuns(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy listed(&panel, &RunDatabasePanel::listed);
    panel.openDatabase(path);
    QVERIFY(listed.wait(10000));

    QSignalSpy shown(&panel, &RunDatabasePanel::runShown);
    panel.selectRows({ 0, 1 });
    QVERIFY(shown.wait(10000));
    QCOMPARE(panel.selectedRuns()->rowCount(), 2);
    // The comparison computes speedups from the stored latencies.
    const auto seq = panel.selectedRuns()->result(0);
    const auto ios = panel.selectedRuns()->result(1);
    QCOMPARE(QString::fromStdString(ios->request.scheduler), QStringLiteral("ios"));
    QVERIFY(ios->latency > 0 && ios->latency < seq->latency);
    QVERIFY(panel.selectedRuns()->index(1, ScheduleResultsModel::SpeedupColumn).data().toString().endsWith('x'));
    const auto current = shown.last().at(0).value<std::shared_ptr<const ScheduleResult>>();
    QVERIFY(current && current->stored && current->timeline);
    QVERIFY(current->timeline->rows.rowCount() >= 2);
    QCOMPARE(current->timeline->rowKind(1), TimelineRowKind::Kernels);

    // Selecting again comes from the cache: no worker, answered at once.
    shown.clear();
    panel.selectRows({ 1 });
    QVERIFY(!panel.isBusy());
    QVERIFY(!shown.isEmpty());
    QCOMPARE(panel.selectedRuns()->rowCount(), 1);
}

void TestRunDatabasePanel::refreshAppendsRunsABatchAdds()
{
    const QString path = dir_.filePath(QStringLiteral("grow.db"));
    writeRun(path, "sequential");
    RunDatabasePanel panel;
    QSignalSpy listed(&panel, &RunDatabasePanel::listed);
    panel.openDatabase(path);
    QVERIFY(listed.wait(10000));
    panel.selectRows({ 0 });

    writeRun(path, "greedy");
    writeRun(path, "ios");
    QSignalSpy inserted(panel.runs(), &QAbstractItemModel::rowsInserted);
    QSignalSpy reset(panel.runs(), &QAbstractItemModel::modelReset);
    listed.clear();
    panel.refresh();
    panel.refresh(); // coalesces with the read in progress
    QVERIFY(listed.wait(10000));
    QTRY_VERIFY(!panel.isBusy());
    QCOMPARE(panel.runs()->rowCount(), 3);
    QCOMPARE(reset.size(), 0);
    QVERIFY(!inserted.isEmpty());
    QVERIFY(panel.table()->selectionModel()->isRowSelected(0, {})); // the selection stayed
}

void TestRunDatabasePanel::reportsAFileThatIsNotADatabase()
{
    const QString path = dir_.filePath(QStringLiteral("notes.db"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("these are my notes, not a database\n");
    f.close();
    RunDatabasePanel panel;
    QSignalSpy listed(&panel, &RunDatabasePanel::listed);
    panel.openDatabase(path);
    QVERIFY(listed.wait(10000));
    QCOMPARE(listed.at(0).at(0).toBool(), false);
    QVERIFY(!listed.at(0).at(1).toString().isEmpty());
    QCOMPARE(panel.runs()->rowCount(), 0);
    // The file is left as it was.
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), QByteArray("these are my notes, not a database\n"));
}

void TestRunDatabasePanel::reportsAMissingFile()
{
    RunDatabasePanel panel;
    QSignalSpy listed(&panel, &RunDatabasePanel::listed);
    panel.openDatabase(dir_.filePath(QStringLiteral("nowhere.db")));
    QVERIFY(listed.wait(10000));
    QCOMPARE(listed.at(0).at(0).toBool(), false);
    QVERIFY(!QFile::exists(dir_.filePath(QStringLiteral("nowhere.db")))); // never created by reading
}

QTEST_MAIN(TestRunDatabasePanel)
#include "tst_rundatabasepanel.moc"
