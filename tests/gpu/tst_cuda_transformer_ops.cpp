// The CUDA executor on the transformers' layers and functions: every new activation kind, the new
// Binary kinds and constantFirst, LayerNorm / RMS norm, last-axis Softmax, embedding and
// constant-index Gather (and an out-of-range token id reported after the run), Gather and
// GatherElements by computed and constant indices, Where, Expand, and
// MatMul in its attention and Linear shapes, each against the naive host references of
// tests/cpu (reference.h, reference_tensor_ops.h), TF32 off. Skipped visibly without a device.
#include "cpu/reference.h"
#include "cuda_test_support.h"
#include "exec/cuda/cuda_executor.h"
#include "graph/graph_builder.h"
#include "schedule/basic_schedulers.h"
#include "support/test_layers.h"
#include "util/error.h"

#include <map>
#include <random>

using namespace opsched;

using opsched::test::HostTensor;
using opsched::test::layer;

namespace {

const gpu::CudaOptions kNoTf32 { 0, false, {} };

HostTensor uniform(std::vector<std::int64_t> dims, unsigned seed, float lo = -2.0F, float hi = 2.0F)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    HostTensor t { std::move(dims), {} };
    for (std::int64_t i = 0; i < test::product(t.dims); ++i)
        t.data.push_back(dist(rng));
    return t;
}

// Small integers and halves in [-2, 2], zeros included: comparisons find equal values, Not and
// NonZero see zeros.
HostTensor steps(std::vector<std::int64_t> dims, int seed)
{
    HostTensor t { std::move(dims), {} };
    for (std::int64_t i = 0; i < test::product(t.dims); ++i)
        t.data.push_back(0.5F * static_cast<float>((i * 3 + seed) % 9 - 4));
    return t;
}

HostTensor activated(HostTensor t, const Activation& a)
{
    for (auto& v : t.data)
        v = test::activate(v, a);
    return t;
}

// t + bias on every row (bias: one value per last-axis element).
HostTensor withColumnBias(HostTensor t, const HostTensor& bias)
{
    for (std::size_t i = 0; i < t.data.size(); ++i)
        t.data[i] += bias.data[i % bias.data.size()];
    return t;
}

HostTensor indexTensor(std::vector<std::int64_t> dims, const std::vector<std::int64_t>& indices)
{
    HostTensor t { std::move(dims), {} };
    for (auto i : indices)
        t.data.push_back(static_cast<float>(i));
    return t;
}

// The embedding form: the term holds token ids, the weight is the table (rows along axis 0).
Gather embedding()
{
    Gather g;
    g.dataIsWeight = true;
    return g;
}

// A graph under construction and the values of its inputs, in order.
struct Built {
    GraphBuilder b;
    std::vector<std::vector<float>> inputs;
    std::map<std::string, HostTensor> want; // by op name

    explicit Built(const std::string& name)
        : b(name, 3)
    {
    }
    TensorId input(const std::string& name, const HostTensor& t)
    {
        inputs.push_back(t.data);
        return b.addInput(name, Shape(t.dims));
    }
    TensorId weight(const std::string& name, const HostTensor& t)
    {
        return test::weight(b, name, Shape(t.dims), t.data);
    }
    // An op whose output is checked against `expected`.
    TensorId op(OpSpec spec, HostTensor expected)
    {
        want[spec.name] = std::move(expected);
        return b.addOp(std::move(spec));
    }
};

std::vector<std::vector<float>> runOnGpu(const Graph& g, const std::vector<std::vector<float>>& inputs)
{
    gpu::CudaExecutor ex(g, compileSchedule(g, sequentialSchedule(g)), kNoTf32);
    return ex.run(inputs);
}

