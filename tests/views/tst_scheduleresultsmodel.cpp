// ScheduleResultsModel under QAbstractItemModelTester, fed with real scheduler runs.
#include "schedules/schedule_results_model.h"

#include "model/model_ref.h"

#include <QAbstractItemModelTester>
#include <QTest>

using namespace opsched;

class TestScheduleResultsModel : public QObject {
    Q_OBJECT

private slots:
    void rowsAndSpeedups()
    {
        const Graph g = loadModel("zoo:squeezenet");
        ScheduleResultsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);

        ScheduleRequest ios;
        ios.scheduler = "ios";
        model.add(computeScheduleResult(g, ios));
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0, ScheduleResultsModel::SpeedupColumn).data().toString(), QStringLiteral("-"));

        ScheduleRequest seq;
        seq.scheduler = "sequential";
        model.add(computeScheduleResult(g, seq));
        QCOMPARE(model.rowCount(), 2);
        // ios now has a baseline on the same device and batch.
        const double speedup
            = model.index(0, ScheduleResultsModel::SpeedupColumn).data(ScheduleResultsModel::SortRole).toDouble();
        QVERIFY(speedup > 1.0);
        QCOMPARE(model.index(1, ScheduleResultsModel::SpeedupColumn).data().toString(), QStringLiteral("1.00x"));
        QCOMPARE(model.index(1, ScheduleResultsModel::StagesColumn).data().toInt(), 50);

        ScheduleRequest nimble;
        nimble.scheduler = "nimble";
        nimble.device = "sim:a100";
        model.add(computeScheduleResult(g, nimble));
        QCOMPARE(model.index(2, ScheduleResultsModel::StagesColumn).data().toString(), QStringLiteral("-"));
        QCOMPARE(model.index(2, ScheduleResultsModel::SpeedupColumn).data().toString(), QStringLiteral("-"));
        QVERIFY(model.index(2, ScheduleResultsModel::StreamsColumn).data().toInt() > 1);

        // Removing the sequential baseline takes ios's speedup with it; out of range removes nothing.
        model.remove(1);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(0, ScheduleResultsModel::SpeedupColumn).data().toString(), QStringLiteral("-"));
        QCOMPARE(model.result(1)->request.scheduler, std::string("nimble"));
        model.remove(7);
        model.remove(-1);
        QCOMPARE(model.rowCount(), 2);

        model.clear();
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(model.result(0) == nullptr);
    }

    void unknownSchedulerIsAnError()
    {
        const Graph g = loadModel("zoo:squeezenet");
        ScheduleRequest bad;
        bad.scheduler = "telepathy";
        QVERIFY_THROWS_EXCEPTION(std::exception, computeScheduleResult(g, bad));
    }
};

QTEST_MAIN(TestScheduleResultsModel)
#include "tst_scheduleresultsmodel.moc"
