// The CPU executor's kernels for the layers transformers bring (layer and RMS norm, embedding and
// constant gathers, Where, Expand, the new element-wise functions and binary kinds, MatMul with a
// bias) against the naive reference (reference.h), plus a few results worked out by hand and the
// refusal of a token id outside the table.
#include "cpu_test_support.h"
#include "exec/cpu/cpu_executor.h"
#include "graph/graph_builder.h"
#include "plan/plan.h"
#include "plan/schedule.h"
#include "reference.h"
#include "schedule/basic_schedulers.h"
#include "support/test_layers.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace opsched;
using opsched::test::layer;
using opsched::test::maxAbsDiff;
using opsched::test::referenceRun;
using opsched::test::weight;

namespace {

using opsched::test::expectMatchesReference;
using opsched::test::kOneThread;

std::vector<std::vector<float>> run(const Graph& g, const std::vector<std::vector<float>>& inputs)
{
    return test::runSequential(g, inputs);
}

std::vector<float> ramp(std::size_t n, float start, float step)
{
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i)
        v[i] = start + step * static_cast<float>(i);
    return v;
}

TEST(CpuTransformerOps, LayerNormAndRmsNormOverTrailingAxes)
{
    for (bool rms : { false, true })
        for (int axis : { -1, 1 }) {
            GraphBuilder b(std::string(rms ? "rms" : "ln") + "_axis" + std::to_string(axis), 3);
            const auto x = b.addInput("x", Shape { 2, 3, 8 });
            const std::size_t inner = axis == -1 ? 8 : 24;
            const Shape normalised = axis == -1 ? Shape { 8 } : Shape { 3, 8 };
            std::vector<TensorId> w { weight(b, "scale", normalised, ramp(inner, 0.5F, 0.05F)) };
            if (!rms)
                w.push_back(weight(b, "bias", normalised, ramp(inner, -0.3F, 0.03F)));
            LayerNorm l { axis, 1e-5F, !rms, rms };
            b.addOp({ "norm", OpKind::LayerNorm, { { x } }, { layer(l, { ActivationKind::Gelu }, w) } });
            expectMatchesReference(std::move(b).finish());
        }
}

TEST(CpuTransformerOps, LayerNormHandComputed)
{
    GraphBuilder b("ln_hand", 3);
    const auto x = b.addInput("x", Shape { 1, 4 });
    b.addOp({ "norm", OpKind::LayerNorm, { { x } },
        { layer(LayerNorm { -1, 0.0F, true, false }, {},
            { weight(b, "s", Shape { 4 }, { 1, 1, 1, 1 }), weight(b, "b", Shape { 4 }, { 0, 0, 0, 10 }) }) } });
    const auto y = run(std::move(b).finish(), { { 1, 2, 3, 4 } }).front();
    // mean 2.5, variance 1.25: (x - 2.5) / sqrt(1.25).
    const float s = 1.0F / std::sqrt(1.25F);
    EXPECT_NEAR(y[0], -1.5F * s, 1e-5F);
    EXPECT_NEAR(y[1], -0.5F * s, 1e-5F);
    EXPECT_NEAR(y[3], 1.5F * s + 10.0F, 1e-5F);
}

TEST(CpuTransformerOps, EmbeddingLooksUpRowsAndRefusesBadIds)
{
    GraphBuilder b("embedding", 3);
    const auto ids = b.addInput("ids", Shape { 2, 3 });
    const auto table = weight(b, "table", Shape { 5, 4 }, ramp(20, -1.0F, 0.1F));
    Gather g;
    g.dataIsWeight = true;
    b.addOp({ "embed", OpKind::Gather, { { ids } }, { layer(g, {}, { table }) } });
    const Graph graph = std::move(b).finish();
    EXPECT_EQ(graph.tensor(graph.outputs().front()).shape, (Shape { 2, 3, 4 }));
    const std::vector<std::vector<float>> good { { 0, 4, 2, -1, 3, 3 } }; // -1: the last row
    expectMatchesReference(graph, 2e-5F, good);
    const auto y = run(graph, good).front();
    EXPECT_FLOAT_EQ(y[4], -1.0F + 0.1F * 16); // ids[1] = 4: row 4 starts at element 16
    EXPECT_FLOAT_EQ(y[12], -1.0F + 0.1F * 16); // ids[3] = -1: row 4 again
    for (float bad : { 5.0F, -6.0F, 1.5F }) {
        try {
            run(graph, { { 0, 1, bad, 2, 3, 4 } });
            ADD_FAILURE() << "id " << bad << " was accepted";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("is not an integer in [-5, 5)"), std::string::npos) << e.what();
        }
    }
}