// Runs the graph on cuda:0 and compares every output with its op's expected value (max relative
// error).
void expectMatches(Built&& built, double tolerance = 1e-4)
{
    const Graph g = std::move(built.b).finish();
    const auto got = runOnGpu(g, built.inputs);
    ASSERT_EQ(got.size(), g.outputs().size());
    for (std::size_t k = 0; k < got.size(); ++k) {
        const std::string name = g.tensor(g.outputs()[k]).name;
        const auto it = built.want.find(name.substr(0, name.find(':')));
        if (it == built.want.end()) {
            ADD_FAILURE() << g.name() << ": output " << name << " has no expected value";
            continue;
        }
        EXPECT_EQ(g.tensor(g.outputs()[k]).shape.dims, it->second.dims) << name;
        EXPECT_LE(test::maxRelativeError({ got[k] }, { it->second.data }), tolerance) << g.name() << ": " << name;
    }
}

TEST(CudaTransformerOps, EveryNewActivationKind)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    Built t("activations");
    const auto xs = steps({ 2, 3, 8 }, 1);
    const auto ps = uniform({ 2, 3, 8 }, 2, 0.1F, 3.0F); // Sqrt, Log, Reciprocal, fractional powers
    const auto x = t.input("x", xs);
    const auto p = t.input("p", ps);
    struct Case {
        const char* name;
        Activation act;
        bool positive;
    };
    for (const auto& c :
        { Case { "gelu", { ActivationKind::Gelu }, false }, Case { "gelu_tanh", { ActivationKind::GeluTanh }, false },
            Case { "erf", { ActivationKind::Erf }, false }, Case { "sqrt", { ActivationKind::Sqrt }, true },
            Case { "exp", { ActivationKind::Exp }, false }, Case { "log", { ActivationKind::Log }, true },
            Case { "abs", { ActivationKind::Abs }, false }, Case { "neg", { ActivationKind::Neg }, false },
            Case { "reciprocal", { ActivationKind::Reciprocal }, true },
            Case { "square", { ActivationKind::Pow, 2.0F }, false },
            Case { "pow_half", { ActivationKind::Pow, 0.5F }, true }, Case { "not", { ActivationKind::Not }, false },
            Case { "nonzero", { ActivationKind::NonZero }, false },
            Case { "truncate", { ActivationKind::Truncate }, false },
            Case { "truncate_fractions", { ActivationKind::Truncate }, true } }) {
        const auto& in = c.positive ? ps : xs;
        t.op({ c.name, OpKind::Math, { { c.positive ? p : x } }, { layer(Eltwise { c.act }) } }, activated(in, c.act));
    }
    // Fused after another layer: the activation epilogue of a Softmax, and an eltwise chain.
    t.op({ "softmax_log", OpKind::Softmax, { { p } }, { layer(Softmax { 2 }, { ActivationKind::Log }) } },
        activated(test::referenceSoftmax(ps, 2), { ActivationKind::Log }));
    t.op({ "abs_then_sqrt", OpKind::Math, { { x } },
             { layer(Eltwise { { ActivationKind::Abs } }, { ActivationKind::Sqrt }) } },
        activated(activated(xs, { ActivationKind::Abs }), { ActivationKind::Sqrt }));
    expectMatches(std::move(t));
}

TEST(CudaTransformerOps, NewBinaryKindsAndConstantFirst)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    Built t("binary_new");
    const auto as = steps({ 2, 3, 4 }, 1), bs = steps({ 3, 1 }, 2);
    const auto positive = uniform({ 2, 3, 4 }, 3, 0.5F, 2.0F);
    const auto a = t.input("a", as), bIn = t.input("b", bs), p = t.input("p", positive);
    for (auto kind : { BinaryKind::Min, BinaryKind::Max, BinaryKind::Equal, BinaryKind::Less, BinaryKind::Greater }) {
        t.op({ std::string("k_") + toString(kind), OpKind::Compare, { { a }, { bIn } }, { layer(Binary { kind }) } },
            test::referenceBinary(kind, { as, bs }));
    }
    t.op({ "pow", OpKind::Math, { { p }, { bIn } }, { layer(Binary { BinaryKind::Pow }) } },
        test::referenceBinary(BinaryKind::Pow, { positive, bs }));
    // A comparison's mask negated by the fused Not: a >= b.
    t.op({ "not_less", OpKind::Compare, { { a }, { bIn } },
             { layer(Binary { BinaryKind::Less }, { ActivationKind::Not }) } },
        activated(test::referenceBinary(BinaryKind::Less, { as, bs }), { ActivationKind::Not }));
    // The constant on the left: c - a, c / p, c ^ p.
    const auto cs = uniform({ 4 }, 4, 0.5F, 3.0F);
    int k = 0;
    for (auto kind : { BinaryKind::Sub, BinaryKind::Div, BinaryKind::Pow }) {
        const auto& right = kind == BinaryKind::Sub ? as : positive;
        const auto c = t.weight("c" + std::to_string(k++), cs);
        t.op({ std::string("first_") + toString(kind), OpKind::Math, { { kind == BinaryKind::Sub ? a : p } },
                 { layer(Binary { kind, true }, {}, { c }) } },
            test::referenceBinary(kind, { cs, right }));
    }
    expectMatches(std::move(t));
}

