// The simulated GPU must show what the IOS, Nimble and Opara papers measured; each property is a test.
#include "model/model_ref.h"
#include "plan/plan.h"
#include "schedule/basic_schedulers.h"
#include "schedule/opara_scheduler.h"
#include "schedule/schedulers.h"
#include "schedule/stage_cost.h"
#include "session/sim_run.h"
#include "sim/simulator.h"
#include "util/error.h"
#include "zoo/net_builder.h"

#include <gtest/gtest.h>

using namespace opsched;

namespace {

// Two independent convs of the given size reading one input, and their sum.
Graph twoBranches(std::int64_t batch, std::int64_t channels, std::int64_t size)
{
    zoo::NetBuilder b("two", 1);
    const auto x = b.input("x", Shape { batch, channels, size, size });
    const auto l = b.conv("left", { { x } }, channels, 3, 1, 1);
    const auto r = b.conv("right", { { x } }, channels, 3, 1, 1);
    b.combine("cat", { { l, r } });
    return std::move(b).finish();
}

double latency(const Graph& g, const Schedule& s, const char* device = "sim:v100", SimOptions o = {})
{
    return simulate(g, compileSchedule(g, s), findSimDevice(device), o).latency;
}

Schedule oneAfterAnother(const Graph& g)
{
    return sequentialSchedule(g);
}

Schedule together(const Graph& g)
{
    return Schedule { { Stage { StageStrategy::Concurrent, { { *g.findOp("left") }, { *g.findOp("right") } } },
        Stage { StageStrategy::Concurrent, { { *g.findOp("cat") } } } } };
}

TEST(Simulator, SmallConcurrentKernelsFinishSoonerTogether)
{
    const Graph g = twoBranches(1, 64, 14);
    SimOptions graph;
    graph.cudaGraph = true; // cheap joins: the kernels' own overlap shows
    EXPECT_LT(latency(g, together(g), "sim:v100", graph), 0.8 * latency(g, oneAfterAnother(g), "sim:v100", graph));
    // Through host launches with the IOS engine's stream joins, tiny kernels do not pay back the
    // extra stream, but bigger ones that leave the GPU half empty do.
    const Graph mid = twoBranches(1, 64, 28);
    EXPECT_LT(latency(mid, together(mid)), latency(mid, oneAfterAnother(mid)));
}

TEST(Simulator, KernelsThatFillTheGpuGainNothingAndContend)
{
    const Graph g = twoBranches(32, 256, 56);
    const SimDevice& d = findSimDevice("sim:v100");
    // Compare the kernel time alone: concurrency must not beat running them back to back.
    const Plan seq = compileSchedule(g, oneAfterAnother(g));
    const Plan par = compileSchedule(g, together(g));
    const SimResult a = simulate(g, seq, d);
    const SimResult b = simulate(g, par, d);
    EXPECT_GE(b.latency, 0.99 * a.latency);
}

TEST(Simulator, EveryKernelLaunchCostsTime)
{
    auto chain = [](int n) {
        zoo::NetBuilder b("chain", 1);
        auto x = b.input("x", Shape { 1, 8, 4, 4 });
        for (int i = 0; i < n; ++i)
            x = b.relu("r" + std::to_string(i), { { x } });
        return std::move(b).finish();
    };
    const SimDevice& d = findSimDevice("sim:v100");
    const Graph g10 = chain(10), g20 = chain(20);
    const double t10 = latency(g10, sequentialSchedule(g10));
    const double t20 = latency(g20, sequentialSchedule(g20));
    EXPECT_GT(t20 - t10, 10 * (d.hostLaunchSeconds + d.launchLatencySeconds) * 0.99);
    // A CUDA graph removes the host cost of each launch.
    SimOptions graph;
    graph.cudaGraph = true;
    EXPECT_LT(latency(g20, sequentialSchedule(g20), "sim:v100", graph), t20);
}

TEST(Simulator, EveryCrossStreamSyncCostsTime)
{
    const Graph g = twoBranches(1, 32, 14);
    Plan p = compileSchedule(g, together(g)); // left on 0, right on 1, barrier, cat
    const SimDevice& d = findSimDevice("sim:v100");
    const double withBarrier = simulate(g, p, d).latency;
    // Replace the barrier by one event: cat (stream 0) waits for right (stream 1).
    Plan events = p;
    events.barriers.clear();
    events.launches[2].waitFor = { 1 };
    ASSERT_TRUE(validate(g, events).empty());
    const double withEvent = simulate(g, events, d).latency;
    EXPECT_LT(withEvent, withBarrier);
    // An extra, redundant wait still costs its event.
    Plan redundant = events;
    redundant.launches[1].waitFor = { 0 };
    ASSERT_TRUE(validate(g, redundant).empty());
    EXPECT_GT(simulate(g, redundant, d).latency, withEvent);
}

TEST(Simulator, BiggerBatchesLeaveLessRoomForConcurrency)
{
    double previous = 1e9;
    for (std::int64_t batch : { 1, 8, 64 }) {
        const Graph g = loadModel("zoo:inception_v3", batch);
        const double gain = latency(g, sequentialSchedule(g)) / latency(g, greedySchedule(g));
        EXPECT_LT(gain, previous) << "batch " << batch;
        previous = gain;
    }
}

TEST(Simulator, TimelineIsConsistent)
{
    const Graph g = loadModel("zoo:googlenet");
    const SimDevice& d = findSimDevice("sim:a100");
    const Plan p = compileSchedule(g, greedySchedule(g));
    const SimResult r = simulate(g, p, d);
    ASSERT_GT(r.latency, 0);
    ASSERT_FALSE(r.kernels.empty());
    std::vector<double> streamEnd(p.streams, 0.0);
    for (std::size_t i = 0; i < r.kernels.size(); ++i) {
        const auto& k = r.kernels[i];
        EXPECT_GE(k.start, 0.0);
        EXPECT_LE(k.end, r.latency);
        EXPECT_LT(k.start, k.end);
        if (i > 0) {
            EXPECT_LE(r.kernels[i - 1].start, k.start); // sorted by start
        }
    }
    // Kernels of one stream never overlap.
    std::vector<std::vector<std::pair<double, double>>> byStream(p.streams);
    for (const auto& k : r.kernels)
        byStream[k.stream.value()].emplace_back(k.start, k.end);
    for (auto& spans : byStream) {
        std::sort(spans.begin(), spans.end());
        for (std::size_t i = 1; i < spans.size(); ++i)
            EXPECT_LE(spans[i - 1].second, spans[i].first + 1e-15);
    }
    // Every op ends after its predecessors end.
    for (const auto& op : g.ops())
        for (auto pred : g.predecessors(op.id))
            EXPECT_LE(r.opEnd[pred], r.opStart[op.id.value()] + 1e-15) << op.name;
    // Active warps stay within the device and average to something sensible.
    for (const auto& w : r.warps)
        EXPECT_LE(w.activeWarps, d.maxResidentWarps());
    EXPECT_GT(r.averageActiveWarps, 0.0);
    EXPECT_EQ(r.warps.back().activeWarps, 0.0);
}

TEST(Simulator, Deterministic)
{
    const Graph g = loadModel("zoo:randwire");
    const Plan p = compileSchedule(g, greedySchedule(g));
    const SimResult a = simulate(g, p, findSimDevice("sim:h100"));
    const SimResult b = simulate(g, p, findSimDevice("sim:h100"));
    EXPECT_EQ(a.latency, b.latency);
    ASSERT_EQ(a.kernels.size(), b.kernels.size());
    for (std::size_t i = 0; i < a.kernels.size(); ++i)
        EXPECT_EQ(a.kernels[i].end, b.kernels[i].end);
}

TEST(Simulator, FasterDevicesAreFaster)
{
    const Graph g = loadModel("zoo:inception_v3", 16);
    const Schedule s = sequentialSchedule(g);
    EXPECT_LT(latency(g, s, "sim:h100"), latency(g, s, "sim:a100"));
    EXPECT_LT(latency(g, s, "sim:a100"), latency(g, s, "sim:v100"));
    EXPECT_LT(latency(g, s, "sim:v100"), latency(g, s, "sim:k80"));
}

TEST(Simulator, DevicePresets)
{
    for (const char* name : { "sim:v100", "sim:a100", "sim:h100", "sim:t4", "sim:k80", "sim:rtx2080ti", "v100" })
        EXPECT_NO_THROW(findSimDevice(name)) << name;
    try {
        findSimDevice("sim:quantum");
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("sim:h100"), std::string::npos) << e.what();
    }
    EXPECT_EQ(findSimDevice("sim:h100").multiprocessors, 132);
}