TEST(CpuTransformerOps, GatherByConstantIndices)
{
    for (int axis : { 0, 1, -1 }) {
        GraphBuilder b("gather_axis" + std::to_string(axis), 3);
        const auto x = b.addInput("x", Shape { 3, 4, 5 });
        Gather g;
        g.axis = axis;
        g.indices = { 2, 0, -1, 1 };
        g.indicesDims = { 2, 2 };
        b.addOp({ "gather", OpKind::Gather, { { x } }, { layer(g) } });
        Gather scalar;
        scalar.axis = axis;
        scalar.indices = { 1 };
        b.addOp({ "pick", OpKind::Gather, { { x } }, { layer(scalar, { ActivationKind::Neg }) } });
        expectMatchesReference(std::move(b).finish());
    }
}

TEST(CpuTransformerOps, WhereWithMasksAndConstants)
{
    GraphBuilder b("where", 3);
    const auto ids = b.addInput("ids", Shape { 1, 6 });
    const auto scores = b.addInput("scores", Shape { 1, 2, 6, 6 });
    // keep = ids != 0; bias = where(keep, 0, -1e4)[:, None, None, :]; scores + bias
    const auto zero = weight(b, "zero", Shape {}, { 0.0F });
    const auto eq
        = b.addOp({ "eq", OpKind::Compare, { { ids } }, { layer(Binary { BinaryKind::Equal }, {}, { zero }) } });
    const auto keep = b.addOp({ "not", OpKind::Math, { { eq } }, { layer(Eltwise { { ActivationKind::Not } }) } });
    Where w;
    w.operand = { 0, 1, 2 };
    const auto bias = b.addOp({ "where", OpKind::Where, { { keep } },
        { layer(w, {}, { weight(b, "z", Shape {}, { 0.0F }), weight(b, "m", Shape {}, { -1e4F }) }) } });
    const auto bias4 = b.addOp({ "bias4", OpKind::Reshape, { { bias } }, { layer(Reshape { { 1, 1, 1, 6 } }) } });
    b.addOp({ "masked", OpKind::Add, { { scores }, { bias4 } }, { layer(Binary { BinaryKind::Add }) } });
    // Where with the activation in the middle: where(cond, x, y) with x an activation.
    Where mid;
    mid.operand = { 1, 0, 2 };
    b.addOp({ "select", OpKind::Where, { { scores } },
        { layer(
            mid, {}, { weight(b, "c", Shape { 6 }, { 1, 0, 1, 0, 0, 1 }), weight(b, "y", Shape { 1 }, { 7.0F }) }) } });
    const Graph g = std::move(b).finish();
    auto inputs = cpu::seededInputs(g, 3);
    inputs[0] = { 5, 0, 3, 0, 1, 2 };
    expectMatchesReference(g, 2e-5F, inputs);
    const auto out = run(g, inputs);
    EXPECT_FLOAT_EQ(out[0][1], inputs[1][1] - 1e4F); // id 0 is masked
    EXPECT_FLOAT_EQ(out[0][0], inputs[1][0]);
}

TEST(CpuTransformerOps, ConcatPutsAConstantFirst)
{
    // ViT's class token: a constant row before the patch embeddings.
    GraphBuilder b("class_token", 3);
    const auto x = b.addInput("x", Shape { 1, 4, 3 });
    Concat c { 1, { 1, 0 } }; // the weight (operand 1) first, then the term
    b.addOp(
        { "cat", OpKind::Concat, { { x } }, { layer(c, {}, { weight(b, "token", Shape { 1, 1, 3 }, { 7, 8, 9 }) }) } });
    const Graph g = std::move(b).finish();
    expectMatchesReference(g);
    const auto y = run(g, cpu::seededInputs(g, 2)).front();
    ASSERT_EQ(y.size(), 15U);
    EXPECT_EQ(y[0], 7.0F);
    EXPECT_EQ(y[2], 9.0F);
}

TEST(CpuTransformerOps, ExpandBroadcastsAndGrowsRank)
{
    GraphBuilder b("expand", 3);
    const auto x = b.addInput("x", Shape { 1, 3, 1 });
    b.addOp({ "expand", OpKind::Expand, { { x } }, { layer(Expand { { 2, 1, 3, 4 } }) } });
    expectMatchesReference(std::move(b).finish());
}