TEST(CudaTransformerOps, LayerNormAndRmsNorm)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    Built t("layernorm");
    // Rows far from zero: the two-pass statistics must not cancel.
    const auto xs = uniform({ 2, 5, 32 }, 1, 98.0F, 102.0F);
    const auto x4 = uniform({ 2, 3, 4, 5 }, 2);
    const auto longRow = uniform({ 3, 3000 }, 3); // more than a warp's worth per thread
    const auto x = t.input("x", xs), y = t.input("y", x4), l = t.input("l", longRow);
    const auto scale32 = uniform({ 32 }, 4), bias32 = uniform({ 32 }, 5);
    const auto scale20 = uniform({ 4, 5 }, 6), scaleLong = uniform({ 3000 }, 7), biasLong = uniform({ 3000 }, 8);
    const auto s32 = t.weight("s32", scale32), b32 = t.weight("b32", bias32), s20 = t.weight("s20", scale20);
    const auto sl = t.weight("sl", scaleLong), bl = t.weight("bl", biasLong);
    t.op({ "ln", OpKind::LayerNorm, { { x } }, { layer(LayerNorm { -1, 1e-5F, true, false }, {}, { s32, b32 }) } },
        test::referenceLayerNorm(xs, LayerNorm { -1, 1e-5F, true, false }, scale32.data, &bias32.data));
    t.op({ "ln_axis2", OpKind::LayerNorm, { { y } }, { layer(LayerNorm { 2, 1e-3F, false, false }, {}, { s20 }) } },
        test::referenceLayerNorm(x4, LayerNorm { 2, 1e-3F, false, false }, scale20.data, nullptr));
    t.op({ "rms", OpKind::LayerNorm, { { x } },
             { layer(LayerNorm { -1, 1e-6F, false, true }, { ActivationKind::GeluTanh }, { s32 }) } },
        activated(test::referenceLayerNorm(xs, LayerNorm { -1, 1e-6F, false, true }, scale32.data, nullptr),
            { ActivationKind::GeluTanh }));
    t.op({ "ln_long", OpKind::LayerNorm, { { l } },
             { layer(LayerNorm { 1, 1e-5F, true, false }, Activation::relu(), { sl, bl }) } },
        activated(
            test::referenceLayerNorm(longRow, LayerNorm { 1, 1e-5F, true, false }, scaleLong.data, &biasLong.data),
            Activation::relu()));
    expectMatches(std::move(t), 1e-3);
}

