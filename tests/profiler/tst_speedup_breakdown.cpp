// The speedup breakdown (profiler/analysis/speedup_breakdown.h): constructed runs whose terms are
// known give exactly those terms, and on every zoo network's simulated runs (sequential against
// each other scheduler) the terms add up to the latency difference.
#include "analysis/speedup_breakdown.h"

#include "schedule/schedulers.h"
#include "schedule/stage_cost.h"
#include "session/sim_run.h"
#include "sim/kernel_model.h"
#include "sim/sim_device.h"
#include "sim/simulator.h"
#include "zoo/zoo.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

using namespace opsched;
using analysis::explainDifference;
using analysis::SpeedupBreakdown;

namespace {

struct K {
    std::int64_t start, end, op;
    std::string name = "Conv";
    std::int64_t stream = 0;
};

struct H {
    std::int64_t start, end;
    std::string name = "cudaLaunchKernel";
};

store::RunRecord run(std::int64_t id, double latencyNs, const std::vector<K>& kernels, const std::vector<H>& host = {})
{
    store::RunRecord r;
    r.id = store::RunId(id);
    r.model.name = "m";
    r.model.sha256 = "same";
    r.model.ops = nlohmann::json::array({ { { "name", "a" } }, { { "name", "b" } }, { { "name", "c" } } });
    r.latenciesNs = { latencyNs };
    for (const K& k : kernels) {
        store::KernelRecord rec;
        rec.start = k.start;
        rec.end = k.end;
        rec.opId = k.op;
        rec.shortName = k.name;
        rec.streamId = k.stream;
        r.kernels.push_back(rec);
    }
    for (const H& h : host)
        r.hostCalls.push_back({ h.start, h.end, h.name, std::nullopt });
    return r;
}

// Every term but `keys` is zero; those have the given values.
void expectOnly(const SpeedupBreakdown& b, const std::map<std::string, double>& keys)
{
    for (const auto& t : b.terms) {
        const auto it = keys.find(t.key);
        EXPECT_NEAR(t.ns, it == keys.end() ? 0.0 : it->second, 1e-9) << t.key;
    }
    EXPECT_NEAR(b.termSumNs(), b.differenceNs, 1e-9);
}

TEST(SpeedupBreakdown, OnlyLaunchGapsRemoved)
{
    // A: the device waits 5 ns for the host to issue the second kernel; B issued it in time.
    const auto a = run(1, 25, { { 0, 10, 0 }, { 15, 25, 1 } }, { { 0, 2 }, { 10, 15 } });
    const auto b = run(2, 20, { { 0, 10, 0 }, { 10, 20, 1 } }, { { 0, 2 }, { 5, 9 } });
    const SpeedupBreakdown r = explainDifference(a, b);
    EXPECT_EQ(r.differenceNs, 5);
    expectOnly(r, { { "launch_idle", 5 } });
    EXPECT_EQ(r.sharedKernels, 2U);
}

TEST(SpeedupBreakdown, OnlyOverlapAdded)
{
    // The same two kernels, one after the other in A, side by side on two streams in B.
    const auto a = run(1, 20, { { 0, 10, 0 }, { 10, 20, 1 } });
    const auto b = run(2, 10, { { 0, 10, 0 }, { 0, 10, 1, "Conv", 1 } });
    const SpeedupBreakdown r = explainDifference(a, b);
    expectOnly(r, { { "overlap", 10 } });
    EXPECT_EQ(r.a.overlapNs, 0);
    EXPECT_EQ(r.b.overlapNs, 10);
}

TEST(SpeedupBreakdown, TwoKernelsMergedIntoOne)
{
    // A runs two convolutions, B one merged convolution in 12 ns instead of 20.
    const auto a = run(1, 20, { { 0, 10, 0 }, { 10, 20, 1 } });
    const auto b = run(2, 12, { { 0, 12, 0, "MergedConv" } });
    const SpeedupBreakdown r = explainDifference(a, b);
    expectOnly(r, { { "only_a_kernels", 20 }, { "only_b_kernels", -12 } });
    EXPECT_EQ(r.onlyAKernels, 2U);
    EXPECT_EQ(r.onlyBKernels, 1U);
    ASSERT_FALSE(r.ops.empty());
    EXPECT_EQ(r.ops.front().op, "b") << "op b lost all of its 10 ns, op a 10 - 12";
}

TEST(SpeedupBreakdown, SlowerUnderContentionAndBarriersAndVariation)
{
    // B: the second kernel 2 ns slower (shared), a barrier of 3 ns removed, and a median 1 ns
    // above its recorded run; a wait between streams of 4 ns in A only.
    const auto a = run(1, 30, { { 0, 10, 0 }, { 13, 19, 1 }, { 23, 30, 2 } }, { { 10, 13, "barrier" } });
    const auto b = run(2, 28, { { 0, 10, 0 }, { 10, 18, 1 }, { 18, 25, 2 } }, { { 25, 27, "barrier" } });
    const SpeedupBreakdown r = explainDifference(a, b);
    // A: idle [10,13] barrier (sync 3), [19,23] nothing (gap 4). B: idle [25,27] barrier (sync 2),
    // variation 28 - 27 = 1.
    expectOnly(r, { { "shared_kernels", -2 }, { "sync_idle", 1 }, { "gap_idle", 4 }, { "variation", -1 } });
}

TEST(SpeedupBreakdown, HostWaitsLeaveTheDevicesOwnIdleTime)
{
    // While the host waits for the device (a stage wait, a synchronise), idle time is the device's
    // own (a wait between streams): gap, not launch or barrier.
    const auto a = run(1, 20, { { 0, 5, 0 }, { 15, 20, 1 } }, { { 0, 20, "cudaStreamSynchronize" } });
    const auto b = run(2, 10, { { 0, 5, 0 }, { 5, 10, 1 } }, { { 0, 10, "cudaStreamSynchronize" } });
    expectOnly(explainDifference(a, b), { { "gap_idle", 10 } });
}

TEST(SpeedupBreakdown, RefusesRunsThatDoNotCompare)
{
    const auto a = run(1, 20, { { 0, 10, 0 } });
    auto other = a;
    other.model.sha256 = "another";
    EXPECT_THROW(explainDifference(a, other), std::invalid_argument);
    auto batch = a;
    batch.batch = 2;
    EXPECT_THROW(explainDifference(a, batch), std::invalid_argument);
    auto empty = a;
    empty.kernels.clear();
    EXPECT_THROW(explainDifference(a, empty), std::invalid_argument);
    auto failed = a;
    failed.status = store::RunStatus::Failed;
    EXPECT_THROW(explainDifference(failed, a), std::invalid_argument);
}

store::RunRecord simulated(const Graph& g, const std::string& scheduler, const SimDevice& device, bool cudaGraph)
{
    SimulatedStageCost cost(device, SimOptions { cudaGraph });
    const SchedulerOutput out = runScheduler(scheduler, g, cost);
    store::RunRecord r;
    r.model = profiler::modelRecord(g, "zoo");
    r.batch = g.batch();
    profiler::SimRunOptions o;
    o.sim.cudaGraph = cudaGraph;
    profiler::fillSimulatedRun(r, g, out, device, o);
    return r;
}

// On every zoo network that runs, sequential against every other scheduler, eager and as one CUDA
// graph: the terms add up to the simulated latency difference within 1 us (the simulator's runs
// have no variation: the median is the recorded run).
TEST(SpeedupBreakdown, TermsSumToTheDifferenceOnEveryZooNetwork)
{
    const SimDevice& device = findSimDevice("sim:h100");
    int checked = 0;
    for (const auto& entry : zoo::catalogue()) {
        const Graph g = zoo::build(entry.name, 1);
        if (!zoo::costOnlyReason(g).empty() || g.opCount() > 2000)
            continue;
        for (const bool graphMode : { false, true }) {
            const store::RunRecord base = simulated(g, "sequential", device, graphMode);
            for (const std::string scheduler : { "greedy", "ios", "nimble", "opara" }) {
                const SpeedupBreakdown r = explainDifference(base, simulated(g, scheduler, device, graphMode));
                EXPECT_NEAR(r.termSumNs(), r.differenceNs, 1e3) << entry.name << " " << scheduler;
                EXPECT_NEAR(r.a.variationNs, 0, 1e3) << entry.name;
                EXPECT_NEAR(r.b.variationNs, 0, 1e3) << entry.name << " " << scheduler;
                ++checked;
            }
        }
    }
    EXPECT_GT(checked, 40);
}

// The simulator's own accounting: in a sequential plan every kernel runs alone (its duration is the
// kernel model's solo time); a concurrent plan's kernels take longer by their contention. The
// breakdown's shared-kernel term of sequential against that plan, computed from the recorded runs
// alone, must equal minus the simulator's total contention slowdown (solo times from the model).
TEST(SpeedupBreakdown, SharedKernelTermIsTheSimulatorsContention)
{
    const SimDevice& device = findSimDevice("sim:h100");
    int checked = 0;
    double largest = 0; // the test compares something: some plan's kernels do slow each other down
    for (const char* network : { "inception_v3", "googlenet", "nasnet_a", "squeezenet" }) {
        const Graph g = zoo::build(network, 1);
        const KernelTable table(g);
        for (const char* scheduler : { "greedy", "nimble", "opara" }) {
            SimulatedStageCost cost(device, SimOptions { true });
            const SchedulerOutput out = runScheduler(scheduler, g, cost);
            const SimResult sim = simulate(g, out.plan, device, SimOptions { true }, &table);
            double contention = 0; // seconds: each kernel's duration beyond its solo time
            for (const KernelSpan& k : sim.kernels) {
                const Launch& launch = out.plan.launches[k.launch];
                ASSERT_EQ(launch.ops.size(), 1U) << scheduler << " merges nothing";
                contention += (k.end - k.start) - soloSeconds(table.of(launch.ops.front())[k.part], device);
            }
            const SpeedupBreakdown r
                = explainDifference(simulated(g, "sequential", device, true), simulated(g, scheduler, device, true));
            double shared = 0;
            for (const auto& t : r.terms)
                if (t.key == "shared_kernels")
                    shared = t.ns;
            EXPECT_EQ(r.onlyAKernels + r.onlyBKernels, 0U) << network << " " << scheduler;
            // Nanosecond rounding of the recorded kernels: at most 1 ns per kernel each side.
            EXPECT_NEAR(shared, -contention * 1e9, 2.0 * static_cast<double>(sim.kernels.size()))
                << network << " " << scheduler;
            largest = std::max(largest, contention);
            ++checked;
        }
    }
    EXPECT_EQ(checked, 12);
    EXPECT_GT(largest, 1e-6) << "no plan showed contention: the comparison proves nothing";
}

} // namespace
