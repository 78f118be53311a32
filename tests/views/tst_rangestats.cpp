// Range statistics: busy time as the union of a stream's ops, counts of ops and kernels that
// overlap, concurrency on average and at the peak, and the time-averaged active warps.
#include "model/model_ref.h"
#include "schedule/schedulers.h"
#include "schedule/stage_cost.h"
#include "sim/sim_device.h"
#include "timeline/range_stats.h"
#include "timeline/range_stats_model.h"

#include <QAbstractItemModelTester>
#include <QTest>

#include <algorithm>

using namespace opsched;

namespace {

constexpr double us = 1e-6;

// Two streams with kernel rows:
//   stream 0: ops [0,10) [10,20) and a merged launch of two ops [30,40) twice; kernels inside
//   stream 1: op [5,25); kernels [5,15) [15,25)
// warps: 0 until 0, 100 on [0,10), 300 on [10,20), 50 on [20,40), 0 after.
std::shared_ptr<TimelineData> sample()
{
    auto d = std::make_shared<TimelineData>();
    StreamRowsBuilder rows(*d, { 0, 1 });
    rows.addOp(0, 0 * us, 10 * us, 0, 0);
    rows.addOp(0, 10 * us, 20 * us, 1, 0);
    rows.addOp(0, 30 * us, 40 * us, 2, 0);
    rows.addOp(0, 30 * us, 40 * us, 3, 0); // merged with op 2
    rows.addKernel(0, 0 * us, 10 * us, 0, { "conv", 0, 64, {} });
    rows.addKernel(0, 10 * us, 20 * us, 0, { "conv", 1, 64, {} });
    rows.addKernel(0, 30 * us, 40 * us, 0, { "merged", 2, 64, {} });
    rows.addOp(1, 5 * us, 25 * us, 4, 1);
    rows.addKernel(1, 5 * us, 15 * us, 1, { "gemm", 4, 32, {} });
    rows.addKernel(1, 15 * us, 25 * us, 1, { "relu", 4, 32, {} });
    d->rows.finish();
    d->warps = { { 0 * us, 100 }, { 10 * us, 300 }, { 20 * us, 50 }, { 40 * us, 0 } };
    d->latency = 40 * us;
    return d;
}

} // namespace

class TestRangeStats : public QObject {
    Q_OBJECT

private slots:
    void ranges_data();
    void ranges();
    void averagesWarps_data();
    void averagesWarps();
    void modelShowsStreams();
    void describesARange();
    void hostCallsExplainTheDeviceIdleTime();
};

void TestRangeStats::ranges_data()
{
    QTest::addColumn<double>("t0");
    QTest::addColumn<double>("t1");
    QTest::addColumn<int>("ops");
    QTest::addColumn<int>("kernels");
    QTest::addColumn<double>("busy0");
    QTest::addColumn<double>("busy1");
    QTest::addColumn<int>("peak");
    QTest::addColumn<double>("concurrency0"); // streams busy on average while stream 0 is
    QTest::addColumn<double>("concurrency1");
    // Whole run: stream 0 busy [0,20) and [30,40), stream 1 [5,25); two run at once on [5,20).
    QTest::newRow("whole run") << 0.0 << 40.0 << 5 << 5 << 30.0 << 20.0 << 2 << 45.0 / 30 << 35.0 / 20;
    QTest::newRow("first op only") << 0.0 << 4.0 << 1 << 1 << 4.0 << 0.0 << 1 << 1.0 << 0.0;
    QTest::newRow("overlap of both streams") << 6.0 << 14.0 << 3 << 3 << 8.0 << 8.0 << 2 << 2.0 << 2.0;
    QTest::newRow("idle gap on stream 0") << 20.5 << 29.5 << 1 << 1 << 0.0 << 4.5 << 1 << 0.0 << 1.0;
    QTest::newRow("merged launch counted once in busy time")
        << 30.0 << 40.0 << 2 << 1 << 10.0 << 0.0 << 1 << 1.0 << 0.0;
    QTest::newRow("reversed range") << 14.0 << 6.0 << 3 << 3 << 8.0 << 8.0 << 2 << 2.0 << 2.0;
    QTest::newRow("after the run") << 50.0 << 60.0 << 0 << 0 << 0.0 << 0.0 << 0 << 0.0 << 0.0;
}

