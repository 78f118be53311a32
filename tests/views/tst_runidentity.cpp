// Run identity: the one way a run is named in titles, the status bar, export names and image headers.
#include "engine/results/schedule_result.h"
#include "runs/run_identity.h"

#include "store/records.h"

#include <QRegularExpression>
#include <QTest>

#include <memory>

using namespace opsched;

namespace {

ScheduleResult result(const char* scheduler, const char* device, std::int64_t batch, double latency)
{
    ScheduleResult r;
    r.request.scheduler = scheduler;
    r.request.device = device;
    r.batch = batch;
    r.latency = latency;
    return r;
}

} // namespace

class TestRunIdentity : public QObject {
    Q_OBJECT

private slots:
    void names_data()
    {
        QTest::addColumn<QString>("scheduler");
        QTest::addColumn<QString>("device");
        QTest::addColumn<int>("batch");
        QTest::addColumn<int>("storedId"); // 0: a live result
        QTest::addColumn<QString>("label");
        QTest::addColumn<QString>("title");
        QTest::addColumn<QString>("stem");
        QTest::newRow("live") << "nimble"
                              << "sim:h100" << 4 << 0 << QString::fromUtf8("nimble · sim:h100 · batch 4 · 2.25 ms")
                              << QString::fromUtf8("googlenet — nimble · sim:h100 · batch 4 · 2.25 ms")
                              << "googlenet_nimble_sim-h100_b4";
        QTest::newRow("stored") << "nimble"
                                << "sim:h100" << 4 << 8
                                << QString::fromUtf8("run 8: nimble · sim:h100 · batch 4 · 2.25 ms")
                                << QString::fromUtf8("inception_v3 — run 8: nimble · sim:h100 · batch 4 · 2.25 ms")
                                << "inception_v3_nimble_sim-h100_b4_run8";
        QTest::newRow("mapping over two devices")
            << "map:milp-split"
            << "sim:xeon,sim:h100" << 1 << 0
            << QString::fromUtf8("map:milp-split · sim:xeon,sim:h100 · batch 1 · 2.25 ms")
            << QString::fromUtf8("googlenet — map:milp-split · sim:xeon,sim:h100 · batch 1 · 2.25 ms")
            << "googlenet_map-milp-split_sim-xeon-sim-h100_b1";
        QTest::newRow("edited") << "ios (edited)"
                                << "sim:v100" << 1 << 0
                                << QString::fromUtf8("ios (edited) · sim:v100 · batch 1 · 2.25 ms")
                                << QString::fromUtf8("googlenet — ios (edited) · sim:v100 · batch 1 · 2.25 ms")
                                << "googlenet_ios-edited-_sim-v100_b1";
    }
    void names()
    {
        QFETCH(QString, scheduler);
        QFETCH(QString, device);
        QFETCH(int, batch);
        QFETCH(int, storedId);
        QFETCH(QString, label);
        QFETCH(QString, title);
        QFETCH(QString, stem);
        ScheduleResult r = result(scheduler.toUtf8().constData(), device.toUtf8().constData(), batch, 2.25e-3);
        if (storedId) {
            auto run = std::make_shared<store::RunRecord>();
            run->id = store::RunId(storedId);
            run->model.name = "inception_v3"; // the stored run's own model, whatever the window has open
            r.stored = run;
        }
        QCOMPARE(runLabel(r), label);
        QCOMPARE(runTitle(r, QStringLiteral("googlenet")), title);
        QCOMPARE(runFileStem(r, QStringLiteral("googlenet")), stem);
        QVERIFY(QRegularExpression(QStringLiteral("^[A-Za-z0-9._-]+$")).match(stem).hasMatch());
    }

    // A throughput mapping's latency is all its inputs' makespan: its name says so, and it covers
    // that many inputs (the Compare view's bar is the time per input).
    void throughputMappingsSayWhatTheyTime()
    {
        ScheduleResult r = result("map:milp-split", "sim:xeon,sim:t4,sim:a100", 1, 11.6e-3);
        r.mapping = MappingView {};
        ScheduleResult latency = r;
        r.request.objective = "throughput";
        r.request.inputs = 16;
        QCOMPARE(runLabel(r),
            QString::fromUtf8("map:milp-split · throughput, 16 inputs · sim:xeon,sim:t4,sim:a100 · batch 1 · 11.6 ms"));
        QCOMPARE(runLabel(latency), QString::fromUtf8("map:milp-split · sim:xeon,sim:t4,sim:a100 · batch 1 · 11.6 ms"));
        QVERIFY(runLabel(r) != runLabel(latency));
        QCOMPARE(inputsCovered(r), std::int64_t(16));
        QCOMPARE(inputsCovered(latency), std::int64_t(1));
        QVERIFY(runFileStem(r, QStringLiteral("googlenet")).endsWith(QStringLiteral("_throughput16")));
    }

    void withoutAModelTheTitleIsTheLabel()
    {
        const ScheduleResult r = result("ios", "sim:v100", 1, 1e-3);
        QCOMPARE(runTitle(r, {}), runLabel(r));
        QVERIFY(runFileStem(r, {}).startsWith(QStringLiteral("run_ios_")));
    }
};

QTEST_APPLESS_MAIN(TestRunIdentity)
#include "tst_runidentity.moc"
