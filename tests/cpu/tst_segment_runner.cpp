// The segment runner (exec/segment_runner.h) with CPU executors: a mapping over two core
// partitions cut into segments gives the single-device outputs, segments wait for what they read,
// the cut follows its rule, and errors in a worker come back named without stalling anyone.
#include "exec/cpu/cpu_executor.h"
#include "exec/cpu/partition_runner.h"
#include "exec/segment_executors.h"
#include "exec/segment_plan.h"
#include "exec/segment_runner.h"
#include "model/model_ref.h"
#include "plan/plan.h"
#include "reference.h"
#include "schedule/basic_schedulers.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

using namespace opsched;
using opsched::test::maxAbsDiff;

namespace {

const char* kRwnn = "zoo:rwnn?gen=er&n=12&modules=2&channels=2&seed=3&res=32";

struct TwoDeviceMapping {
    std::vector<std::uint32_t> deviceOf;
    std::vector<std::vector<std::uint32_t>> order;
};

// A random topological order with each op on a random device; each device runs its ops in that
// order (so the orders agree with the graph).
TwoDeviceMapping randomMapping(const Graph& g, std::uint32_t devices, std::mt19937& rng)
{
    const std::size_t n = g.opCount();
    std::vector<std::size_t> pending(n);
    std::vector<std::size_t> ready;
    for (std::size_t i = 0; i < n; ++i)
        if ((pending[i] = g.predecessors(OpId(i)).size()) == 0)
            ready.push_back(i);
    TwoDeviceMapping m;
    m.deviceOf.resize(n);
    m.order.resize(devices);
    while (!ready.empty()) {
        const std::size_t k = std::uniform_int_distribution<std::size_t>(0, ready.size() - 1)(rng);
        const std::size_t op = ready[k];
        ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(k));
        const auto u = static_cast<std::uint32_t>(rng() % devices);
        m.deviceOf[op] = u;
        m.order[u].push_back(static_cast<std::uint32_t>(op));
        for (auto s : g.successors(OpId(op)))
            if (--pending[s] == 0)
                ready.push_back(s);
    }
    return m;
}

// Returns zeros of the right sizes after `work` (or throws when told to): orchestration without oneDNN.
class FakeExecutor final : public exec::SegmentExecutor {
public:
    FakeExecutor(const Graph& g, bool fail)
        : graph_(g)
        , fail_(fail)
    {
    }
    std::vector<std::vector<float>> run(const std::vector<std::vector<float>>&) override
    {
        if (fail_)
            throw Error("injected failure");
        std::vector<std::vector<float>> out;
        for (TensorId t : graph_.outputs())
            out.emplace_back(static_cast<std::size_t>(graph_.tensor(t).shape.elements()), 0.0F);
        return out;
    }

private:
    const Graph& graph_;
    bool fail_;
};

std::vector<std::vector<int>> twoPartitions()
{
    const auto cores = cpu::availableCores();
    if (cores.size() >= 2)
        return { { cores[0] }, { cores[1] } };
    return { { cores.at(0) }, { cores.at(0) } }; // one core: two executors on it, one after the other
}

} // namespace

TEST(SegmentPlan, CutsOnlyWhereANewCrossDeviceValueIsNeeded)
{
    const Graph g = loadModel(kRwnn);
    std::mt19937 rng(5);
    for (int trial = 0; trial < 30; ++trial) {
        const auto m = randomMapping(g, 2 + trial % 2, rng);
        const auto segments = exec::cutSegments(g, m.deviceOf, m.order);
        // Concatenated per device, the segments are the device's order.
        std::vector<std::vector<std::uint32_t>> joined(m.order.size());
        for (const auto& s : segments)
            for (OpId op : s.ops) {
                EXPECT_EQ(m.deviceOf[op.value()], s.device);
                joined[s.device].push_back(op.value());
            }
        EXPECT_EQ(joined, m.order);
        // Replays the rule: a device that waited for op q of device w holds w's values up to q.
        std::vector<std::size_t> position(g.opCount());
        for (const auto& ops : m.order)
            for (std::size_t i = 0; i < ops.size(); ++i)
                position[ops[i]] = i;
        std::vector<std::vector<std::size_t>> known(m.order.size(), std::vector<std::size_t>(m.order.size(), 0));
        std::uint32_t lastDevice = ~0U;
        for (const auto& s : segments) {
            auto& done = known[s.device];
            for (std::size_t i = 0; i < s.ops.size(); ++i) {
                bool needsNew = false;
                for (TensorId t : g.op(s.ops[i]).inputTensors()) {
                    const OpId p = g.tensor(t).producer;
                    if (!p.valid() || m.deviceOf[p.value()] == s.device)
                        continue;
                    auto& frontier = done[m.deviceOf[p.value()]];
                    if (position[p.value()] >= frontier) {
                        needsNew = true;
                        if (i == 0)
                            frontier = position[p.value()] + 1;
                    }
                }
                if (i > 0) {
                    EXPECT_FALSE(needsNew) << "op " << i << " of a segment waits for a value from another device";
                }
                // Maximal: a segment after another on the same device starts with a new wait.
                if (i == 0 && lastDevice == s.device) {
                    EXPECT_TRUE(needsNew) << "a cut before '" << g.op(s.ops[0]).name << "' that nothing needs";
                }
            }
            lastDevice = s.device;
        }
    }
}