void TestRangeStats::ranges()
{
    QFETCH(double, t0);
    QFETCH(double, t1);
    QFETCH(int, ops);
    QFETCH(int, kernels);
    QFETCH(double, busy0);
    QFETCH(double, busy1);
    QFETCH(int, peak);
    QFETCH(double, concurrency0);
    QFETCH(double, concurrency1);
    const auto d = sample();
    const RangeStats s = rangeStats(*d, t0 * us, t1 * us);
    QVERIFY(s.start <= s.end);
    QCOMPARE(static_cast<int>(s.ops), ops);
    QCOMPARE(static_cast<int>(s.kernels), kernels);
    QCOMPARE(s.streams.size(), std::size_t(2));
    QCOMPARE(s.streams[0].name, std::string("stream 0"));
    QCOMPARE(s.streams[1].row, std::size_t(2));
    QVERIFY2(std::abs(s.streams[0].busy - busy0 * us) < 1e-12, qPrintable(QString::number(s.streams[0].busy / us)));
    QVERIFY2(std::abs(s.streams[1].busy - busy1 * us) < 1e-12, qPrintable(QString::number(s.streams[1].busy / us)));
    QCOMPARE(static_cast<int>(s.streams[0].kernels + s.streams[1].kernels), kernels);
    QCOMPARE(s.peakConcurrency, peak);
    QVERIFY2(std::abs(s.streams[0].concurrency - concurrency0) < 1e-9,
        qPrintable(QString::number(s.streams[0].concurrency)));
    QVERIFY2(std::abs(s.streams[1].concurrency - concurrency1) < 1e-9,
        qPrintable(QString::number(s.streams[1].concurrency)));
    const double duration = std::abs(t1 - t0) * us;
    QVERIFY(std::abs(s.averageConcurrency - (busy0 + busy1) * us / duration) < 1e-9);
    QVERIFY(s.hasWarps);
}

void TestRangeStats::averagesWarps_data()
{
    QTest::addColumn<double>("t0");
    QTest::addColumn<double>("t1");
    QTest::addColumn<double>("average");
    QTest::newRow("one level") << 2.0 << 8.0 << 100.0;
    QTest::newRow("two levels, equal parts") << 5.0 << 15.0 << 200.0;
    QTest::newRow("whole run") << 0.0 << 40.0 << (100.0 * 10 + 300 * 10 + 50 * 20) / 40;
    QTest::newRow("before the first sample") << -10.0 << 0.0 << 0.0;
    QTest::newRow("after the last") << 40.0 << 50.0 << 0.0;
    QTest::newRow("an instant") << 12.0 << 12.0 << 300.0;
}

void TestRangeStats::averagesWarps()
{
    QFETCH(double, t0);
    QFETCH(double, t1);
    QFETCH(double, average);
    const auto d = sample();
    const double got = opsched::averageWarps(d->warps, t0 * us, t1 * us);
    QVERIFY2(std::abs(got - average) < 1e-6, qPrintable(QString::number(got)));
    QCOMPARE(opsched::averageWarps({}, 0, 1), 0.0);
}