TEST(CpuTransformerOps, ElementwiseFunctions)
{
    GraphBuilder b("functions", 3);
    const auto x = b.addInput("x", Shape { 2, 3, 7 });
    for (auto kind : { ActivationKind::Gelu, ActivationKind::GeluTanh, ActivationKind::Erf, ActivationKind::Exp,
             ActivationKind::Abs, ActivationKind::Neg, ActivationKind::Not, ActivationKind::NonZero,
             ActivationKind::Truncate, ActivationKind::Tanh })
        b.addOp({ toString(kind), OpKind::Math, { { x } }, { layer(Eltwise { { kind } }) } });
    // Positive inputs for sqrt, log, reciprocal and fractional powers.
    const auto pos = b.addOp(
        { "abs1", OpKind::Math, { { x } }, { layer(Eltwise { { ActivationKind::Abs } }, { ActivationKind::Exp }) } });
    for (auto kind : { ActivationKind::Sqrt, ActivationKind::Log, ActivationKind::Reciprocal })
        b.addOp({ std::string(toString(kind)) + "_pos", OpKind::Math, { { pos } }, { layer(Eltwise { { kind } }) } });
    b.addOp({ "pow", OpKind::Math, { { pos } }, { layer(Eltwise { { ActivationKind::Pow, 1.5F } }) } });
    // A host function fused after a MatMul and after a conv-free binary.
    b.addOp({ "erf_after", OpKind::MatMul, { { x } },
        { layer(MatMul {}, { ActivationKind::Erf }, { weight(b, "w", Shape { 7, 2 }, ramp(14, -0.5F, 0.07F)) }) } });
    expectMatchesReference(std::move(b).finish());
}

TEST(CpuTransformerOps, BinaryKindsAndConstantFirst)
{
    for (auto kind : { BinaryKind::Pow, BinaryKind::Min, BinaryKind::Max, BinaryKind::Equal, BinaryKind::Less,
             BinaryKind::Greater, BinaryKind::Sub, BinaryKind::Div }) {
        GraphBuilder b(std::string("binary_") + toString(kind), 3);
        const auto x = b.addInput("x", Shape { 2, 3, 4 });
        const auto row = b.addInput("row", Shape { 4 });
        const auto c = weight(b, "c", Shape { 4 }, { 2.0F, 0.5F, 3.0F, 1.0F });
        // Positive bases for pow.
        const auto base = b.addOp({ "base", OpKind::Math, { { x } },
            { layer(Eltwise { { ActivationKind::Abs } }, { ActivationKind::Exp }) } });
        b.addOp({ "act_act", OpKind::Math, { { base }, { row } }, { layer(Binary { kind }) } });
        b.addOp({ "act_const", OpKind::Math, { { base } }, { layer(Binary { kind }, {}, { c }) } });
        b.addOp({ "const_act", OpKind::Math, { { base } }, { layer(Binary { kind, true }, {}, { c }) } });
        expectMatchesReference(std::move(b).finish(), 5e-5F);
    }
}

TEST(CpuTransformerOps, MatMulWithBiasAndGelu)
{
    GraphBuilder b("linear", 3);
    const auto x = b.addInput("x", Shape { 2, 5, 6 });
    b.addOp({ "linear", OpKind::MatMul, { { x } },
        { layer(MatMul { true }, { ActivationKind::Gelu },
            { weight(b, "w", Shape { 6, 4 }, ramp(24, -0.6F, 0.05F)),
                weight(b, "bias", Shape { 4 }, { 0.1F, -0.2F, 0.3F, -0.4F }) }) } });
    // Attention scores: two activations with broadcast heads.
    const auto q = b.addInput("q", Shape { 2, 3, 5, 4 });
    const auto k = b.addInput("k", Shape { 2, 3, 4, 5 });
    const auto s = b.addOp({ "scores", OpKind::MatMul, { { q }, { k } }, { layer(MatMul {}) } });
    b.addOp({ "softmax", OpKind::Softmax, { { s } }, { layer(Softmax { 3 }) } });
    expectMatchesReference(std::move(b).finish());
}

TEST(CpuTransformerOps, ConstantMatMulWithRowsAMultipleOfFourKiB)
{
    // 1024 and 2048 columns: rows 4 and 8 KiB apart, which on AVX2 and SSE4.1 (where oneDNN keeps
    // the weights row-major) are stored with padded rows. Registered under those ISAs as well.
    GraphBuilder b("wide", 2);
    const auto x = b.addInput("x", Shape { 2, 3, 24 });
    b.addOp({ "wide", OpKind::MatMul, { { x } },
        { layer(MatMul { true }, { ActivationKind::Gelu },
            { weight(b, "w", Shape { 24, 1024 }, ramp(24 * 1024, -0.5F, 1.0F / 24576.0F)),
                weight(b, "bias", Shape { 1024 }, ramp(1024, 0.2F, -0.0004F)) }) } });
    b.addOp({ "wider", OpKind::MatMul, { { x } },
        { layer(MatMul {}, {}, { weight(b, "w2", Shape { 24, 2048 }, ramp(24 * 2048, 0.3F, -1.0F / 81920.0F)) }) } });
    expectMatchesReference(std::move(b).finish());
}