TEST(Simulator, MergedConvRunsAsOneKernel)
{
    zoo::NetBuilder b("merge", 1);
    const auto x = b.input("x", Shape { 1, 64, 17, 17 });
    const auto m1 = b.conv("m1", { { x } }, 64, { 1, 3 }, 1, { 0, 1 });
    const auto m2 = b.conv("m2", { { x } }, 64, { 3, 1 }, 1, { 1, 0 });
    b.combine("cat", { { m1 }, { m2 } });
    const Graph g = std::move(b).finish();
    const Schedule merged { { Stage { StageStrategy::Merge, { { *g.findOp("m1") }, { *g.findOp("m2") } } },
        Stage { StageStrategy::Concurrent, { { *g.findOp("cat") } } } } };
    const Plan p = compileSchedule(g, merged);
    const SimResult r = simulate(g, p, findSimDevice("sim:v100"));
    EXPECT_EQ(r.kernels.size(), 1U); // one stacked conv; the plain concat is a view
    EXPECT_GT(r.latency, 0.0);
}

// --- Launch order: what a GPU does in submission order ------------------------------------------

// The same streams launched in two orders: ops by name, in launch order, with their streams.
Plan inOrder(const Graph& g, const std::vector<std::pair<const char*, std::uint32_t>>& order)
{
    std::vector<StreamId> streams(g.opCount());
    std::vector<OpId> ops;
    for (const auto& [name, stream] : order) {
        const OpId op = *g.findOp(name);
        streams[op.value()] = StreamId(stream);
        ops.push_back(op);
    }
    Plan plan = planOnStreams(g, streams, ops);
    EXPECT_TRUE(validate(g, plan).empty());
    return plan;
}