void TestRangeStats::modelShowsStreams()
{
    RangeStatsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    const auto d = sample();
    model.setStats(rangeStats(*d, 0, 20 * us));
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.columnCount(), int(RangeStatsModel::ColumnCount));
    QCOMPARE(model.index(0, RangeStatsModel::StreamColumn).data().toString(), QStringLiteral("stream 0"));
    QCOMPARE(model.index(0, RangeStatsModel::BusyColumn).data().toString(), QStringLiteral("20.0 us"));
    QCOMPARE(model.index(0, RangeStatsModel::ShareColumn).data().toString(), QStringLiteral("100.0 %"));
    QCOMPARE(model.index(1, RangeStatsModel::ShareColumn).data().toString(), QStringLiteral("75.0 %"));
    QCOMPARE(model.index(1, RangeStatsModel::OpsColumn).data().toInt(), 1);
    QCOMPARE(model.index(1, RangeStatsModel::KernelsColumn).data().toInt(), 2);
    QCOMPARE(model.index(1, 0).data(RangeStatsModel::RowRole).toULongLong(), 2ULL);
    QCOMPARE(model.index(1, RangeStatsModel::BusyColumn).data(RangeStatsModel::SortRole).toDouble(), 15 * us);
    // Stream 1 runs [5,20) beside stream 0 all the time: 2 streams; stream 0 alone on [0,5).
    QCOMPARE(model.index(1, RangeStatsModel::ConcurrencyColumn).data().toString(), QStringLiteral("2.00"));
    QCOMPARE(model.index(0, RangeStatsModel::ConcurrencyColumn).data().toString(), QStringLiteral("1.75"));
    QVERIFY(
        !model.headerData(RangeStatsModel::ConcurrencyColumn, Qt::Horizontal, Qt::ToolTipRole).toString().isEmpty());
}

void TestRangeStats::describesARange()
{
    const auto d = sample();
    const QString text = describeRange(rangeStats(*d, 5 * us, 15 * us));
    QVERIFY2(text.startsWith(QStringLiteral("Δt 10.0 us")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("3 ops, 4 kernels")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("2.00 streams busy on average (peak 2)")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("200 active warps on average")), qPrintable(text));
}

void TestRangeStats::hostCallsExplainTheDeviceIdleTime()
{
    // Nimble on inception_v3, sim:h100, kernels launched one by one: about a third of the run has
    // no kernel. Every stretch of idle device longer than 2% of the run is covered by host calls,
    // and the summary names them. The longest, after the last kernel (1.55 to 2.25 ms), is the
    // host joining Nimble's streams at the end of the run, not launch cost.
    const Graph g = loadModel("zoo:inception_v3");
    const SimDevice& device = findSimDevice("sim:h100");
    SimulatedStageCost cost(device);
    const SchedulerOutput out = runScheduler("nimble", g, cost, SchedulerParams {});
    const TimelineData data = timelineFromSimulation(g, out.plan, simulate(g, out.plan, device), device);
    const double run = data.latency;
    QVERIFY(deviceIdleSeconds(data, 0, run) > 0.2 * run);
    // The idle stretches: gaps in the union of the kernel rows.
    std::vector<std::pair<double, double>> kernels;
    for (std::size_t r = 0; r < data.rows.rowCount(); ++r)
        if (data.rowKind(r) == TimelineRowKind::Kernels)
            for (const auto& k : data.rows.row(r))
                kernels.emplace_back(k.start, k.end);
    std::sort(kernels.begin(), kernels.end());
    double to = 0;
    int long_ = 0;
    auto check = [&](double a, double b) {
        if (b - a <= 0.02 * run)
            return;
        ++long_;
        const RangeStats s = rangeStats(data, a, b);
        QVERIFY(s.hasHost);
        QVERIFY2(s.hostLaunchSeconds + s.hostWaitSeconds + s.hostBarrierSeconds >= 0.999 * (b - a),
            qPrintable(QStringLiteral("%1-%2 us").arg(a * 1e6).arg(b * 1e6)));
        if (b >= run - 1e-12) {
            QVERIFY2(s.hostBarrierSeconds >= 0.9 * (b - a), qPrintable(describeRange(s)));
            QVERIFY(describeRange(s).contains(QStringLiteral("joining streams")));
        }
    };
    for (const auto& [s0, s1] : kernels) {
        if (s0 > to)
            check(to, s0);
        to = std::max(to, s1);
    }
    check(to, run);
    QVERIFY(long_ >= 1);

    // Without host calls (a stored run from before they were recorded) nothing explains it.
    TimelineData bare = data;
    bare.host.clear();
    QVERIFY(!rangeStats(bare, 0, run).hasHost);
}

QTEST_APPLESS_MAIN(TestRangeStats)
#include "tst_rangestats.moc"