TEST(CudaTransformerOps, SoftmaxOnTheLastAxisWithMasks)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    Built t("softmax");
    auto scores = uniform({ 2, 3, 7, 45 }, 1, -6.0F, 6.0F); // rows longer than a warp
    for (std::size_t i = 0; i < scores.data.size(); i += 5)
        scores.data[i] = -1e9F; // masked positions, as attention masks write them
    const auto small = uniform({ 4, 3, 5 }, 2);
    const auto s = t.input("s", scores), m = t.input("m", small);
    t.op({ "last", OpKind::Softmax, { { s } }, { layer(Softmax { 3 }) } }, test::referenceSoftmax(scores, 3));
    t.op({ "last_relu", OpKind::Softmax, { { s } }, { layer(Softmax { 3 }, Activation::relu()) } },
        test::referenceSoftmax(scores, 3));
    t.op({ "middle", OpKind::Softmax, { { m } }, { layer(Softmax { 1 }) } }, test::referenceSoftmax(small, 1));
    t.op({ "short_rows", OpKind::Softmax, { { m } }, { layer(Softmax { 2 }) } }, test::referenceSoftmax(small, 2));
    expectMatches(std::move(t));
}

TEST(CudaTransformerOps, EmbeddingAndConstantIndexGather)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    Built t("gather");
    const auto table = uniform({ 10, 6 }, 1);
    const HostTensor ids { { 2, 3 }, { 0.0F, 3.0F, 9.0F, -1.0F, 5.0F, 3.0F } };
    const auto data = uniform({ 2, 5, 4 }, 2);
    const auto idIn = t.input("ids", ids), d = t.input("d", data);
    const auto w = t.weight("table", table);
    t.op({ "embed", OpKind::Gather, { { idIn } }, { layer(embedding(), {}, { w }) } },
        test::referenceGather(table, ids, 0));
    t.op({ "embed_tanh", OpKind::Gather, { { idIn } }, { layer(embedding(), { ActivationKind::Tanh }, { w }) } },
        activated(test::referenceGather(table, ids, 0), { ActivationKind::Tanh }));
    t.op({ "axis1", OpKind::Gather, { { d } }, { layer(Gather { 1, false, false, { 3, -1, 0, 0 }, { 2, 2 } }) } },
        test::referenceGather(data, indexTensor({ 2, 2 }, { 3, -1, 0, 0 }), 1));
    t.op({ "scalar_last", OpKind::Gather, { { d } }, { layer(Gather { -1, false, false, { 2 }, {} }) } },
        test::referenceGather(data, indexTensor({}, { 2 }), -1));
    expectMatches(std::move(t), 1e-6); // tanh on the device may differ in the last bit
}

TEST(CudaTransformerOps, GathersByComputedIndicesAndGatherElements)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    Built t("computed_gather");
    const auto data = uniform({ 3, 5, 4 }, 3);
    const HostTensor rows { { 2, 2 }, { 4.0F, -1.0F, 0.0F, 2.0F } };
    const HostTensor picks { { 2, 3, 4 },
        { 0, 4, -1, 2, 1, 1, 3, 0, 2, 2, 4, -5, 0, 0, 1, 3, 4, 3, 2, 1, -2, 0, 1, 2 } };
    const auto d = t.input("d", data), r = t.input("rows", rows), p = t.input("picks", picks);
    t.op({ "by_rows", OpKind::Gather, { { d }, { r } }, { layer(Gather { 1, false, false, {}, {} }) } },
        test::referenceGather(data, rows, 1));
    t.op({ "elements", OpKind::Gather, { { d }, { p } }, { layer(Gather { 1, false, true, {}, {} }) } },
        test::referenceGatherElements(data, picks, 1));
    std::vector<std::int64_t> constant;
    for (float v : picks.data)
        constant.push_back(static_cast<std::int64_t>(v));
    t.op({ "elements_constant", OpKind::Gather, { { d } }, { layer(Gather { 1, false, true, constant, picks.dims }) } },
        test::referenceGatherElements(data, picks, 1));
    expectMatches(std::move(t));
}

