// The oneDNN executor against the naive reference (reference.h) on small graphs of every layer
// kind, at batch 1 (in-place concats, slices) and batch 2 (copies, strided slices).
#include "exec/cpu/cpu_executor.h"
#include "graph/graph_builder.h"
#include "reference.h"
#include "schedule/basic_schedulers.h"
#include "support/test_layers.h"
#include "util/error.h"
#include "zoo/net_builder.h"

#include <gtest/gtest.h>
#include <ostream>

#include <cmath>

using namespace opsched;
using opsched::test::maxAbsDiff;
using opsched::test::referenceRun;

using opsched::test::conv;
using opsched::test::ConvCase;
using opsched::test::layer;
using opsched::test::PoolCase;

namespace {

// Tiny tensors: one thread is plenty, and keeps the tests quick when ctest runs several at once.
const cpu::CpuOptions kOneThread = [] {
    cpu::CpuOptions o;
    o.threads = 1;
    return o;
}();

Plan sequentialPlan(const Graph& g)
{
    return compileSchedule(g, sequentialSchedule(g));
}

// Runs the graph on oneDNN with `plan` (sequential by default) and on the reference.
void expectMatchesReference(const Graph& g, const Plan* plan = nullptr, float tolerance = 2e-5F)
{
    const auto inputs = cpu::seededInputs(g, 5);
    cpu::CpuExecutor ex(g, plan ? *plan : sequentialPlan(g), kOneThread);
    const auto got = ex.run(inputs);
    const auto want = referenceRun(g, inputs);
    float scale = 1.0F;
    for (const auto& o : want)
        for (float v : o)
            scale = std::max(scale, std::abs(v));
    EXPECT_LE(maxAbsDiff(got, want), tolerance * scale) << g.name();
    const auto problems = ex.layout().check();
    EXPECT_TRUE(problems.empty()) << problems.front();
    EXPECT_EQ(ex.run(inputs), got) << "a second run differs";
}

class ConvLayers : public ::testing::TestWithParam<ConvCase> { };

TEST_P(ConvLayers, MatchReference)
{
    expectMatchesReference(opsched::test::graphOf(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Cpu, ConvLayers, ::testing::ValuesIn(opsched::test::convCases()),
    [](const auto& param) { return std::string(param.param.name); });

class PoolLayers : public ::testing::TestWithParam<PoolCase> { };

TEST_P(PoolLayers, MatchReference)
{
    expectMatchesReference(opsched::test::graphOf(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Cpu, PoolLayers, ::testing::ValuesIn(opsched::test::poolCases()),
    [](const auto& param) { return std::string(param.param.name); });

TEST(CpuLayers, StandaloneEltwiseOfEveryKind)
{
    for (auto act : { Activation::relu(), Activation::relu6(), Activation { ActivationKind::Sigmoid },
             Activation { ActivationKind::HardSigmoid, 0.25F, 0.4F }, Activation { ActivationKind::HardSwish },
             Activation { ActivationKind::Tanh } }) {
        GraphBuilder b(std::string("eltwise_") + toString(act.kind), 3);
        const auto x = b.addInput("x", Shape { 2, 3, 4, 5 });
        // The layer's own activation, then a fused one on top.
        const auto y
            = b.addOp({ "act", OpKind::Activation, { { x } }, { layer(Eltwise { act }, { ActivationKind::Tanh }) } });
        b.addOp({ "act2", OpKind::Activation, { { y } }, { layer(Eltwise { act }) } });
        expectMatchesReference(std::move(b).finish());
    }
}

TEST(CpuLayers, MultiplyBroadcasts)
{
    GraphBuilder b("multiply", 3);
    const auto x = b.addInput("x", Shape { 2, 4, 5, 5 });
    const auto s = b.addInput("s", Shape { 2, 4, 1, 1 });
    const auto r = b.addInput("r", Shape { 4, 1, 1 }); // lower rank: aligned right
    const auto row = b.addInput("row", Shape { 2, 1, 5, 1 });
    const auto col = b.addInput("col", Shape { 2, 4, 1, 5 });
    b.addOp({ "se", OpKind::Multiply, { { s }, { x }, { r } }, { layer(Multiply {}, { ActivationKind::Sigmoid }) } });
    // No operand has the full shape: the product starts from ones.
    b.addOp({ "outer", OpKind::Multiply, { { row }, { col } }, { layer(Multiply {}) } });
    expectMatchesReference(std::move(b).finish());
}

TEST(CpuLayers, SumsAndConcatsAtBatchOneAndTwo)
{
    for (std::int64_t batch : { 1, 2 }) {
        zoo::NetBuilder b("combine_b" + std::to_string(batch), 3);
        const auto x = b.input("x", Shape { batch, 3, 6, 6 });
        const auto a = b.conv("a", { { x } }, 4, 3, 1, 1);
        const auto c = b.conv("c", { { x } }, 4, 1);
        const auto d = b.conv("d", { { x } }, 5, 1);
        const auto sum = b.combine("sum", { { a, c } });
        // Concat of a sum, a graph input (copied) and conv outputs (written in place at batch 1).
        const auto cat = b.combine("cat", { { a, c }, { x }, { d }, { sum } });
        // A conv over a concatenation: the combined input is a scratch buffer.
        const auto e = b.conv("e", { { cat }, { d } }, 3, 3, 1, 1);
        // Only conv outputs: a oneDNN concat at batch 2, nothing to do at batch 1.
        b.combine("cat2", { { e }, { d }, { b.conv("f", { { x } }, 2, 1) } });
        expectMatchesReference(std::move(b).finish());
    }
}

TEST(CpuLayers, GemmSoftmaxAndViews)
{
    for (std::int64_t batch : { 1, 2 }) {
        GraphBuilder b("gemm_b" + std::to_string(batch), 3);
        const auto x = b.addInput("x", Shape { batch, 3, 4, 4 });
        const auto c = b.addOp({ "conv", OpKind::Conv, { { x } }, { layer(conv(4, 3, 3, 1, 1), Activation::relu()) } });
        const auto flat = b.addOp({ "flatten", OpKind::Reshape, { { c } }, { layer(Flatten { 1 }) } });
        const auto fc = b.addOp({ "fc", OpKind::Gemm, { { flat } }, { layer(Gemm { 10, true }, Activation::relu()) } });
        const auto fc2
            = b.addOp({ "fc2", OpKind::Gemm, { { c } }, { layer(Gemm { 6, false }) } }); // flattens implicitly
        b.addOp({ "softmax", OpKind::Softmax, { { fc } }, { layer(Softmax { 1 }) } });
        const auto r = b.addOp({ "reshape", OpKind::Reshape, { { fc2 } }, { layer(Reshape { { 0, 6, 1, 1 } }) } });
        const auto id = b.addOp({ "identity", OpKind::Identity, { { r } }, { layer(Identity {}) } });
        b.addOp({ "softmax4d", OpKind::Softmax, { { id } }, { layer(Softmax { 1 }) } });
        b.addOp({ "identity_act", OpKind::Identity, { { r } }, { layer(Identity {}, { ActivationKind::Tanh }) } });
        // A compound that ends in a view, and a view in the middle of one.
        b.addOp({ "gemm_reshape", OpKind::Gemm, { { c } },
            { layer(Gemm { 8, true }), layer(Reshape { { 0, 2, 2, 2 } }) } });
        b.addOp({ "flatten_gemm", OpKind::Gemm, { { c } },
            { layer(Flatten { 1 }), layer(Gemm { 3, true }, Activation::relu6()) } });
        // A concat of a view (copied) and a gemm output (in place at batch 1).
        b.addOp({ "cat_views", OpKind::Concat, { { flat }, { fc2 } }, { layer(Identity {}) } });
        const Graph g = std::move(b).finish();
        expectMatchesReference(g);
        // Views alias their source: flatten adds no bytes.
        cpu::CpuExecutor ex(g, sequentialPlan(g), kOneThread);
        const auto& values = ex.layout().values();
        EXPECT_EQ(values[static_cast<std::size_t>(ex.layout().valueOf(flat))].arenaOffset,
            values[static_cast<std::size_t>(ex.layout().valueOf(c))].arenaOffset);
    }
}

TEST(CpuLayers, CompoundsOverSumsAndConcats)
{
    for (std::int64_t batch : { 1, 2 }) {
        zoo::NetBuilder b("compounds_b" + std::to_string(batch), 3);
        const auto x = b.input("x", Shape { batch, 4, 7, 7 });
        const auto rc = b.reluConv("relu_conv", { { x } }, 6, 3, 2, 1);
        const auto sep = b.reluSepConv("relu_sep_conv", { { x }, { x } }, 6, 3, 2, 1);
        const auto pooled = b.avgPool("avg", { { rc, sep } }, 3, 1, 1);
        const auto fc = b.fullyConnected("fc", { { pooled } }, 5);
        b.globalAvgPool("gap", { { b.relu("relu", { { sep } }) }, { pooled } });
        static_cast<void>(fc);
        expectMatchesReference(std::move(b).finish());
    }
}

// Inception-E's branch: a 1x3 and a 3x1 conv of one input, merged into one 3x3 conv.
Graph inceptionEBlock(std::int64_t batch)
{
    zoo::NetBuilder b("inception_e_block", 3);
    const auto x = b.input("x", Shape { batch, 6, 5, 5 });
    const auto r = b.conv("reduce", { { x } }, 8, 1);
    const auto a = b.conv("conv1x3", { { r } }, 4, { 1, 3 }, 1, { 0, 1 });
    const auto c = b.conv("conv3x1", { { r } }, 5, { 3, 1 }, 1, { 1, 0 });
    const auto e = b.conv("conv1x1", { { r } }, 3, 1);
    b.combine("concat", { { x }, { c }, { a }, { e } });
    return std::move(b).finish();
}

// The sequential plan with the given ops merged into one launch where the first of them was.
Plan mergePlan(const Graph& g, const std::vector<std::string>& names)
{
    Plan plan = sequentialPlan(g);
    std::vector<OpId> merged;
    for (const auto& n : names)
        merged.push_back(*g.findOp(n));
    Plan out;
    bool placed = false;
    for (const auto& l : plan.launches) {
        if (std::find(merged.begin(), merged.end(), l.ops.front()) == merged.end()) {
            out.launches.push_back(l);
        } else if (!placed) {
            out.launches.push_back(Launch { merged, StreamId(0U), {} });
            placed = true;
        }
    }
    for (std::uint32_t i = 1; i < out.launches.size(); ++i)
        out.barriers.push_back(i);
    EXPECT_TRUE(validate(g, out).empty()) << validate(g, out).front();
    return out;
}

TEST(CpuMerge, StackedConvMatchesSeparateConvs)
{
    for (std::int64_t batch : { 1, 2 }) {
        const Graph g = inceptionEBlock(batch);
        const auto inputs = cpu::seededInputs(g, 9);
        for (const auto& names : std::vector<std::vector<std::string>> {
                 { "conv1x3", "conv3x1" }, { "conv3x1", "conv1x3", "conv1x1" }, { "conv1x1", "conv1x3" } }) {
            const Plan plan = mergePlan(g, names);
            cpu::CpuExecutor merged(g, plan, kOneThread);
            cpu::CpuExecutor sequential(g, sequentialPlan(g), kOneThread);
            EXPECT_LE(maxAbsDiff(merged.run(inputs), sequential.run(inputs)), 1e-4F)
                << names.front() << " batch " << batch;
            expectMatchesReference(g, &plan);
        }
    }
}

TEST(CpuMerge, GeometryThatCannotStackRunsOpByOp)
{
    // A 1x1 and a 2x2 conv, stride 2, both 3x3 outputs: mergeable for the schedulers, but one
    // stacked window would need negative bottom padding, so the launch runs its ops one by one.
    GraphBuilder b("unstackable", 3);
    const auto x = b.addInput("x", Shape { 1, 3, 6, 6 });
    Conv2d wide = conv(4, 2, 2, 2);
    wide.padTop = wide.padLeft = 1;
    b.addOp({ "narrow", OpKind::Conv, { { x } }, { layer(conv(5, 1, 1, 2)) } });
    b.addOp({ "wide", OpKind::Conv, { { x } }, { layer(wide) } });
    const Graph g = std::move(b).finish();
    Plan plan;
    plan.launches.push_back(Launch { { *g.findOp("narrow"), *g.findOp("wide") }, StreamId(0U), {} });
    ASSERT_TRUE(validate(g, plan).empty()) << validate(g, plan).front();
    expectMatchesReference(g, &plan);
}

TEST(CpuLayers, ConcatWithAnActivation)
{
    for (std::int64_t batch : { 1, 2 }) {
        GraphBuilder b("concat_relu_b" + std::to_string(batch), 3);
        const auto x = b.addInput("x", Shape { batch, 3, 5, 5 });
        const auto a = b.addOp({ "a", OpKind::Conv, { { x } }, { layer(conv(4, 3, 3, 1, 1)) } });
        const auto c = b.addOp({ "c", OpKind::Conv, { { x } }, { layer(conv(2, 1, 1)) } });
        // The relu must not reach a and c, which other ops read too.
        b.addOp({ "cat_relu", OpKind::Concat, { { a }, { c, c } }, { layer(Identity {}, Activation::relu()) } });
        b.addOp(
            { "cat_sigmoid", OpKind::Concat, { { c }, { a } }, { layer(Identity {}, { ActivationKind::Sigmoid }) } });
        expectMatchesReference(std::move(b).finish());
    }
}

TEST(CpuErrors, BadInputsPlansAndTypes)
{
    zoo::NetBuilder nb("small", 3);
    nb.conv("c", { { nb.input("x", Shape { 1, 2, 4, 4 }) } }, 2, 1);
    const Graph g = std::move(nb).finish();
    cpu::CpuExecutor ex(g, sequentialPlan(g), kOneThread);
    EXPECT_THROW(ex.run({}), Error);
    EXPECT_THROW(ex.run({ std::vector<float>(3) }), Error);
    EXPECT_THROW(cpu::CpuExecutor(g, Plan {}), Error);

    GraphBuilder b("half", 3);
    b.addOp({ "c", OpKind::Conv, { { b.addInput("x", Shape { 1, 2, 4, 4 }, DataType::Float16) } },
        { layer(conv(2, 1, 1)) } });
    const Graph h = std::move(b).finish();
    try {
        cpu::CpuExecutor bad(h, sequentialPlan(h), kOneThread);
        ADD_FAILURE() << "float16 accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("float32"), std::string::npos) << e.what();
    }
}

TEST(CpuExecutor, ReportsSizes)
{
    const Graph g = inceptionEBlock(1);
    cpu::CpuExecutor ex(g, sequentialPlan(g), kOneThread);
    EXPECT_TRUE(cpu::cpuBackendAvailable());
    EXPECT_GT(ex.peakArenaBytes(), 0);
    EXPECT_LE(ex.peakArenaBytes(), ex.activationBytes() + 64 * static_cast<std::int64_t>(g.tensors().size()));
    EXPECT_GT(ex.weightBytes(), 0);
    EXPECT_GT(ex.primitiveCount(), 0U);
}

} // namespace