// Q, K and V projections of one input (different widths, with and without bias) and a consumer
// of each, so every column block must reach the right reader.
Graph qkvBlock(std::int64_t batch)
{
    GraphBuilder b("qkv", 3);
    const auto x = b.addInput("x", Shape { batch, 5, 8 });
    const auto q = b.addOp({ "q", OpKind::MatMul, { { x } },
        { layer(MatMul { true }, {},
            { weight(b, "wq", Shape { 8, 6 }, ramp(48, -0.5F, 0.021F)),
                weight(b, "bq", Shape { 6 }, ramp(6, 0.1F, 0.05F)) }) } });
    const auto k = b.addOp({ "k", OpKind::MatMul, { { x } },
        { layer(MatMul {}, {}, { weight(b, "wk", Shape { 8, 6 }, ramp(48, 0.4F, -0.017F)) }) } });
    const auto v = b.addOp({ "v", OpKind::MatMul, { { x } },
        { layer(MatMul { true }, {},
            { weight(b, "wv", Shape { 8, 4 }, ramp(32, -0.3F, 0.019F)),
                weight(b, "bv", Shape { 4 }, ramp(4, -0.2F, 0.1F)) }) } });
    const auto kt = b.addOp({ "kt", OpKind::Transpose, { { k } }, { layer(Transpose { { 0, 2, 1 } }) } });
    const auto s = b.addOp({ "scores", OpKind::MatMul, { { q }, { kt } }, { layer(MatMul {}) } });
    const auto p = b.addOp({ "softmax", OpKind::Softmax, { { s } }, { layer(Softmax { 2 }) } });
    b.addOp({ "context", OpKind::MatMul, { { p }, { v } }, { layer(MatMul {}) } });
    return std::move(b).finish();
}

TEST(CpuTransformerOps, MergedGemmMatchesSeparateGemms)
{
    for (std::int64_t batch : { 1, 3 }) {
        const Graph g = qkvBlock(batch);
        const std::vector<OpId> qkv { *g.findOp("q"), *g.findOp("k"), *g.findOp("v") };
        ASSERT_TRUE(mergeProblem(g, qkv).empty()) << mergeProblem(g, qkv);
        // The sequential plan with q, k and v as one launch.
        Plan merged = compileSchedule(g, sequentialSchedule(g));
        Plan plan;
        for (const auto& l : merged.launches)
            if (l.ops.front() == qkv.front())
                plan.launches.push_back(Launch { qkv, StreamId(0U), {} });
            else if (std::find(qkv.begin(), qkv.end(), l.ops.front()) == qkv.end())
                plan.launches.push_back(l);
        for (std::uint32_t i = 1; i < plan.launches.size(); ++i)
            plan.barriers.push_back(i);
        ASSERT_TRUE(validate(g, plan).empty()) << validate(g, plan).front();
        const auto inputs = cpu::seededInputs(g, 4);
        cpu::CpuExecutor ex(g, plan, kOneThread);
        const auto got = ex.run(inputs);
        const auto separate = run(g, inputs);
        EXPECT_LE(maxAbsDiff(got, separate), 1e-5F) << "batch " << batch;
        EXPECT_LE(maxAbsDiff(got, referenceRun(g, inputs)), 1e-5F) << "batch " << batch;
    }
    // Another input, or another activation, cannot merge.
    GraphBuilder b("no_merge", 3);
    const auto x = b.addInput("x", Shape { 1, 4 });
    const auto y = b.addInput("y", Shape { 1, 4 });
    b.addOp({ "a", OpKind::MatMul, { { x } },
        { layer(MatMul {}, {}, { weight(b, "wa", Shape { 4, 2 }, ramp(8, 0, 1)) }) } });
    b.addOp({ "b", OpKind::MatMul, { { y } },
        { layer(MatMul {}, {}, { weight(b, "wb", Shape { 4, 2 }, ramp(8, 0, 1)) }) } });
    b.addOp({ "c", OpKind::MatMul, { { x } },
        { layer(MatMul {}, Activation::relu(), { weight(b, "wc", Shape { 4, 2 }, ramp(8, 0, 1)) }) } });
    const Graph g = std::move(b).finish();
    EXPECT_NE(
        mergeProblem(g, { *g.findOp("a"), *g.findOp("b") }).find("does not read the same input"), std::string::npos);
    EXPECT_NE(mergeProblem(g, { *g.findOp("a"), *g.findOp("c") }).find("another activation"), std::string::npos);
}

} // namespace