TEST(CudaTransformerOps, OutOfRangeTokenIdIsReportedAfterTheRun)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    GraphBuilder b("bad_ids", 3);
    const auto ids = b.addInput("ids", Shape { 4 });
    const auto table = test::weight(b, "table", Shape { 10, 3 }, uniform({ 10, 3 }, 1).data);
    b.addOp({ "embed", OpKind::Gather, { { ids } }, { layer(embedding(), {}, { table }) } });
    const Graph g = std::move(b).finish();
    gpu::CudaExecutor ex(g, compileSchedule(g, sequentialSchedule(g)), kNoTf32);
    const std::vector<std::vector<float>> badIds { { 1, 10, 2, 3 }, { 1, -11, 2, 3 }, { NAN, 1, 2, 3 } };
    for (const auto& bad : badIds) {
        try {
            ex.run({ bad });
            ADD_FAILURE() << "an id outside the table was not reported";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("embed"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("10 rows"), std::string::npos) << e.what();
        }
    }
    // The report belongs to that run: the next one, with good ids, succeeds.
    const auto out = ex.run({ { 0, 9, -10, 2.4F } });
    ASSERT_EQ(out.at(0).size(), 12U);
    const auto rows = uniform({ 10, 3 }, 1).data;
    for (std::size_t k = 0; k < 3; ++k) {
        EXPECT_EQ(out[0][k], rows[k]);
        EXPECT_EQ(out[0][3 + k], rows[27 + k]);
        EXPECT_EQ(out[0][6 + k], rows[k]); // -10 counts from the end
        EXPECT_EQ(out[0][9 + k], rows[6 + k]); // 2.4 rounds to 2
    }
}

TEST(CudaTransformerOps, WhereAndExpandBroadcast)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    Built t("where_expand");
    HostTensor mask { { 1, 4 }, { 1, 0, 1, 0 } };
    const auto xs = uniform({ 2, 3, 4 }, 1), ys = uniform({ 3, 1 }, 2), fill = HostTensor { {}, { -1e4F } };
    const auto m = t.input("mask", mask), x = t.input("x", xs), y = t.input("y", ys);
    const auto f = t.weight("fill", fill);
    t.op({ "where", OpKind::Where, { { m }, { x }, { y } }, { layer(Where {}) } }, test::referenceWhere(mask, xs, ys));
    // Operands named out of order, a constant among them: where(mask, fill, x) with mask the second term.
    t.op({ "where_fill", OpKind::Where, { { x }, { m } }, { layer(Where { { 1, 2, 0 } }, Activation::relu(), { f }) } },
        activated(test::referenceWhere(mask, fill, xs), Activation::relu()));
    t.op({ "expand", OpKind::Expand, { { y } }, { layer(Expand { { 2, 3, 4 } }) } },
        test::referenceExpand(ys, { 2, 3, 4 }));
    t.op({ "expand_rank", OpKind::Expand, { { m } }, { layer(Expand { { 3, 2, 1, 1 } }, { ActivationKind::Not }) } },
        activated(test::referenceExpand(mask, { 3, 2, 1, 4 }), { ActivationKind::Not }));
    expectMatches(std::move(t), 0);
}