const KernelSpan& spanOf(const Graph& g, const Plan& p, const SimResult& r, const char* name)
{
    for (const auto& k : r.kernels)
        if (p.launches[k.launch].ops.front() == *g.findOp(name))
            return k;
    throw Error(std::string("no kernel of ") + name);
}

// A kernel that fills the GPU, submitted before a small one, keeps every lane until it ends (kernels
// are not preempted), so the small one waits for it; submitted after, it takes the lanes the small
// one leaves and both run. Same streams, same kernels: only the order differs.
TEST(LaunchOrder, AGpuFillingKernelSubmittedFirstBlocksASmallOne)
{
    zoo::NetBuilder b("blocking", 1);
    const auto x = b.input("x", Shape { 1, 64, 56, 56 });
    b.conv("big", { { x } }, 256, 3, 1, 1);
    b.conv("small", { { x } }, 32, 3, 2, 1);
    const Graph g = std::move(b).finish();
    const SimDevice& d = findSimDevice("sim:v100");
    const KernelTable table(g);
    ASSERT_EQ(demandedLanes(table.of(*g.findOp("big")).front(), d), d.lanes()); // the premise: it fills the GPU
    ASSERT_LT(demandedLanes(table.of(*g.findOp("small")).front(), d), d.lanes() / 2);

    const Plan bigFirst = inOrder(g, { { "big", 1 }, { "small", 0 } });
    const Plan smallFirst = inOrder(g, { { "small", 0 }, { "big", 1 } });
    for (const bool cudaGraph : { false, true }) {
        SCOPED_TRACE(cudaGraph ? "cuda graph" : "host launches");
        const SimOptions o { .cudaGraph = cudaGraph };
        const SimResult blocked = simulate(g, bigFirst, d, o);
        const SimResult free = simulate(g, smallFirst, d, o);
        EXPECT_GE(spanOf(g, bigFirst, blocked, "small").start, spanOf(g, bigFirst, blocked, "big").end)
            << "the small kernel waits for the lanes the big one holds";
        EXPECT_LT(spanOf(g, smallFirst, free, "small").end, spanOf(g, smallFirst, free, "big").end)
            << "submitted first, the small kernel runs beside the big one";
        EXPECT_GT(blocked.latency, 1.05 * free.latency)
            << "big first " << blocked.latency * 1e6 << " us, small first " << free.latency * 1e6 << " us";
    }
}

