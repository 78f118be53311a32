// Arena placement and the CPU tensor layout: no two buffers live at the same time share bytes,
// buffers are reused, and concat / merge outputs are written in place. Needs no oneDNN.
#include "exec/cpu/memory_plan.h"
#include "exec/cpu/tensor_layout.h"
#include "graph/graph_builder.h"
#include "model/model_ref.h"
#include "schedule/basic_schedulers.h"
#include "schedule/schedulers.h"
#include "sim/sim_device.h"
#include "util/error.h"
#include "util/random.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>

using namespace opsched;
using namespace opsched::cpu;

namespace {

Plan planFor(const Graph& g, const std::string& scheduler)
{
    SimulatedStageCost cost(findSimDevice("sim:v100"));
    return runScheduler(scheduler, g, cost).plan;
}

const Value& valueOf(const TensorLayout& layout, const Graph& g, const char* op)
{
    return layout.values()[static_cast<std::size_t>(layout.valueOf(g.op(*g.findOp(op)).output))];
}

TEST(PlaceBlocks, ReusesBytesOfBlocksThatAreNotLiveTogether)
{
    const std::vector<Block> blocks { { 1000, 0, 1 }, { 1000, 2, 3 }, { 500, 1, 2 } };
    const Placement p = placeBlocks(blocks);
    EXPECT_TRUE(placementConflicts(blocks, p).empty());
    EXPECT_EQ(p.offsets[0], p.offsets[1]); // same bytes, at different times
    EXPECT_EQ(p.peakBytes, 1024 + 512);
}

TEST(PlaceBlocks, RandomBlocksNeverConflictAndStayNearTheLowerBound)
{
    SplitMix64 rng(11);
    std::vector<Block> blocks;
    for (int i = 0; i < 300; ++i) {
        const auto first = static_cast<std::uint32_t>(rng.below(100));
        blocks.push_back({ static_cast<std::int64_t>(1 + rng.below(1 << 16)), first,
            first + static_cast<std::uint32_t>(rng.below(10)) });
    }
    const Placement p = placeBlocks(blocks);
    EXPECT_TRUE(placementConflicts(blocks, p).empty());
    std::int64_t lowerBound = 0, total = 0;
    for (std::uint32_t step = 0; step < 110; ++step) {
        std::int64_t live = 0;
        for (const auto& b : blocks)
            live += b.first <= step && step <= b.last ? b.bytes : 0;
        lowerBound = std::max(lowerBound, live);
    }
    for (const auto& b : blocks)
        total += b.bytes;
    EXPECT_GE(p.peakBytes, lowerBound);
    EXPECT_LT(p.peakBytes, lowerBound * 3 / 2);
    EXPECT_LT(p.peakBytes, total);
}

TEST(PlaceBlocks, DetectsConflicts)
{
    const std::vector<Block> blocks { { 100, 0, 2 }, { 100, 1, 3 } };
    EXPECT_FALSE(placementConflicts(blocks, Placement { { 0, 0 }, 128 }).empty());
    EXPECT_TRUE(placementConflicts(blocks, Placement { { 0, 128 }, 256 }).empty());
}

struct ZooCase {
    const char* model;
    const char* scheduler;
    std::int64_t batch;
};

// How gtest shows a case (instead of its bytes).
void PrintTo(const ZooCase& c, std::ostream* os)
{
    *os << c.model << " " << c.scheduler << " batch " << c.batch;
}

class LayoutOnZoo : public ::testing::TestWithParam<ZooCase> { };

TEST_P(LayoutOnZoo, LiveTensorsNeverShareBytesAndBuffersAreReused)
{
    const auto& c = GetParam();
    const Graph g = loadModel(c.model, c.batch);
    const TensorLayout layout(g, planFor(g, c.scheduler));
    const auto problems = layout.check();
    EXPECT_TRUE(problems.empty()) << problems.size() << " problems, first: " << problems.front();
    EXPECT_LT(layout.peakBytes(), layout.activationBytes() / 2);
    for (const auto& t : g.tensors()) {
        if (t.role != TensorRole::Weight) {
            EXPECT_GE(layout.valueOf(t.id), 0) << t.name;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Zoo, LayoutOnZoo,
    ::testing::Values(ZooCase { "zoo:squeezenet", "sequential", 1 }, ZooCase { "zoo:squeezenet", "ios-merge", 1 },
        ZooCase { "zoo:squeezenet", "ios-merge", 2 }, ZooCase { "zoo:googlenet", "greedy", 1 },
        ZooCase { "zoo:googlenet", "ios", 1 }, ZooCase { "zoo:inception_v3", "ios-merge", 1 },
        ZooCase { "zoo:inception_v3", "sequential", 2 }, ZooCase { "zoo:nasnet_a", "sequential", 1 },
        ZooCase { "zoo:randwire", "greedy", 1 }, ZooCase { "zoo:random?ops=60&width=6&seed=3", "ios", 1 }),
    [](const auto& param) {
        std::string name = std::string(param.param.model).substr(4, 10) + "_" + param.param.scheduler + "_b"
            + std::to_string(param.param.batch);
        for (auto& ch : name)
            if (!std::isalnum(static_cast<unsigned char>(ch)))
                ch = '_';
        return name;
    });

TEST(Layout, ConcatInputsAreWrittenInPlaceAtBatchOneInNchw)
{
    const Graph g = loadModel("zoo:googlenet");
    const TensorLayout layout(g, compileSchedule(g, sequentialSchedule(g)), LayoutOptions { .channelsLast = false });
    const Value& cat = valueOf(layout, g, "inception3a.concat");
    const Value& b1 = valueOf(layout, g, "inception3a.branch1");
    const Value& b2 = valueOf(layout, g, "inception3a.branch2");
    EXPECT_EQ(b1.root, cat.root);
    EXPECT_EQ(b1.arenaOffset, cat.arenaOffset);
    EXPECT_EQ(b2.arenaOffset, cat.arenaOffset + b1.bytes());
    EXPECT_TRUE(layout.check().empty());
}

TEST(Layout, ChannelsLastKeepsConvChainsNhwcAndConcatsAsCopies)
{
    // A channel slice of NHWC bytes is strided: the branches are blocks of their own.
    const Graph g = loadModel("zoo:googlenet");
    const TensorLayout layout(g, compileSchedule(g, sequentialSchedule(g)));
    const Value& cat = valueOf(layout, g, "inception3a.concat");
    const Value& b1 = valueOf(layout, g, "inception3a.branch1");
    EXPECT_TRUE(cat.channelsLast);
    EXPECT_TRUE(b1.channelsLast);
    EXPECT_NE(b1.root, cat.root);
    EXPECT_TRUE(layout.check().empty());
    // Graph inputs and outputs are NCHW, and nothing with one spatial position is marked.
    for (const auto& v : layout.values()) {
        if (v.tensor.valid()
            && (g.tensor(v.tensor).role == TensorRole::Input
                || std::find(g.outputs().begin(), g.outputs().end(), v.tensor) != g.outputs().end())) {
            EXPECT_FALSE(v.channelsLast) << v.name;
        }
        if (v.dims.size() != 4 || v.dims[2] * v.dims[3] == 1) {
            EXPECT_FALSE(v.channelsLast) << v.name;
        }
    }
}

TEST(Layout, MergedStackLandsInTheConcatInItsOrder)
{
    // SqueezeNet concatenates expand3x3 before expand1x1; the merged launch may list them either way.
    const Graph g = loadModel("zoo:squeezenet");
    const Plan plan = planFor(g, "ios-merge");
    const TensorLayout layout(g, plan);
    bool found = false;
    for (std::size_t i = 0; i < plan.launches.size(); ++i) {
        const auto& ll = layout.launch(i);
        if (ll.stack < 0 || g.op(ll.stackOrder.front()).name != "fire2.expand3x3")
            continue;
        found = true;
        EXPECT_TRUE(ll.outputsAreSlices);
        EXPECT_EQ(g.op(ll.stackOrder.back()).name, "fire2.expand1x1");
        EXPECT_EQ(ll.channelOffsets, (std::vector<std::int64_t> { 0, 64 }));
    }
    EXPECT_TRUE(found);
    const Value& cat = valueOf(layout, g, "fire2.concat");
    EXPECT_EQ(valueOf(layout, g, "fire2.expand3x3").arenaOffset, cat.arenaOffset);
    EXPECT_EQ(valueOf(layout, g, "fire2.expand1x1").arenaOffset, cat.arenaOffset + cat.bytes() / 2);
}

TEST(Layout, NoSlicesAtLargerBatches)
{
    const Graph g = loadModel("zoo:squeezenet", 2);
    const TensorLayout layout(g, planFor(g, "ios-merge"));
    for (const auto& v : layout.values()) {
        if (v.parent >= 0) {
            EXPECT_TRUE(v.view) << v.name << " is a slice at batch 2";
        }
    }
}

TEST(Layout, RejectsAnInvalidPlan)
{
    const Graph g = loadModel("zoo:squeezenet");
    Plan plan = compileSchedule(g, sequentialSchedule(g));
    plan.launches.pop_back();
    EXPECT_THROW(TensorLayout(g, plan), Error);
}

// Operand layers (Binary, MatMul, Concat) read their terms where they are: no combined input
// buffer; their operands stay live until they run; views after them stay zero-copy.
TEST(Layout, OperandLayersReadTheirTermsInPlace)
{
    auto layer = [](LayerParams p) {
        Layer l;
        l.params = std::move(p);
        return l;
    };
    GraphBuilder b("operands", 3);
    const auto x = b.addInput("x", Shape { 2, 3, 4 });
    const auto y = b.addInput("y", Shape { 3, 4 });
    const auto t = b.addOp({ "t", OpKind::Transpose, { { x } }, { layer(Transpose { { 0, 2, 1 } }) } });
    const auto sum = b.addOp({ "sub", OpKind::Subtract, { { x }, { y } }, { layer(Binary { BinaryKind::Sub }) } });
    const auto mm = b.addOp({ "mm", OpKind::MatMul, { { sum }, { t } }, { layer(MatMul {}) } });
    b.addOp({ "flat", OpKind::Reshape, { { mm } }, { layer(Reshape { { 0, -1 } }) } });
    b.addOp({ "cat", OpKind::Concat, { { mm }, { mm } }, { layer(Concat { 2, {} }) } });
    const Graph g = std::move(b).finish();
    const Plan plan = compileSchedule(g, sequentialSchedule(g));
    const TensorLayout layout(g, plan);
    EXPECT_TRUE(layout.check().empty()) << layout.check().front();
    for (const char* name : { "sub", "mm", "cat" }) {
        const OpLayout& ol = layout.op(*g.findOp(name));
        EXPECT_EQ(ol.input, -1) << name;
        EXPECT_FALSE(ol.combine) << name;
    }
    for (const auto& v : layout.values())
        EXPECT_EQ(v.name.find(":input"), std::string::npos) << v.name << " is a combined input";
    // The transpose output is read by mm alone: live until mm's launch, not longer.
    std::size_t mmLaunch = 0;
    for (std::size_t i = 0; i < plan.launches.size(); ++i)
        if (plan.launches[i].ops.front() == *g.findOp("mm"))
            mmLaunch = i;
    EXPECT_EQ(valueOf(layout, g, "t").last, layout.launchStep(mmLaunch));
    const Value& flat = valueOf(layout, g, "flat");
    EXPECT_TRUE(flat.view);
    EXPECT_EQ(flat.arenaOffset, valueOf(layout, g, "mm").arenaOffset);
}

} // namespace
