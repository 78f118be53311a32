// Range statistics: busy time as the union of a stream's ops, counts of ops and kernels that
// overlap, concurrency on average and at the peak, the time-averaged active warps, and the host
// calls that explain the device's idle time.
#include "engine/timeline/range_stats.h"
#include "support/timeline_samples.h"

#include "model/model_ref.h"
#include "schedule/schedulers.h"
#include "schedule/stage_cost.h"
#include "sim/sim_device.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace opsched;

namespace {

using test::twoStreamTimeline;
using test::us;

struct RangeCase {
    const char* name;
    double t0, t1; // us
    int ops, kernels;
    double busy0, busy1; // us
    int peak;
    double concurrency0, concurrency1; // streams busy on average while stream 0 (1) is
};

} // namespace

TEST(RangeStats, Ranges)
{
    // Whole run: stream 0 busy [0,20) and [30,40), stream 1 [5,25); two run at once on [5,20).
    const RangeCase cases[] = {
        { "whole run", 0, 40, 5, 5, 30, 20, 2, 45.0 / 30, 35.0 / 20 },
        { "first op only", 0, 4, 1, 1, 4, 0, 1, 1, 0 },
        { "overlap of both streams", 6, 14, 3, 3, 8, 8, 2, 2, 2 },
        { "idle gap on stream 0", 20.5, 29.5, 1, 1, 0, 4.5, 1, 0, 1 },
        { "merged launch counted once in busy time", 30, 40, 2, 1, 10, 0, 1, 1, 0 },
        { "reversed range", 14, 6, 3, 3, 8, 8, 2, 2, 2 },
        { "after the run", 50, 60, 0, 0, 0, 0, 0, 0, 0 },
    };
    const auto d = twoStreamTimeline();
    for (const RangeCase& c : cases) {
        SCOPED_TRACE(c.name);
        const RangeStats s = rangeStats(*d, c.t0 * us, c.t1 * us);
        EXPECT_LE(s.start, s.end);
        EXPECT_EQ(static_cast<int>(s.ops), c.ops);
        EXPECT_EQ(static_cast<int>(s.kernels), c.kernels);
        ASSERT_EQ(s.streams.size(), 2u);
        EXPECT_EQ(s.streams[0].name, "stream 0");
        EXPECT_EQ(s.streams[1].row, 2u);
        EXPECT_NEAR(s.streams[0].busy, c.busy0 * us, 1e-12);
        EXPECT_NEAR(s.streams[1].busy, c.busy1 * us, 1e-12);
        EXPECT_EQ(static_cast<int>(s.streams[0].kernels + s.streams[1].kernels), c.kernels);
        EXPECT_EQ(s.peakConcurrency, c.peak);
        EXPECT_NEAR(s.streams[0].concurrency, c.concurrency0, 1e-9);
        EXPECT_NEAR(s.streams[1].concurrency, c.concurrency1, 1e-9);
        const double duration = std::abs(c.t1 - c.t0) * us;
        EXPECT_NEAR(s.averageConcurrency, (c.busy0 + c.busy1) * us / duration, 1e-9);
        EXPECT_TRUE(s.hasWarps);
    }
}

TEST(RangeStats, AveragesWarps)
{
    struct Case {
        const char* name;
        double t0, t1, average;
    };
    const Case cases[] = {
        { "one level", 2, 8, 100 },
        { "two levels, equal parts", 5, 15, 200 },
        { "whole run", 0, 40, (100.0 * 10 + 300 * 10 + 50 * 20) / 40 },
        { "before the first sample", -10, 0, 0 },
        { "after the last", 40, 50, 0 },
        { "an instant", 12, 12, 300 },
    };
    const auto d = twoStreamTimeline();
    for (const Case& c : cases)
        EXPECT_NEAR(averageWarps(d->warps, c.t0 * us, c.t1 * us), c.average, 1e-6) << c.name;
    EXPECT_EQ(averageWarps({}, 0, 1), 0.0);
}

TEST(RangeStats, HostCallsExplainTheDeviceIdleTime)
{
    // Nimble on inception_v3, sim:h100, kernels launched one by one: about a third of the run has
    // no kernel. Every stretch of idle device longer than 2% of the run is covered by host calls.
    // The longest, after the last kernel (1.55 to 2.25 ms), is the host joining Nimble's streams at
    // the end of the run, not launch cost.
    const Graph g = loadModel("zoo:inception_v3");
    const SimDevice& device = findSimDevice("sim:h100");
    SimulatedStageCost cost(device);
    const SchedulerOutput out = runScheduler("nimble", g, cost, SchedulerParams {});
    const TimelineData data = timelineFromSimulation(g, out.plan, simulate(g, out.plan, device), device);
    const double run = data.latency;
    EXPECT_GT(deviceIdleSeconds(data, 0, run), 0.2 * run);
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
        EXPECT_TRUE(s.hasHost);
        EXPECT_GE(s.hostLaunchSeconds + s.hostWaitSeconds + s.hostBarrierSeconds, 0.999 * (b - a))
            << a * 1e6 << "-" << b * 1e6 << " us";
        if (b >= run - 1e-12) {
            EXPECT_GE(s.hostBarrierSeconds, 0.9 * (b - a));
        }
    };
    for (const auto& [s0, s1] : kernels) {
        if (s0 > to)
            check(to, s0);
        to = std::max(to, s1);
    }
    check(to, run);
    EXPECT_GE(long_, 1);

    // Without host calls (a stored run from before they were recorded) nothing explains it.
    TimelineData bare = data;
    bare.host.clear();
    EXPECT_FALSE(rangeStats(bare, 0, run).hasHost);
}