// After a join the device launches the released branches one at a time, earliest submitted first:
// the long branch (the critical path) launched last starts last and ends the run later, as when
// Opara defers the largest conv of an Inception block behind the small ones.
TEST(LaunchOrder, TheCriticalBranchLaunchedLastStartsLast)
{
    zoo::NetBuilder b("fork", 1);
    const auto x = b.input("x", Shape { 1, 192, 28, 28 });
    const auto head = b.conv("head", { { x } }, 192, 1);
    const auto l1 = b.conv("long1", { { head } }, 96, 1);
    const auto l2 = b.conv("long2", { { l1 } }, 128, 3, 1, 1);
    const auto s1 = b.conv("short1", { { head } }, 32, 1);
    const auto s2 = b.conv("short2", { { head } }, 32, 1);
    const auto s3 = b.relu("short3", { { head } });
    b.combine("cat", { { l2 }, { s1 }, { s2 }, { s3 } });
    const Graph g = std::move(b).finish();

    const Plan criticalFirst = inOrder(g,
        { { "head", 0 }, { "long1", 0 }, { "long2", 0 }, { "short1", 1 }, { "short2", 2 }, { "short3", 3 },
            { "cat", 0 } });
    const Plan criticalLast = inOrder(g,
        { { "head", 0 }, { "short1", 1 }, { "short2", 2 }, { "short3", 3 }, { "long1", 0 }, { "long2", 0 },
            { "cat", 0 } });
    for (const char* device : { "sim:h100", "sim:v100" })
        for (const bool cudaGraph : { false, true }) {
            SCOPED_TRACE(std::string(device) + (cudaGraph ? ", cuda graph" : ", host launches"));
            const SimDevice& d = findSimDevice(device);
            const SimOptions o { .cudaGraph = cudaGraph };
            const SimResult first = simulate(g, criticalFirst, d, o);
            const SimResult last = simulate(g, criticalLast, d, o);
            EXPECT_GT(spanOf(g, criticalLast, last, "long1").start, spanOf(g, criticalFirst, first, "long1").start);
            EXPECT_GT(last.latency, first.latency)
                << "critical branch first " << first.latency * 1e6 << " us, last " << last.latency * 1e6 << " us";
        }
}

// The order changes the estimate only through what the GPU does in order: in a CUDA graph (no host
// issue), with launches that cost nothing and kernels that fit the GPU together, two independent
// kernels take as long in either order.
TEST(LaunchOrder, WithoutLaunchCostTheOrderOfIndependentSmallKernelsDoesNotMatter)
{
    zoo::NetBuilder b("pair", 1);
    const auto x = b.input("x", Shape { 1, 64, 14, 14 });
    const auto a = b.conv("a", { { x } }, 64, 3, 1, 1);
    const auto c = b.conv("c", { { x } }, 64, 1);
    b.combine("cat", { { a }, { c } });
    const Graph g = std::move(b).finish();
    SimDevice d = findSimDevice("sim:h100");
    d.deviceLaunchSeconds = 0;
    const SimOptions o { .cudaGraph = true };
    const double ac = simulate(g, inOrder(g, { { "a", 0 }, { "c", 1 }, { "cat", 0 } }), d, o).latency;
    const double ca = simulate(g, inOrder(g, { { "c", 1 }, { "a", 0 }, { "cat", 0 } }), d, o).latency;
    EXPECT_NEAR(ac, ca, 1e-12);
}

// --- Active warps line up with the kernels -----------------------------------------------------

// The union of the kernels' intervals, merged and sorted.
template <typename Span, typename Time>
std::vector<std::pair<Time, Time>> busyIntervals(const std::vector<Span>& kernels, Time Span::*start, Time Span::*end)
{
    std::vector<std::pair<Time, Time>> spans;
    for (const auto& k : kernels)
        spans.emplace_back(k.*start, k.*end);
    std::sort(spans.begin(), spans.end());
    std::vector<std::pair<Time, Time>> merged;
    for (const auto& [from, to] : spans) {
        if (!merged.empty() && from <= merged.back().second)
            merged.back().second = std::max(merged.back().second, to);
        else
            merged.emplace_back(from, to);
    }
    return merged;
}

template <typename Time> bool covered(const std::vector<std::pair<Time, Time>>& busy, Time from, Time to, Time slack)
{
    for (const auto& [a, b] : busy)
        if (a <= from + slack && to <= b + slack)
            return true;
    return false;
}

template <typename Time> double total(const std::vector<std::pair<Time, Time>>& busy)
{
    double sum = 0;
    for (const auto& [a, b] : busy)
        sum += static_cast<double>(b - a);
    return sum;
}

class WarpsLineUp : public ::testing::TestWithParam<const char*> { };