TEST(CudaTransformerOps, MatMulInAttentionAndLinearShapes)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    Built t("matmul_shapes");
    const auto q = uniform({ 2, 3, 5, 4 }, 1), kt = uniform({ 2, 3, 4, 5 }, 2), v = uniform({ 2, 3, 5, 4 }, 3);
    const auto act = uniform({ 2, 5, 8 }, 4), w = uniform({ 8, 6 }, 5);
    const auto left = uniform({ 2, 1, 3, 4 }, 6), right = uniform({ 1, 5, 4, 2 }, 7);
    const auto qi = t.input("q", q), ki = t.input("kt", kt), vi = t.input("v", v), ai = t.input("act", act);
    const auto li = t.input("left", left), ri = t.input("right", right);
    const auto wi = t.weight("w", w);
    const auto scores = test::referenceMatMul(q, kt, { 2, 3, 5, 5 });
    const auto s = t.op({ "scores", OpKind::MatMul, { { qi }, { ki } }, { layer(MatMul {}) } }, scores);
    const auto probs = test::referenceSoftmax(scores, 3);
    const auto pr = t.op({ "probs", OpKind::Softmax, { { s } }, { layer(Softmax { 3 }) } }, probs);
    t.op({ "context", OpKind::MatMul, { { pr }, { vi } }, { layer(MatMul {}) } },
        test::referenceMatMul(probs, v, { 2, 3, 5, 4 }));
    t.op({ "linear_gelu", OpKind::MatMul, { { ai } }, { layer(MatMul {}, { ActivationKind::Gelu }, { wi }) } },
        activated(test::referenceMatMul(act, w, { 2, 5, 6 }), { ActivationKind::Gelu }));
    t.op({ "cross_broadcast", OpKind::MatMul, { { li }, { ri } }, { layer(MatMul {}) } },
        test::referenceMatMul(left, right, { 2, 5, 3, 2 }));
    // A Linear layer: its bias (one value per column) and activation after the GEMM.
    const auto bias = uniform({ 6 }, 8);
    const auto bw = t.weight("bias", bias);
    t.op({ "linear_bias", OpKind::MatMul, { { ai } },
             { layer(MatMul { true }, { ActivationKind::GeluTanh }, { wi, bw }) } },
        activated(withColumnBias(test::referenceMatMul(act, w, { 2, 5, 6 }), bias), { ActivationKind::GeluTanh }));
    // More outer batches with their own broadcast than cuBLAS calls are made for: the own kernel.
    const auto many = uniform({ 65, 1, 2, 3 }, 9), shared = uniform({ 1, 2, 3, 2 }, 10), bias2 = uniform({ 2 }, 11);
    const auto mi = t.input("many", many), si = t.input("shared", shared);
    const auto b2 = t.weight("bias2", bias2);
    t.op({ "own_kernel_bias", OpKind::MatMul, { { mi }, { si } },
             { layer(MatMul { true }, Activation::relu(), { b2 }) } },
        activated(withColumnBias(test::referenceMatMul(many, shared, { 65, 2, 2, 2 }), bias2), Activation::relu()));
    expectMatches(std::move(t), 1e-4);
}

// Embedding, LayerNorm, a linear layer with GELU, a residual Add and a Softmax in one plan: the new
// layers' buffers share the arena with each other.
TEST(CudaTransformerOps, SmallBlockChainsTheNewLayers)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    Built t("block");
    const auto table = uniform({ 20, 16 }, 1), scale = uniform({ 16 }, 2), bias = uniform({ 16 }, 3);
    const auto w = uniform({ 16, 16 }, 4, -0.5F, 0.5F);
    HostTensor ids { { 2, 7 }, {} };
    for (int i = 0; i < 14; ++i)
        ids.data.push_back(static_cast<float>((i * 7) % 20));
    const auto idIn = t.input("ids", ids);
    const auto tw = t.weight("table", table), sw = t.weight("scale", scale), bw = t.weight("bias", bias);
    const auto ww = t.weight("w", w);
    const auto embedded = test::referenceGather(table, ids, 0);
    const auto normed = test::referenceLayerNorm(embedded, LayerNorm {}, scale.data, &bias.data);
    const auto hidden = activated(test::referenceMatMul(normed, w, { 2, 7, 16 }), { ActivationKind::Gelu });
    const auto residual = test::referenceBinary(BinaryKind::Add, { hidden, embedded });
    const auto e = t.b.addOp({ "embed", OpKind::Gather, { { idIn } }, { layer(embedding(), {}, { tw }) } });
    const auto n = t.b.addOp({ "norm", OpKind::LayerNorm, { { e } }, { layer(LayerNorm {}, {}, { sw, bw }) } });
    const auto h
        = t.b.addOp({ "linear", OpKind::MatMul, { { n } }, { layer(MatMul {}, { ActivationKind::Gelu }, { ww }) } });
    const auto r = t.b.addOp({ "residual", OpKind::Add, { { h }, { e } }, { layer(Binary { BinaryKind::Add }) } });
    t.op({ "out", OpKind::Softmax, { { r } }, { layer(Softmax { 2 }) } }, test::referenceSoftmax(residual, 2));
    expectMatches(std::move(t), 1e-3);
}

} // namespace
