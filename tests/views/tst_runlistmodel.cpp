// RunListModel: the runs of a results database as a table; refreshing with more runs appends.
#include "runs/run_list_model.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using opsched::RunListModel;
using opsched::store::RunId;
using opsched::store::RunStatus;
using opsched::store::RunSummary;

class TestRunListModel : public QObject {
    Q_OBJECT

private slots:
    void passesTheModelTester();
    void showsTheRunFields();
    void failedRunsShowTheirError();
    void moreRunsAreAppended();
    void otherRunsReset();
    void sortsNumbersAsNumbers();
};

static RunSummary summary(std::int64_t id, const std::string& scheduler, double medianMs, std::int64_t batch = 1)
{
    RunSummary r;
    r.id = RunId(id);
    r.modelName = "squeezenet";
    r.modelRef = "zoo:squeezenet";
    r.scheduler = scheduler;
    r.deviceKey = "sim:h100";
    r.deviceName = "H100 (simulated)";
    r.batch = batch;
    opsched::store::LatencyStats l;
    l.repeats = 3;
    l.medianNs = l.p10Ns = l.p90Ns = l.meanNs = l.minNs = l.maxNs = medianMs * 1e6;
    r.latency = l;
    r.averageActiveWarps = 512;
    r.kernelCount = 60;
    return r;
}

void TestRunListModel::passesTheModelTester()
{
    RunListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRuns({ summary(1, "sequential", 1.0), summary(2, "ios", 0.7) });
    model.setRuns({ summary(1, "sequential", 1.0), summary(2, "ios", 0.7), summary(3, "greedy", 0.9) });
    model.setRuns({ summary(7, "opara", 0.8) });
    model.clear();
    QCOMPARE(model.rowCount(), 0);
}

void TestRunListModel::showsTheRunFields()
{
    RunListModel model;
    model.setRuns({ summary(4, "ios", 0.7254, 8) });
    QCOMPARE(model.columnCount(), int(RunListModel::ColumnCount));
    auto text = [&](int column) { return model.index(0, column).data().toString(); };
    QCOMPARE(text(RunListModel::RunColumn), QStringLiteral("4"));
    QCOMPARE(text(RunListModel::ModelColumn), QStringLiteral("squeezenet"));
    QCOMPARE(text(RunListModel::SchedulerColumn), QStringLiteral("ios"));
    QCOMPARE(text(RunListModel::BatchColumn), QStringLiteral("8"));
    QCOMPARE(text(RunListModel::DeviceColumn), QStringLiteral("sim:h100"));
    QCOMPARE(text(RunListModel::LatencyColumn), QStringLiteral("0.725"));
    QCOMPARE(text(RunListModel::WarpsColumn), QStringLiteral("512"));
    QCOMPARE(text(RunListModel::KernelsColumn), QStringLiteral("60"));
    QCOMPARE(text(RunListModel::StatusColumn), QStringLiteral("ok"));
    QCOMPARE(model.rowOf(RunId(4)), 0);
    QCOMPARE(model.rowOf(RunId(5)), -1);
    QVERIFY(model.headerData(RunListModel::LatencyColumn, Qt::Horizontal).toString().contains(QStringLiteral("ms")));
}

void TestRunListModel::failedRunsShowTheirError()
{
    RunSummary failed = summary(2, "", 0);
    failed.latency.reset();
    failed.averageActiveWarps.reset();
    failed.status = RunStatus::Failed;
    failed.error = "unknown device cuda:7";
    RunListModel model;
    model.setRuns({ failed });
    QCOMPARE(model.index(0, RunListModel::SchedulerColumn).data().toString(), QStringLiteral("-"));
    QCOMPARE(model.index(0, RunListModel::LatencyColumn).data().toString(), QStringLiteral("-"));
    QCOMPARE(model.index(0, RunListModel::StatusColumn).data().toString(), QStringLiteral("failed"));
    QCOMPARE(model.index(0, RunListModel::StatusColumn).data(Qt::ToolTipRole).toString(),
        QStringLiteral("unknown device cuda:7"));
}

void TestRunListModel::moreRunsAreAppended()
{
    RunListModel model;
    model.setRuns({ summary(1, "sequential", 1.0) });
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    model.setRuns({ summary(1, "sequential", 1.0), summary(2, "ios", 0.7), summary(3, "greedy", 0.9) });
    QCOMPARE(reset.size(), 0);
    QCOMPARE(inserted.size(), 1);
    QCOMPARE(inserted.at(0).at(1).toInt(), 1);
    QCOMPARE(inserted.at(0).at(2).toInt(), 2);
    model.setRuns({ summary(1, "sequential", 1.0), summary(2, "ios", 0.7), summary(3, "greedy", 0.9) });
    QCOMPARE(inserted.size(), 1); // nothing new: no signal
    QCOMPARE(reset.size(), 0);
}

void TestRunListModel::otherRunsReset()
{
    RunListModel model;
    model.setRuns({ summary(1, "sequential", 1.0), summary(2, "ios", 0.7) });
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    model.setRuns({ summary(5, "sequential", 1.0) });
    QCOMPARE(reset.size(), 1);
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.run(0)->id, RunId(5));
    QVERIFY(!model.run(1));
}

void TestRunListModel::sortsNumbersAsNumbers()
{
    RunListModel model;
    model.setRuns({ summary(9, "a", 10.0), summary(10, "b", 9.0) });
    const auto sort = RunListModel::SortRole;
    QVERIFY(model.index(0, RunListModel::RunColumn).data(sort).toLongLong()
        < model.index(1, RunListModel::RunColumn).data(sort).toLongLong());
    QVERIFY(model.index(0, RunListModel::LatencyColumn).data(sort).toDouble()
        > model.index(1, RunListModel::LatencyColumn).data(sort).toDouble());
}

QTEST_GUILESS_MAIN(TestRunListModel)
#include "tst_runlistmodel.moc"
