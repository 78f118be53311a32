// Channels-last activations, convolution epilogues (residual sum, swish) and Winograd
// convolutions against the naive reference, each switched on and off, at batch 1 and 2; which
// tensors end up channels-last; and the NHWC <-> NCHW transposes of channels-last graphs as views.
#include "exec/cpu/channels_last.h"
#include "exec/cpu/cpu_executor.h"
#include "graph/graph_builder.h"
#include "model/model_ref.h"
#include "reference.h"
#include "schedule/basic_schedulers.h"
#include "support/test_layers.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace opsched;
using opsched::test::conv;
using opsched::test::layer;
using opsched::test::maxAbsDiff;
using opsched::test::referenceRun;

namespace {

// conv -> conv -> Add(+relu) of the two -> conv -> x * sigmoid(x) -> max pool -> x *
// hardsigmoid(x) -> 1x1 convs -> sum -> global pool.
Graph epilogueGraph(std::int64_t batch)
{
    GraphBuilder b("epilogues_b" + std::to_string(batch), 3);
    const auto x = b.addInput("x", Shape { batch, 3, 7, 7 });
    const auto c1 = b.addOp({ "c1", OpKind::Conv, { { x } }, { layer(conv(16, 3, 3, 1, 1), Activation::relu()) } });
    const auto c2 = b.addOp({ "c2", OpKind::Conv, { { c1 } }, { layer(conv(16, 3, 3, 1, 1)) } });
    const auto add = b.addOp({ "add", OpKind::Add, { { c2, c1 } }, { layer(Identity {}, Activation::relu()) } });
    const auto c3 = b.addOp({ "c3", OpKind::Conv, { { add } }, { layer(conv(16, 1, 1)) } });
    const auto sig
        = b.addOp({ "sig", OpKind::Activation, { { c3 } }, { layer(Eltwise { { ActivationKind::Sigmoid } }) } });
    const auto mul = b.addOp({ "mul", OpKind::Multiply, { { c3 }, { sig } }, { layer(Multiply {}) } });
    // x * hardsigmoid(x / 6 + 1/2) after a pool: HardSwish as the pool's activation.
    const auto pooled = b.addOp(
        { "maxpool", OpKind::Pool, { { mul } }, { layer(Pool2d { PoolKind::Max, 3, 3, 1, 1, 1, 1, 1, 1 }) } });
    const auto hs = b.addOp({ "hsig", OpKind::Activation, { { pooled } },
        { layer(Eltwise { { ActivationKind::HardSigmoid, 1.0F / 6.0F, 0.5F } }) } });
    const auto hswish = b.addOp({ "hswish", OpKind::Multiply, { { pooled }, { hs } }, { layer(Multiply {}) } });
    const auto c4 = b.addOp({ "c4", OpKind::Conv, { { hswish } }, { layer(conv(8, 1, 1)) } });
    // A residual whose other operand is produced later: not folded into c5.
    const auto c5 = b.addOp({ "c5", OpKind::Conv, { { mul } }, { layer(conv(8, 3, 3, 1, 1)) } });
    const auto c6 = b.addOp({ "c6", OpKind::Conv, { { mul } }, { layer(conv(8, 1, 1)) } });
    const auto add2 = b.addOp({ "add2", OpKind::Add, { { c5, c6, c4 } }, { layer(Identity {}) } });
    b.addOp({ "pool", OpKind::Pool, { { add2 } }, { layer(Pool2d { PoolKind::GlobalAverage }) } });
    return std::move(b).finish();
}

class Layouts : public ::testing::TestWithParam<std::tuple<bool, bool>> { };

TEST_P(Layouts, MatchReference)
{
    const auto [channelsLast, fuse] = GetParam();
    for (std::int64_t batch : { 1, 2 }) {
        const Graph g = epilogueGraph(batch);
        const auto inputs = cpu::seededInputs(g, 3);
        cpu::CpuOptions o;
        o.threads = 1;
        o.channelsLast = channelsLast;
        o.fuseEpilogues = fuse;
        cpu::CpuExecutor ex(g, compileSchedule(g, sequentialSchedule(g)), o);
        const auto got = ex.run(inputs);
        const auto want = referenceRun(g, inputs);
        float scale = 1.0F;
        for (const auto& out : want)
            for (float v : out)
                scale = std::max(scale, std::abs(v));
        EXPECT_LE(maxAbsDiff(got, want), 2e-5F * scale) << "batch " << batch;
        const auto problems = ex.layout().check();
        EXPECT_TRUE(problems.empty()) << problems.front();
        // Folded: the residual Add into c2, x * sigmoid(x) into c3, x * hardsigmoid(x) into the
        // pool; the 3-term Add is not a residual.
        EXPECT_EQ(ex.layout().epilogues().size(), fuse ? 3U : 0U);
        EXPECT_EQ(ex.layout()
                      .values()[static_cast<std::size_t>(ex.layout().valueOf(g.op(*g.findOp("c1")).output))]
                      .channelsLast,
            channelsLast);
        EXPECT_EQ(ex.run(inputs), got) << "a second run differs";
    }
}

INSTANTIATE_TEST_SUITE_P(Cpu, Layouts, ::testing::Combine(::testing::Bool(), ::testing::Bool()), [](const auto& p) {
    return std::string(std::get<0>(p.param) ? "nhwc" : "nchw") + (std::get<1>(p.param) ? "_fused" : "_unfused");
});

TEST(Winograd, LargeThreeByThreeConvsMatchReference)
{
    // 3x3 stride 1 with 32+ channels on 16x16 runs as Winograd; its rounding error stays small.
    GraphBuilder b("winograd", 3);
    const auto x = b.addInput("x", Shape { 1, 32, 16, 16 });
    const auto c1 = b.addOp({ "c1", OpKind::Conv, { { x } }, { layer(conv(48, 3, 3, 1, 1), Activation::relu()) } });
    const auto c2 = b.addOp({ "c2", OpKind::Conv, { { c1 } }, { layer(conv(32, 3, 3, 1, 1)) } });
    b.addOp({ "add", OpKind::Add, { { c2, x } }, { layer(Identity {}) } });
    const Graph g = std::move(b).finish();
    const auto inputs = cpu::seededInputs(g, 9);
    const auto want = referenceRun(g, inputs);
    float scale = 1.0F;
    for (const auto& out : want)
        for (float v : out)
            scale = std::max(scale, std::abs(v));
    for (bool winograd : { false, true }) {
        cpu::CpuOptions o;
        o.threads = 1;
        o.winograd = winograd;
        cpu::CpuExecutor ex(g, compileSchedule(g, sequentialSchedule(g)), o);
        EXPECT_LE(maxAbsDiff(ex.run(inputs), want), (winograd ? 1e-4F : 2e-5F) * scale) << "winograd " << winograd;
    }
}

TEST(ChannelsLast, OnlyLayoutFreeChainsAndNeverInputsOutputsOrMergedOutputs)
{
    const Graph g = loadModel("zoo:squeezenet");
    const Plan plan = compileSchedule(g, sequentialSchedule(g));
    const auto cl = cpu::channelsLastTensors(g, plan);
    EXPECT_FALSE(cl[g.inputs().front().value()]);
    for (auto t : g.outputs())
        EXPECT_FALSE(cl[t.value()]);
    std::size_t marked = 0;
    for (const auto& t : g.tensors())
        marked += cl[t.id.value()] ? 1 : 0;
    EXPECT_GT(marked, g.opCount() / 2); // the conv chains
    EXPECT_EQ(cpu::channelsLastTensors(g, plan, false), std::vector<bool>(g.tensors().size(), false));
}

TEST(ChannelsLast, WholeNetworksAgreeWithNchw)
{
    for (const char* model : { "zoo:squeezenet", "zoo:googlenet" }) {
        const Graph g = loadModel(model);
        const Plan plan = compileSchedule(g, sequentialSchedule(g));
        const auto inputs = cpu::seededInputs(g, 1);
        cpu::CpuOptions nchw;
        nchw.channelsLast = false;
        nchw.fuseEpilogues = false;
        const auto want = cpu::CpuExecutor(g, plan, nchw).run(inputs);
        float scale = 1.0F;
        for (const auto& out : want)
            for (float v : out)
                scale = std::max(scale, std::abs(v));
        EXPECT_LE(maxAbsDiff(cpu::CpuExecutor(g, plan).run(inputs), want), 1e-4F * scale) << model;
    }
}

// tf2onnx's habit: an NHWC input transposed to NCHW for the convolutions, and back at the end.
// With channels-last activations both transposes are the same bytes under other dims: no step
// runs for them, and the result is the naive reference's. `flattened`: the NCHW tensor is also
// read by an op that needs NCHW bytes, so the first transpose must really move them.
Graph nhwcGraph(bool flattened)
{
    GraphBuilder b(flattened ? "nhwc_flattened" : "nhwc", 5);
    const auto x = b.addInput("x", Shape { 1, 12, 10, 3 });
    const auto nchw = b.addOp({ "to_nchw", OpKind::Transpose, { { x } }, { layer(Transpose { { 0, 3, 1, 2 } }) } });
    const auto c1 = b.addOp({ "c1", OpKind::Conv, { { nchw } }, { layer(conv(8, 3, 3, 1, 1), Activation::relu()) } });
    const auto c2 = b.addOp({ "c2", OpKind::Conv, { { c1 } }, { layer(conv(4, 1, 1)) } });
    b.addOp({ "to_nhwc", OpKind::Transpose, { { c2 } }, { layer(Transpose { { 0, 2, 3, 1 } }) } });
    if (flattened)
        b.addOp({ "flat", OpKind::Reshape, { { nchw } }, { layer(Flatten { 1 }) } });
    return std::move(b).finish();
}

TEST(ChannelsLast, NhwcTransposesOfChannelsLastGraphsAreViews)
{
    for (bool flattened : { false, true }) {
        const Graph g = nhwcGraph(flattened);
        const auto inputs = cpu::seededInputs(g, 4);
        const auto want = referenceRun(g, inputs);
        for (bool channelsLast : { true, false }) {
            SCOPED_TRACE(std::string(flattened ? "flattened, " : "") + (channelsLast ? "nhwc" : "nchw"));
            cpu::CpuOptions o;
            o.threads = 1;
            o.channelsLast = channelsLast;
            cpu::CpuExecutor ex(g, compileSchedule(g, sequentialSchedule(g)), o);
            EXPECT_LE(maxAbsDiff(ex.run(inputs), want), 2e-5F);
            const auto problems = ex.layout().check();
            EXPECT_TRUE(problems.empty()) << problems.front();
            const bool firstIsView = channelsLast && !flattened;
            EXPECT_EQ(ex.layout().layoutView(*g.findOp("to_nchw")), firstIsView);
            EXPECT_EQ(ex.layout().layoutView(*g.findOp("to_nhwc")), channelsLast);
            int transposeSteps = 0;
            for (const auto& p : ex.primitives())
                transposeSteps += p.op == "to_nchw" || p.op == "to_nhwc" ? 1 : 0;
            EXPECT_EQ(transposeSteps, (firstIsView ? 0 : 1) + (channelsLast ? 0 : 1));
        }
    }
}

} // namespace