// Every sample with active warps lies within the kernels' busy time, and the average is taken over
// that time (as for CUPTI data), in the simulator's result and in the run it records.
TEST_P(WarpsLineUp, OnEverySchedulerWithAndWithoutCudaGraph)
{
    const Graph g = loadModel(GetParam());
    const SimDevice& d = findSimDevice("sim:h100");
    const KernelTable table(g);
    SimulatedStageCost cost(d);
    for (const auto& name : schedulerNames()) {
        const SchedulerOutput out = runScheduler(name, g, cost);
        for (const bool cudaGraph : { false, true }) {
            SCOPED_TRACE(name + (cudaGraph ? " with cuda graph" : " without cuda graph"));
            const SimOptions options { .cudaGraph = cudaGraph };
            const SimResult r = simulate(g, out.plan, d, options, &table);
            ASSERT_FALSE(r.kernels.empty());
            const auto busy = busyIntervals(r.kernels, &KernelSpan::start, &KernelSpan::end);
            double area = 0;
            for (std::size_t i = 0; i + 1 < r.warps.size(); ++i) {
                const auto& w = r.warps[i];
                EXPECT_LE(w.time, r.warps[i + 1].time);
                if (w.activeWarps <= 0)
                    continue;
                EXPECT_TRUE(covered(busy, w.time, r.warps[i + 1].time, 1e-12))
                    << w.activeWarps << " warps from " << w.time * 1e6 << " us to " << r.warps[i + 1].time * 1e6
                    << " us outside every kernel";
                area += w.activeWarps * (r.warps[i + 1].time - w.time);
            }
            EXPECT_EQ(r.warps.back().activeWarps, 0.0);
            EXPECT_NEAR(r.averageActiveWarps, area / total(busy), 1e-9 * r.averageActiveWarps);
            EXPECT_GT(r.averageActiveWarps, 0.0);

            // The recorded run: nanosecond samples against nanosecond kernels.
            store::RunRecord run;
            profiler::fillSimulatedRun(run, g, out, d, { .sim = options, .repeats = 1, .warps = true });
            const auto busyNs = busyIntervals(run.kernels, &store::KernelRecord::start, &store::KernelRecord::end);
            double areaNs = 0;
            for (const auto& w : run.warps) {
                if (w.activeWarps <= 0)
                    continue;
                EXPECT_TRUE(covered(busyNs, w.timeNs, w.timeNs + w.durationNs, std::int64_t { 0 }))
                    << w.activeWarps << " warps at " << w.timeNs << " ns for " << w.durationNs << " ns";
                areaNs += w.activeWarps * static_cast<double>(w.durationNs);
            }
            ASSERT_TRUE(run.averageActiveWarps.has_value());
            EXPECT_NEAR(*run.averageActiveWarps, areaNs / total(busyNs), 1e-3 * *run.averageActiveWarps);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Zoo, WarpsLineUp,
    ::testing::Values(
        "zoo:inception_v3", "zoo:randwire", "zoo:nasnet_a", "zoo:squeezenet", "zoo:googlenet", "zoo:random"));

} // namespace

namespace opsched {
namespace {

TEST(SimulatorHost, HostCallsCoverTheRunEndToEndAndPrecedeTheirKernels)
{
    // The host row: calls back to back from 0 to the latency (the host is always doing something:
    // issuing, waiting, joining), never overlapping, and each kernel starts after its launch call.
    const Graph g = loadModel("zoo:inception_v3");
    const SimDevice& device = findSimDevice("sim:h100");
    SimulatedStageCost cost(device);
    for (const char* scheduler : { "sequential", "greedy", "nimble" })
        for (const bool graph : { false, true }) {
            const SchedulerOutput out = runScheduler(scheduler, g, cost, SchedulerParams {});
            SimOptions options;
            options.cudaGraph = graph;
            const SimResult r = simulate(g, out.plan, device, options);
            ASSERT_FALSE(r.host.empty()) << scheduler;
            EXPECT_NEAR(r.host.front().start, 0.0, 1e-12) << scheduler;
            EXPECT_NEAR(r.host.back().end, r.latency, 1e-9) << scheduler << (graph ? " graph" : "");
            for (std::size_t i = 1; i < r.host.size(); ++i) {
                EXPECT_NEAR(r.host[i].start, r.host[i - 1].end, 1e-9) << scheduler << " call " << i;
                EXPECT_GE(r.host[i].end, r.host[i].start);
            }
            std::vector<double> issued(out.plan.launches.size(), -1);
            std::size_t launches = 0;
            for (const auto& call : r.host)
                if (call.kind == HostCallKind::Launch) {
                    ++launches;
                    issued[call.launch] = std::max(issued[call.launch], call.end);
                }
            // One call per kernel without a graph; none with one (a single graph launch instead).
            EXPECT_EQ(launches, graph ? 0U : r.kernels.size()) << scheduler;
            if (!graph) {
                for (const auto& k : r.kernels)
                    EXPECT_GE(k.start, issued[k.launch] - 1e-12) << scheduler;
            }
        }
}

} // namespace
} // namespace opsched