TEST(SegmentPlan, RefusesBadOrders)
{
    const Graph g = loadModel(kRwnn);
    std::mt19937 rng(1);
    auto m = randomMapping(g, 2, rng);
    auto missing = m;
    missing.order[missing.deviceOf[0]].erase(
        std::find(missing.order[missing.deviceOf[0]].begin(), missing.order[missing.deviceOf[0]].end(), 0U));
    EXPECT_THROW(exec::cutSegments(g, missing.deviceOf, missing.order), Error);
    auto wrongDevice = m;
    wrongDevice.deviceOf[0] = 1 - wrongDevice.deviceOf[0];
    EXPECT_THROW(exec::cutSegments(g, wrongDevice.deviceOf, wrongDevice.order), Error);
}

TEST(SegmentRunner, TwoPartitionsGiveTheSingleDeviceOutputs)
{
    if (!cpu::cpuBackendAvailable())
        GTEST_SKIP() << "skipped: no CPU backend (oneDNN) in this build";
    const Graph g = loadModel(kRwnn);
    const auto inputs = cpu::seededInputs(g, 1);
    cpu::CpuExecutor single(g, compileSchedule(g, sequentialSchedule(g)));
    const auto want = single.run(inputs);
    const auto parts = twoPartitions();
    std::mt19937 rng(3);
    for (int trial = 0; trial < 4; ++trial) {
        const auto m = randomMapping(g, 2, rng);
        auto segments = exec::cutSegments(g, m.deviceOf, m.order);
        exec::SegmentRunner runner(g, segments, { "cpu:0", "cpu:1" },
            [&](const Subgraph& sub, std::uint32_t u) { return exec::makeCpuSegmentExecutor(sub.graph, parts[u]); });
        for (int run = 0; run < 3; ++run) {
            const auto got = runner.run(inputs);
            EXPECT_LT(maxAbsDiff(got, want), 1e-4F) << "trial " << trial << " run " << run;
        }
        // Every segment started after the segments it reads from ended, and each device ran its
        // segments one after another.
        const auto& times = runner.lastTimings();
        for (std::size_t s = 0; s < segments.size(); ++s) {
            EXPECT_LE(times[s].startNs, times[s].endNs);
            for (std::size_t p : runner.waitsFor()[s])
                EXPECT_GE(times[s].startNs, times[p].endNs) << runner.segmentLabel(s);
            if (s > 0 && segments[s - 1].device == segments[s].device) {
                EXPECT_GE(times[s].startNs, times[s - 1].endNs);
            }
        }
    }
}

TEST(SegmentRunner, AWorkerErrorIsRethrownNamedAndNothingStalls)
{
    const Graph g = loadModel(kRwnn);
    std::mt19937 rng(9);
    const auto m = randomMapping(g, 2, rng);
    const auto segments = exec::cutSegments(g, m.deviceOf, m.order);
    ASSERT_GE(segments.size(), 3U);
    // The first segment of device 1 fails; device 0's segments waiting on it must not hang.
    const auto failing = static_cast<std::size_t>(
        std::find_if(segments.begin(), segments.end(), [](const auto& s) { return s.device == 1; }) - segments.begin());
    exec::SegmentRunner runner(g, segments, { "cpu:0", "cuda:0" }, [&](const Subgraph& sub, std::uint32_t u) {
        const bool fail = u == 1 && sub.ops.front() == segments[failing].ops.front();
        return std::make_unique<FakeExecutor>(sub.graph, fail);
    });
    for (int run = 0; run < 2; ++run) {
        try {
            runner.run(cpu::seededInputs(g, 1));
            FAIL() << "the injected failure was not reported";
        } catch (const Error& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find("cuda:0, segment 0 of"), std::string::npos) << what;
            EXPECT_NE(what.find("injected failure"), std::string::npos) << what;
        }
    }
}

TEST(SegmentRunner, ABuildErrorIsReportedByTheConstructor)
{
    const Graph g = loadModel(kRwnn);
    std::mt19937 rng(2);
    const auto m = randomMapping(g, 2, rng);
    try {
        exec::SegmentRunner runner(g, exec::cutSegments(g, m.deviceOf, m.order), { "cpu", "cuda:0" },
            [&](const Subgraph& sub, std::uint32_t u) -> std::unique_ptr<exec::SegmentExecutor> {
                if (u == 1)
                    throw Error("no CUDA device (test)");
                return std::make_unique<FakeExecutor>(sub.graph, false);
            });
        FAIL() << "the build failure was not reported";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("cuda:0, segment 0 of"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("no CUDA device (test)"), std::string::npos) << e.what();
    }
}

TEST(SegmentRunner, RefusesOrdersThatWaitInACycle)
{
    const Graph g = loadModel(kRwnn);
    // Device 0 runs op 0 and the last op; device 1 the rest: fine. Then device 0 runs the last op
    // first, which waits for device 1, which waits for op 0: a cycle.
    const std::size_t n = g.opCount();
    std::vector<std::uint32_t> deviceOf(n, 1);
    deviceOf[0] = deviceOf[n - 1] = 0;
    std::vector<std::vector<std::uint32_t>> order(2);
    order[0] = { static_cast<std::uint32_t>(n - 1), 0U };
    for (std::uint32_t i = 1; i + 1 < n; ++i)
        order[1].push_back(i);
    const auto segments = exec::cutSegments(g, deviceOf, order);
    const auto factory
        = [&](const Subgraph& sub, std::uint32_t) { return std::make_unique<FakeExecutor>(sub.graph, false); };
    try {
        exec::SegmentRunner runner(g, segments, { "cpu:0", "cpu:1" }, factory);
        FAIL() << "orders that wait in a cycle were accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("cycle"), std::string::npos) << e.what();
    }
    order[0] = { 0U, static_cast<std::uint32_t>(n - 1) };
    exec::SegmentRunner ok(g, exec::cutSegments(g, deviceOf, order), { "cpu:0", "cpu:1" }, factory);
    EXPECT_EQ(ok.run(cpu::seededInputs(g, 1)).size(), g.outputs().size());
}
