// The GPU executor's arena (host side): values that may be in use at the same time on different
// streams never share bytes; bytes are reused where the plan orders the uses. Needs no GPU.
#include "exec/cuda/gpu_memory_plan.h"
#include "gpu_plan_cases.h"
#include "schedule/basic_schedulers.h"
#include "zoo/net_builder.h"

#include <gtest/gtest.h>

#include <set>

using namespace opsched;
using namespace opsched::gpu;

namespace {

// Two chains of three convs from one input, joined at the end: a chain's first output is dead
// once its second conv ran, so a one-stream arena would hand its bytes to the other chain.
Graph twoChains()
{
    zoo::NetBuilder nb("two_chains", 3);
    const TensorId x = nb.input("x", Shape { 1, 8, 16, 16 });
    TensorId a = x, b = x;
    for (int i = 1; i <= 3; ++i) {
        a = nb.conv("a" + std::to_string(i), { { a } }, 8, 3, 1, 1);
        b = nb.conv("b" + std::to_string(i), { { b } }, 8, 3, 1, 1);
    }
    nb.combine("c", { { a, b } });
    return std::move(nb).finish();
}

Launch launchOf(const Graph& g, const char* name, std::uint32_t stream, std::vector<std::uint32_t> waits = {})
{
    return Launch { { *g.findOp(name) }, StreamId(stream), std::move(waits) };
}

struct Range {
    std::int64_t begin, end;
    bool overlaps(const Range& o) const { return begin < o.end && o.begin < end; }
};

Range bytesOf(const GpuMemoryPlan& plan, const cpu::TensorLayout& layout, const Graph& g, const char* op)
{
    const int v = layout.valueOf(g.op(*g.findOp(op)).output);
    return { plan.offset(v), plan.offset(v) + layout.values()[static_cast<std::size_t>(v)].bytes() };
}

class ArenaOnPlans : public ::testing::TestWithParam<test::PlanCase> { };

TEST_P(ArenaOnPlans, PossiblyConcurrentValuesNeverShareBytes)
{
    const auto& c = GetParam();
    const Graph g = loadModel(c.model, c.batch);
    const Plan plan = test::planFor(g, c.scheduler);
    const cpu::TensorLayout layout(g, plan);
    const GpuMemoryPlan arena(g, plan, layout);
    const auto problems = arena.conflicts();
    EXPECT_TRUE(problems.empty()) << problems.size() << " problems, first: " << problems.front();
    // Reuse still happens, and never below what one op needs at once: its inputs and its output
    // are live together. (The CPU layout's own peak is no bound: it packs for oneDNN's layouts
    // and partitions, and may well need more than the GPU.)
    EXPECT_LT(arena.arenaBytes(), layout.activationBytes());
    std::int64_t oneOp = 0;
    for (const Op& op : g.ops()) {
        std::set<int> live;
        for (TensorId t : op.inputTensors())
            if (layout.valueOf(t) >= 0)
                live.insert(layout.valueOf(t));
        if (layout.valueOf(op.output) >= 0)
            live.insert(layout.valueOf(op.output));
        std::int64_t bytes = 0;
        for (int v : live)
            bytes += layout.values()[static_cast<std::size_t>(v)].bytes();
        oneOp = std::max(oneOp, bytes);
    }
    EXPECT_GE(arena.arenaBytes(), oneOp);
    const GpuMemoryPlan separate(g, plan, layout, ArenaReuse::Never);
    EXPECT_TRUE(separate.conflicts().empty());
    EXPECT_GE(separate.arenaBytes(), arena.arenaBytes());
}

INSTANTIATE_TEST_SUITE_P(Schedulers, ArenaOnPlans, ::testing::ValuesIn(test::planCases()),
    [](const auto& param) { return test::caseName(param.param); });

TEST(GpuArena, UnorderedChainsOnTwoStreamsGetSeparateBytes)
{
    const Graph g = twoChains();
    Plan plan;
    plan.streams = 2;
    // Chain a runs first in launch order, chain b after it on another stream with no wait.
    plan.launches = { launchOf(g, "a1", 0), launchOf(g, "a2", 0), launchOf(g, "a3", 0), launchOf(g, "b1", 1),
        launchOf(g, "b2", 1), launchOf(g, "b3", 1), launchOf(g, "c", 0, { 5 }) };
    const cpu::TensorLayout layout(g, plan);
    // The one-stream layout reuses chain a's dead bytes for chain b's outputs...
    const auto& values = layout.values();
    const auto cpuRange = [&](const char* op) {
        const auto& v = values[static_cast<std::size_t>(layout.valueOf(g.op(*g.findOp(op)).output))];
        return Range { v.arenaOffset, v.arenaOffset + v.bytes() };
    };
    bool cpuReuses = false;
    for (const char* a : { "a1", "a2", "a3" })
        for (const char* b : { "b1", "b2", "b3" })
            cpuReuses = cpuReuses || cpuRange(a).overlaps(cpuRange(b));
    ASSERT_TRUE(cpuReuses) << "the case must be one where launch order alone would share bytes";
    // ...which would race here: chain b may run while chain a still reads those bytes.
    const GpuMemoryPlan arena(g, plan, layout);
    EXPECT_TRUE(arena.conflicts().empty());
    for (const char* a : { "a1", "a2", "a3" })
        for (const char* b : { "b1", "b2", "b3" })
            EXPECT_FALSE(bytesOf(arena, layout, g, a).overlaps(bytesOf(arena, layout, g, b))) << a << " / " << b;
}

TEST(GpuArena, OrderedChainsReuseBytes)
{
    const Graph g = twoChains();
    Plan plan;
    plan.streams = 2;
    // b1 waits for a2: a1 is dead before chain b starts, so its bytes may be reused.
    plan.launches = { launchOf(g, "a1", 0), launchOf(g, "a2", 0), launchOf(g, "a3", 0), launchOf(g, "b1", 1, { 1 }),
        launchOf(g, "b2", 1), launchOf(g, "b3", 1), launchOf(g, "c", 0, { 5 }) };
    const cpu::TensorLayout layout(g, plan);
    const GpuMemoryPlan arena(g, plan, layout);
    EXPECT_TRUE(arena.conflicts().empty());
    const Range a1 = bytesOf(arena, layout, g, "a1");
    bool reused = false;
    for (const char* b : { "b1", "b2" })
        reused = reused || a1.overlaps(bytesOf(arena, layout, g, b));
    EXPECT_TRUE(reused) << "a1's bytes are free once b1 is ordered after a2";
    const GpuMemoryPlan separate(g, plan, layout, ArenaReuse::Never);
    EXPECT_LT(arena.arenaBytes(), separate.arenaBytes());
}

TEST(GpuArena, SequentialPlanNeedsNoMoreThanTheCpuLayout)
{
    // One stream orders everything, so concurrency costs no bytes.
    const Graph g = loadModel("zoo:inception_v3");
    const Plan plan = compileSchedule(g, sequentialSchedule(g));
    const cpu::TensorLayout layout(g, plan);
    const GpuMemoryPlan arena(g, plan, layout);
    EXPECT_TRUE(arena.conflicts().empty());
    EXPECT_LE(arena.arenaBytes(), layout.peakBytes() * 11 / 10);
}

} // namespace

namespace {

TEST(GpuArena, NasnetUnderNimbleIsSafe)
{
    // The widest zoo network (15 ops side by side) under a many-stream plan.
    const Graph g = loadModel("zoo:nasnet_a");
    const Plan plan = test::planFor(g, "nimble");
    const cpu::TensorLayout layout(g, plan);
    const GpuMemoryPlan arena(g, plan, layout);
    const auto problems = arena.conflicts();
    EXPECT_TRUE(problems.empty()) << problems.size() << " problems, first: " << problems.front();
    EXPECT_LT(arena.arenaBytes(), layout.activationBytes());
    std::printf("nasnet_a nimble: %u streams, arena %.1f MiB, one-stream layout %.1f MiB, no reuse %.1f MiB\n",
        plan.streams, static_cast<double>(arena.arenaBytes()) / (1 << 20),
        static_cast<double>(layout.peakBytes()) / (1 << 20), static_cast<double>(layout.activationBytes()) / (1 << 20));
}

} // namespace
