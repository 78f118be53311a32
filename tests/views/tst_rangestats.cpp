// The Range tab's model and the status line's summary of a range (the statistics themselves:
// tests/engine/tst_range_stats.cpp).
#include "engine/timeline/range_stats.h"
#include "model/model_ref.h"
#include "schedule/schedulers.h"
#include "schedule/stage_cost.h"
#include "sim/sim_device.h"
#include "support/timeline_samples.h"
#include "timeline/range_stats_model.h"

#include <QAbstractItemModelTester>
#include <QTest>

#include <algorithm>

using namespace opsched;

namespace {

using test::twoStreamTimeline;
using test::us;

} // namespace

class TestRangeStats : public QObject {
    Q_OBJECT

private slots:
    void modelShowsStreams();
    void describesARange();
    void describesTheHostJoiningStreams();
};

void TestRangeStats::modelShowsStreams()
{
    RangeStatsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    const auto d = twoStreamTimeline();
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
    const auto d = twoStreamTimeline();
    const QString text = describeRange(rangeStats(*d, 5 * us, 15 * us));
    QVERIFY2(text.startsWith(QStringLiteral("Δt 10.0 us")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("3 ops, 4 kernels")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("2.00 streams busy on average (peak 2)")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("200 active warps on average")), qPrintable(text));
}

void TestRangeStats::describesTheHostJoiningStreams()
{
    // Nimble on inception_v3, sim:h100: after the last kernel the host joins the streams
    // (engine/timeline/range_stats' test measures it); the summary names it.
    const Graph g = loadModel("zoo:inception_v3");
    const SimDevice& device = findSimDevice("sim:h100");
    SimulatedStageCost cost(device);
    const SchedulerOutput out = runScheduler("nimble", g, cost, SchedulerParams {});
    const TimelineData data = timelineFromSimulation(g, out.plan, simulate(g, out.plan, device), device);
    double lastKernel = 0;
    for (std::size_t r = 0; r < data.rows.rowCount(); ++r)
        if (data.rowKind(r) == TimelineRowKind::Kernels)
            for (const auto& k : data.rows.row(r))
                lastKernel = std::max(lastKernel, k.end);
    const QString text = describeRange(rangeStats(data, lastKernel, data.latency));
    QVERIFY2(text.contains(QStringLiteral("joining streams")), qPrintable(text));
}

QTEST_APPLESS_MAIN(TestRangeStats)
#include "tst_rangestats.moc"
