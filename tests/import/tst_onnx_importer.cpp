// ONNX import of hand-built models: fusions (BatchNorm folding with its numbers, Conv +
// activation, Pad into pooling), dropped pass-through nodes, folded shape chains, batch
// override, op naming (Split, unnamed nodes), padding (auto_pad), Gemm weight layouts.
#include "onnx_model_maker.h"

#include "import/onnx_importer.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace opsched;
using opsched::test::ModelMaker;

namespace {

const Op& opNamed(const Graph& g, const std::string& name)
{
    const auto id = g.findOp(name);
    if (!id)
        throw std::runtime_error("no op '" + name + "'");
    return g.op(*id);
}

std::vector<float> weightValues(const Graph& g, TensorId id)
{
    const auto& t = g.tensor(id);
    return t.weight->values(static_cast<std::size_t>(t.shape.elements()));
}

Shape outputShape(const Graph& g, std::size_t i = 0)
{
    return g.tensor(g.outputs().at(i)).shape;
}

// x [1,2,5,5] -> Conv(W [3,2,3,3], b) -> ...; returns the maker with the conv output "c".
ModelMaker convModel(int opset = 13)
{
    ModelMaker m(opset);
    m.input("x", { 1, 2, 5, 5 }).ramp("W", { 3, 2, 3, 3 }).weight("b", { 3 }, { 0.5F, -0.5F, 1.0F });
    auto& conv = m.node("Conv", { "x", "W", "b" }, { "c" }, "conv");
    ModelMaker::attr(conv, "pads", std::vector<std::int64_t> { 1, 1, 1, 1 });
    return m;
}

TEST(OnnxImporter, FoldsBatchNormIntoConvWeights)
{
    ModelMaker m = convModel();
    const std::vector<float> gamma { 1.0F, 2.0F, 0.5F }, beta { 0.1F, 0.2F, 0.3F }, mean { 0.0F, 1.0F, -1.0F },
        var { 1.0F, 4.0F, 0.25F };
    m.weight("gamma", { 3 }, gamma).weight("beta", { 3 }, beta).weight("mean", { 3 }, mean).weight("var", { 3 }, var);
    auto& bn = m.node("BatchNormalization", { "c", "gamma", "beta", "mean", "var" }, { "y" }, "bn");
    const float eps = 1e-3F;
    ModelMaker::attr(bn, "epsilon", eps);
    m.output("y");

    const Graph g = importOnnx(m.save());
    ASSERT_EQ(g.opCount(), 1U);
    const Op& op = opNamed(g, "conv");
    EXPECT_EQ(op.kind, OpKind::Conv);
    ASSERT_EQ(op.layers.size(), 1U);
    ASSERT_EQ(op.lastLayer().weights.size(), 2U);
    const auto w = weightValues(g, op.lastLayer().weights[0]);
    const auto b = weightValues(g, op.lastLayer().weights[1]);
    const float bias[] = { 0.5F, -0.5F, 1.0F };
    for (std::size_t o = 0; o < 3; ++o) {
        const double factor = gamma[o] / std::sqrt(static_cast<double>(var[o]) + eps);
        for (std::size_t k = 0; k < 18; ++k)
            EXPECT_NEAR(w[o * 18 + k], 0.01 * static_cast<double>(o * 18 + k + 1) * factor, 1e-6);
        EXPECT_NEAR(b[o], (bias[o] - mean[o]) * factor + beta[o], 1e-6);
    }
    EXPECT_EQ(outputShape(g), (Shape { 1, 3, 5, 5 }));
}

TEST(OnnxImporter, DropsKernelTapsThatOnlyReadPadding)
{
    // Dilation 6 on a 5x5 map, "same" padding: every tap but the centre reads padding only, so
    // the convolution is the centre's 1x1 one. With dilation 2 every tap reaches the input.
    for (const std::int64_t dilation : { 6, 2 }) {
        ModelMaker m;
        m.input("x", { 1, 2, 5, 5 }).ramp("W", { 3, 2, 3, 3 }).weight("b", { 3 }, { 0.5F, -0.5F, 1.0F });
        auto& conv = m.node("Conv", { "x", "W", "b" }, { "y" }, "conv");
        ModelMaker::attr(conv, "pads", std::vector<std::int64_t> { dilation, dilation, dilation, dilation });
        ModelMaker::attr(conv, "dilations", std::vector<std::int64_t> { dilation, dilation });
        m.output("y", { 1, 3, 5, 5 });
        const Graph g = importOnnx(m.save());
        const Op& op = opNamed(g, "conv");
        const auto& c = std::get<Conv2d>(op.lastLayer().params);
        EXPECT_EQ(outputShape(g), (Shape { 1, 3, 5, 5 }));
        const auto w = weightValues(g, op.lastLayer().weights[0]);
        if (dilation == 2) {
            EXPECT_EQ(c.kernelH, 3);
            EXPECT_EQ(c.padTop, 2);
            EXPECT_EQ(w.size(), 54U);
            continue;
        }
        EXPECT_EQ(c.kernelH, 1);
        EXPECT_EQ(c.kernelW, 1);
        EXPECT_EQ(c.padTop + c.padLeft + c.padBottom + c.padRight, 0);
        ASSERT_EQ(w.size(), 6U);
        for (std::size_t oi = 0; oi < 6; ++oi) // the ramp's centre values, 0.01 x (index + 1)
            EXPECT_FLOAT_EQ(w[oi], 0.01F * static_cast<float>(oi * 9 + 4 + 1));
    }
}

TEST(OnnxImporter, FusesConvBatchNormRelu)
{
    ModelMaker m = convModel();
    m.weight("s", { 3 }, { 1, 1, 1 })
        .weight("t", { 3 }, { 0, 0, 0 })
        .weight("mu", { 3 }, { 0, 0, 0 })
        .weight("v", { 3 }, { 1, 1, 1 });
    m.node("BatchNormalization", { "c", "s", "t", "mu", "v" }, { "n" }, "bn");
    m.node("Relu", { "n" }, { "y" }, "relu");
    m.output("y");
    const Graph g = importOnnx(m.save());
    ASSERT_EQ(g.opCount(), 1U);
    EXPECT_EQ(opNamed(g, "conv").lastLayer().activation, Activation::relu());
}

TEST(OnnxImporter, FusesConvActivations)
{
    struct Case {
        const char* op;
        int opset;
        Activation expected;
    };
    const Case cases[] = {
        { "Relu", 13, Activation::relu() }, { "Sigmoid", 13, { ActivationKind::Sigmoid } },
        { "Tanh", 13, { ActivationKind::Tanh } }, { "HardSwish", 14, { ActivationKind::HardSwish } },
        { "HardSigmoid", 13, { ActivationKind::HardSigmoid, 0.2F, 0.5F } },
        { "Clip", 13, Activation::relu6() }, // bounds as constant inputs
        { "Clip", 9, Activation::relu6() }, // bounds as attributes
    };
    for (const auto& c : cases) {
        ModelMaker m = convModel(c.opset);
        auto& act = m.node(c.op, { "c" }, { "y" }, "act");
        if (std::string(c.op) == "Clip" && c.opset >= 11) {
            m.weight("lo", {}, { 0.0F }).weight("hi", {}, { 6.0F });
            act.add_input("lo");
            act.add_input("hi");
        } else if (std::string(c.op) == "Clip") {
            ModelMaker::attr(act, "min", 0.0F);
            ModelMaker::attr(act, "max", 6.0F);
        }
        m.output("y");
        const Graph g = importOnnx(m.save());
        ASSERT_EQ(g.opCount(), 1U) << c.op;
        EXPECT_EQ(opNamed(g, "conv").lastLayer().activation, c.expected) << c.op << " opset " << c.opset;
    }
}

TEST(OnnxImporter, DoesNotFuseAConvOutputReadTwice)
{
    ModelMaker m = convModel();
    m.weight("s", { 3 }, { 1, 1, 1 })
        .weight("t", { 3 }, { 0, 0, 0 })
        .weight("mu", { 3 }, { 0, 0, 0 })
        .weight("v", { 3 }, { 1, 1, 1 });
    m.node("BatchNormalization", { "c", "s", "t", "mu", "v" }, { "n" }, "bn");
    m.node("Relu", { "c" }, { "r" }, "relu");
    m.node("Add", { "n", "r" }, { "y" }, "add");
    m.output("y");
    const Graph g = importOnnx(m.save());
    EXPECT_EQ(g.opCount(), 4U);
    EXPECT_EQ(opNamed(g, "bn").kind, OpKind::BatchNorm);
    EXPECT_EQ(opNamed(g, "conv").lastLayer().activation, Activation::none());
    EXPECT_EQ(opNamed(g, "add").kind, OpKind::Add); // same shapes: a one-term sum
    EXPECT_EQ(opNamed(g, "add").inputs.size(), 1U);
}

TEST(OnnxImporter, DropsIdentityAndDropoutAndFusesThroughThem)
{
    ModelMaker m = convModel();
    m.node("Identity", { "c" }, { "i" }, "identity");
    m.node("Dropout", { "i" }, { "d" }, "dropout");
    m.node("Relu", { "d" }, { "y" }, "relu");
    m.output("y");
    const Graph g = importOnnx(m.save());
    ASSERT_EQ(g.opCount(), 1U);
    EXPECT_EQ(opNamed(g, "conv").lastLayer().activation, Activation::relu());
}

TEST(OnnxImporter, IdentityFromInputToOutputStaysAnOp)
{
    ModelMaker m;
    m.input("x", { 1, 4 }).output("y");
    m.node("Identity", { "x" }, { "y" }, "id");
    const Graph g = importOnnx(m.save());
    ASSERT_EQ(g.opCount(), 1U);
    EXPECT_EQ(opNamed(g, "id").kind, OpKind::Identity);
}

// torchvision's shufflenet channel shuffle: x.view(n, groups, c / groups, h, w) with n from
// x.size(0), exported as Shape -> Gather -> Unsqueeze -> Concat -> Reshape.
ModelMaker shuffleModel()
{
    ModelMaker m;
    m.input("x", { 1, 4, 6, 6 }).output("y");
    m.ints("zero", { 0 }).ints("rest", { 2, 2, 6, 6 }).ints("flat", { -1, 4, 6, 6 });
    m.node("Shape", { "x" }, { "shape" }, "shape");
    auto& gather = m.node("Gather", { "shape", "idx" }, { "n" }, "gather");
    ModelMaker::attr(gather, "axis", std::int64_t { 0 });
    auto* idx = m.graph().add_initializer();
    idx->set_name("idx");
    idx->set_data_type(onnx::TensorProto::INT64);
    idx->add_int64_data(0); // a scalar index
    m.node("Unsqueeze", { "n", "zero" }, { "n1" }, "unsqueeze");
    auto& concat = m.node("Concat", { "n1", "rest" }, { "target" }, "concat");
    ModelMaker::attr(concat, "axis", std::int64_t { 0 });
    m.node("Reshape", { "x", "target" }, { "r" }, "reshape");
    auto& t = m.node("Transpose", { "r" }, { "t" }, "transpose");
    ModelMaker::attr(t, "perm", std::vector<std::int64_t> { 0, 2, 1, 3, 4 });
    m.node("Reshape", { "t", "flat" }, { "y" }, "reshape2");
    return m;
}

TEST(OnnxImporter, FoldsShapeChainsIntoStaticReshapes)
{
    const std::string path = shuffleModel().save();
    const Graph g = importOnnx(path);
    ASSERT_EQ(g.opCount(), 3U); // Reshape, Transpose, Reshape: the shape chain is gone
    const auto& target = std::get<Reshape>(opNamed(g, "reshape").lastLayer().params).target;
    EXPECT_EQ(target, (std::vector<std::int64_t> { 0, 2, 2, 6, 6 })); // batch copied, not fixed
    EXPECT_EQ(outputShape(g), (Shape { 1, 4, 6, 6 }));

    const Graph g3 = importOnnx(path, 3); // the chain is evaluated at the new batch
    EXPECT_EQ(outputShape(g3), (Shape { 3, 4, 6, 6 }));
    EXPECT_EQ(g.withBatch(5).tensor(g.withBatch(5).outputs()[0]).shape, (Shape { 5, 4, 6, 6 }));
}

// The same channel shuffle exported at a static batch of 1: the target is a stored constant.
TEST(OnnxImporter, StoredReshapeTargetsFollowTheBatch)
{
    ModelMaker m;
    m.input("x", { 1, 4, 6, 6 }).ints("target", { 1, 2, 2, 6, 6 }).ints("flat", { 1, 4, 6, 6 }).output("y");
    m.node("Reshape", { "x", "target" }, { "r" }, "reshape");
    auto& t = m.node("Transpose", { "r" }, { "t" }, "transpose");
    ModelMaker::attr(t, "perm", std::vector<std::int64_t> { 0, 2, 1, 3, 4 });
    m.node("Reshape", { "t", "flat" }, { "y" }, "reshape2");
    const Graph g = importOnnx(m.save(), 3); // 3x4x6x6 does not split into 1x2x2x6x6
    EXPECT_EQ(std::get<Reshape>(opNamed(g, "reshape").lastLayer().params).target,
        (std::vector<std::int64_t> { 0, 2, 2, 6, 6 }));
    EXPECT_EQ(outputShape(g), (Shape { 3, 4, 6, 6 }));
}

TEST(OnnxImporter, BatchOverrideReplacesInputBatchAndReshapeTargets)
{
    ModelMaker m;
    m.input("x", { 2, 3, 4, 4 }).ramp("W", { 5, 3, 1, 1 }).ints("shape", { 2, -1 }).ramp("fc", { 10, 80 }).output("y");
    m.node("Conv", { "x", "W" }, { "c" }, "conv");
    m.node("Reshape", { "c", "shape" }, { "f" }, "flatten");
    auto& gemm = m.node("Gemm", { "f", "fc" }, { "y" }, "fc");
    ModelMaker::attr(gemm, "transB", std::int64_t { 1 });
    const std::string path = m.save();

    const Graph own = importOnnx(path);
    EXPECT_EQ(own.batch(), 2);
    EXPECT_EQ(outputShape(own), (Shape { 2, 10 }));
    const Graph g = importOnnx(path, 7);
    EXPECT_EQ(g.batch(), 7);
    EXPECT_EQ(g.tensor(g.inputs()[0]).shape, (Shape { 7, 3, 4, 4 }));
    EXPECT_EQ(outputShape(g), (Shape { 7, 10 }));
    EXPECT_EQ(
        std::get<Reshape>(opNamed(g, "flatten").lastLayer().params).target, (std::vector<std::int64_t> { 0, -1 }));
}

TEST(OnnxImporter, SymbolicBatchDefaultsToOne)
{
    ModelMaker m;
    m.input("x", { -1, 3, 4, 4 }).output("y");
    m.node("Relu", { "x" }, { "y" }, "relu");
    const std::string path = m.save();
    EXPECT_EQ(importOnnx(path).batch(), 1);
    EXPECT_EQ(importOnnx(path, 16).batch(), 16);
}

TEST(OnnxImporter, SplitBecomesOneSliceOpPerOutput)
{
    ModelMaker m;
    m.input("x", { 1, 6, 4, 4 }).ints("sizes", { 1, 2, 3 }).output("a").output("c");
    auto& split = m.node("Split", { "x", "sizes" }, { "a", "b", "c" }, "split");
    ModelMaker::attr(split, "axis", std::int64_t { 1 });
    const Graph g = importOnnx(m.save());
    ASSERT_EQ(g.opCount(), 2U); // output 1 is read by nothing
    const auto& s0 = std::get<Slice>(opNamed(g, "split:0").lastLayer().params);
    const auto& s2 = std::get<Slice>(opNamed(g, "split:2").lastLayer().params);
    EXPECT_EQ(s0.starts, (std::vector<std::int64_t> { 0 }));
    EXPECT_EQ(s2.starts, (std::vector<std::int64_t> { 3 }));
    EXPECT_EQ(outputShape(g, 0), (Shape { 1, 1, 4, 4 }));
    EXPECT_EQ(outputShape(g, 1), (Shape { 1, 3, 4, 4 }));
    EXPECT_EQ(opNamed(g, "split:2").kind, OpKind::Slice);
}

TEST(OnnxImporter, UnnamedNodesGetStableNames)
{
    ModelMaker m;
    m.input("x", { 1, 2 }).output("y");
    m.node("Relu", { "x" }, { "r" });
    m.node("Sigmoid", { "r" }, { "y" });
    const Graph g = importOnnx(m.save());
    EXPECT_TRUE(g.findOp("Relu_0"));
    EXPECT_TRUE(g.findOp("Sigmoid_1"));
}

TEST(OnnxImporter, AutoPadComputesConvAndPoolPadding)
{
    struct Case {
        const char* autoPad;
        std::int64_t top, bottom;
    };
    // 8 wide, kernel 3, stride 2: 4 outputs need 1 extra row, at the end (UPPER) or start (LOWER).
    for (const Case c : { Case { "SAME_UPPER", 0, 1 }, Case { "SAME_LOWER", 1, 0 }, Case { "VALID", 0, 0 } }) {
        ModelMaker m;
        m.input("x", { 1, 1, 8, 8 }).ramp("W", { 2, 1, 3, 3 }).output("y").output("p");
        auto& conv = m.node("Conv", { "x", "W" }, { "y" }, "conv");
        ModelMaker::attr(conv, "auto_pad", std::string(c.autoPad));
        ModelMaker::attr(conv, "strides", std::vector<std::int64_t> { 2, 2 });
        auto& pool = m.node("MaxPool", { "x" }, { "p" }, "pool");
        ModelMaker::attr(pool, "auto_pad", std::string(c.autoPad));
        ModelMaker::attr(pool, "kernel_shape", std::vector<std::int64_t> { 3, 3 });
        ModelMaker::attr(pool, "strides", std::vector<std::int64_t> { 2, 2 });
        const Graph g = importOnnx(m.save());
        const auto& cv = std::get<Conv2d>(opNamed(g, "conv").lastLayer().params);
        EXPECT_EQ(cv.padTop, c.top) << c.autoPad;
        EXPECT_EQ(cv.padBottom, c.bottom) << c.autoPad;
        EXPECT_EQ(cv.padLeft, c.top) << c.autoPad;
        EXPECT_EQ(cv.padRight, c.bottom) << c.autoPad;
        const auto& pl = std::get<Pool2d>(opNamed(g, "pool").lastLayer().params);
        EXPECT_EQ(pl.padTop, c.top) << c.autoPad;
        EXPECT_EQ(pl.padBottom, c.bottom) << c.autoPad;
        const std::int64_t side = std::string(c.autoPad) == "VALID" ? 3 : 4;
        EXPECT_EQ(outputShape(g, 0), (Shape { 1, 2, side, side })) << c.autoPad;
        EXPECT_EQ(outputShape(g, 1), (Shape { 1, 1, side, side })) << c.autoPad;
    }
}

TEST(OnnxImporter, FoldsZeroPadIntoAveragePool)
{
    ModelMaker m;
    m.input("x", { 1, 2, 5, 5 }).ints("pads", { 0, 0, 1, 1, 0, 0, 1, 1 }).output("y");
    m.node("Pad", { "x", "pads" }, { "padded" }, "pad");
    auto& pool = m.node("AveragePool", { "padded" }, { "y" }, "pool");
    ModelMaker::attr(pool, "kernel_shape", std::vector<std::int64_t> { 3, 3 });
    const Graph g = importOnnx(m.save());
    ASSERT_EQ(g.opCount(), 1U);
    const auto& p = std::get<Pool2d>(opNamed(g, "pool").lastLayer().params);
    EXPECT_EQ(p.padTop, 1);
    EXPECT_EQ(p.padRight, 1);
    EXPECT_TRUE(p.countIncludePad); // the Pad's zeros were averaged
    EXPECT_EQ(outputShape(g), (Shape { 1, 2, 5, 5 }));
}

TEST(OnnxImporter, KeepsReflectPadAsItsOwnOp)
{
    ModelMaker m;
    m.input("x", { 1, 2, 5, 5 }).ints("pads", { 0, 0, 1, 1, 0, 0, 1, 1 }).output("y");
    auto& pad = m.node("Pad", { "x", "pads" }, { "padded" }, "pad");
    ModelMaker::attr(pad, "mode", std::string("reflect"));
    auto& pool = m.node("AveragePool", { "padded" }, { "y" }, "pool");
    ModelMaker::attr(pool, "kernel_shape", std::vector<std::int64_t> { 3, 3 });
    const Graph g = importOnnx(m.save());
    ASSERT_EQ(g.opCount(), 2U);
    EXPECT_EQ(std::get<Pad>(opNamed(g, "pad").lastLayer().params).mode, PadMode::Reflect);
}

// Gemm: A [2,3] x B -> [2,4]. The IR keeps weights as [outFeatures, K].
TEST(OnnxImporter, GemmTransposesConstantBAsNeeded)
{
    for (const bool transB : { false, true }) {
        ModelMaker m;
        m.input("a", { 2, 3 }).output("y");
        m.ramp("B", transB ? std::vector<std::int64_t> { 4, 3 } : std::vector<std::int64_t> { 3, 4 });
        m.weight("C", { 4 }, { 1, 2, 3, 4 });
        auto& gemm = m.node("Gemm", { "a", "B", "C" }, { "y" }, "gemm");
        ModelMaker::attr(gemm, "transB", std::int64_t { transB ? 1 : 0 });
        ModelMaker::attr(gemm, "alpha", 2.0F);
        ModelMaker::attr(gemm, "beta", 0.5F);
        const Graph g = importOnnx(m.save());
        ASSERT_EQ(g.opCount(), 1U);
        const Op& op = opNamed(g, "gemm");
        EXPECT_EQ(op.kind, OpKind::Gemm);
        EXPECT_EQ(outputShape(g), (Shape { 2, 4 }));
        const auto w = weightValues(g, op.lastLayer().weights[0]);
        for (std::size_t n = 0; n < 4; ++n)
            for (std::size_t k = 0; k < 3; ++k) {
                const std::size_t src = transB ? n * 3 + k : k * 4 + n;
                EXPECT_NEAR(w[n * 3 + k], 2.0 * 0.01 * static_cast<double>(src + 1), 1e-6) << transB;
            }
        const auto b = weightValues(g, op.lastLayer().weights[1]);
        EXPECT_EQ(b, (std::vector<float> { 0.5F, 1.0F, 1.5F, 2.0F }));
    }
}

TEST(OnnxImporter, GemmSharesAnUnchangedWeight)
{
    ModelMaker m;
    m.input("a", { 2, 3 }).ramp("B", { 4, 3 }).output("y");
    auto& gemm = m.node("Gemm", { "a", "B" }, { "y" }, "gemm");
    ModelMaker::attr(gemm, "transB", std::int64_t { 1 });
    const Graph g = importOnnx(m.save());
    EXPECT_EQ(g.tensor(opNamed(g, "gemm").lastLayer().weights[0]).name, "B");
}

TEST(OnnxImporter, GemmWithRunTimeBBecomesMatMul)
{
    ModelMaker m;
    m.input("a", { 2, 3 }).input("b", { 4, 3 }).output("y");
    auto& gemm = m.node("Gemm", { "a", "b" }, { "y" }, "gemm");
    ModelMaker::attr(gemm, "transB", std::int64_t { 1 });
    const Graph g = importOnnx(m.save());
    EXPECT_EQ(g.opCount(), 2U);
    EXPECT_EQ(opNamed(g, "gemm:transB").kind, OpKind::Transpose);
    EXPECT_EQ(opNamed(g, "gemm").kind, OpKind::MatMul);
    EXPECT_EQ(outputShape(g), (Shape { 2, 4 }));
}

TEST(OnnxImporter, BinaryOpsWithConstants)
{
    ModelMaker m;
    m.input("x", { 1, 3, 2, 2 }).weight("k", { 3, 1, 1 }, { 1, 2, 3 }).output("y");
    m.node("Mul", { "k", "x" }, { "a" }, "scale"); // constant first: operands swapped
    m.node("Sub", { "k", "a" }, { "b" }, "flip"); // c - x: the constant is the left operand
    m.node("Div", { "b", "k" }, { "c" }, "divide");
    m.node("Div", { "k", "c" }, { "y" }, "invert"); // c / x
    const Graph g = importOnnx(m.save());
    EXPECT_EQ(opNamed(g, "scale").kind, OpKind::Multiply);
    EXPECT_EQ(opNamed(g, "flip").kind, OpKind::Subtract);
    EXPECT_TRUE(std::get<Binary>(opNamed(g, "flip").layers.front().params).constantFirst);
    EXPECT_EQ(opNamed(g, "divide").kind, OpKind::Divide);
    EXPECT_FALSE(std::get<Binary>(opNamed(g, "divide").layers.front().params).constantFirst);
    EXPECT_TRUE(std::get<Binary>(opNamed(g, "invert").layers.front().params).constantFirst);
    EXPECT_EQ(outputShape(g), (Shape { 1, 3, 2, 2 }));
}

TEST(OnnxImporter, ConcatOnChannelsCombinesTerms)
{
    ModelMaker m;
    m.input("x", { 1, 2, 4, 4 }).ramp("W1", { 3, 2, 1, 1 }).ramp("W2", { 5, 2, 3, 3 }).output("y").output("z");
    m.node("Conv", { "x", "W1" }, { "a" }, "left");
    auto& right = m.node("Conv", { "x", "W2" }, { "b" }, "right");
    ModelMaker::attr(right, "pads", std::vector<std::int64_t> { 1, 1, 1, 1 });
    auto& cat = m.node("Concat", { "a", "b" }, { "y" }, "cat");
    ModelMaker::attr(cat, "axis", std::int64_t { 1 });
    auto& wide = m.node("Concat", { "a", "a" }, { "z" }, "wide");
    ModelMaker::attr(wide, "axis", std::int64_t { 3 });
    const Graph g = importOnnx(m.save());
    EXPECT_EQ(opNamed(g, "cat").inputs.size(), 2U);
    EXPECT_TRUE(std::holds_alternative<Identity>(opNamed(g, "cat").lastLayer().params));
    EXPECT_EQ(std::get<Concat>(opNamed(g, "wide").lastLayer().params).axis, 3);
    EXPECT_EQ(outputShape(g, 0), (Shape { 1, 8, 4, 4 }));
    EXPECT_EQ(outputShape(g, 1), (Shape { 1, 3, 4, 8 }));
}

TEST(OnnxImporter, SoftmaxBeforeOpset13RunsOverTheFlattenedTrailingAxes)
{
    // Trailing axes of extent 1 (or none): a softmax over the last axis as it is.
    ModelMaker plain(11);
    plain.input("x", { 2, 10 }).output("y");
    plain.node("Softmax", { "x" }, { "y" }, "softmax");
    const Graph g = importOnnx(plain.save());
    ASSERT_EQ(opNamed(g, "softmax").layers.size(), 1U);
    EXPECT_EQ(std::get<Softmax>(opNamed(g, "softmax").lastLayer().params).axis, 1);

    // Axis 1 of [2, 3, 4]: one op, rows of 12 between views (values: tst_cpu_legacy_softmax).
    ModelMaker flattened(11);
    flattened.input("x", { 2, 3, 4 }).output("y");
    flattened.node("Softmax", { "x" }, { "y" }, "softmax");
    const Graph f = importOnnx(flattened.save());
    ASSERT_EQ(f.opCount(), 1U);
    const auto& op = opNamed(f, "softmax");
    ASSERT_EQ(op.layers.size(), 3U);
    EXPECT_EQ(op.layers[1].output, (Shape { 2, 12 }));
    EXPECT_EQ(op.lastLayer().output, (Shape { 2, 3, 4 }));
}

TEST(OnnxImporter, SqueezeUnsqueezeBecomeReshapesKeepingTheBatch)
{
    ModelMaker m;
    m.input("x", { 2, 3, 1, 1 }).ints("ax", { 2, 3 }).ints("ax1", { 1 }).output("y");
    m.node("Squeeze", { "x", "ax" }, { "s" }, "squeeze");
    m.node("Unsqueeze", { "s", "ax1" }, { "y" }, "unsqueeze");
    const Graph g = importOnnx(m.save());
    EXPECT_EQ(std::get<Reshape>(opNamed(g, "squeeze").lastLayer().params).target, (std::vector<std::int64_t> { 0, 3 }));
    EXPECT_EQ(outputShape(g), (Shape { 2, 1, 3 }));
    EXPECT_EQ(importOnnx(m.save(), 5).tensor(importOnnx(m.save(), 5).outputs()[0]).shape, (Shape { 5, 1, 3 }));
}

TEST(OnnxImporter, ReduceMeanSliceTransposeAndPad)
{
    ModelMaker m;
    m.input("x", { 1, 4, 6, 6 })
        .ints("starts", { 1 })
        .ints("ends", { 5 })
        .ints("axes", { 2 })
        .ints("pads", { 0, 0, 1, 2, 0, 0, 1, 2 });
    m.output("y");
    m.node("Slice", { "x", "starts", "ends", "axes" }, { "s" }, "slice");
    m.node("Pad", { "s", "pads" }, { "p" }, "pad");
    auto& t = m.node("Transpose", { "p" }, { "t" }, "transpose");
    ModelMaker::attr(t, "perm", std::vector<std::int64_t> { 0, 2, 3, 1 });
    auto& r = m.node("ReduceMean", { "t" }, { "y" }, "mean");
    ModelMaker::attr(r, "axes", std::vector<std::int64_t> { 1, 2 });
    ModelMaker::attr(r, "keepdims", std::int64_t { 0 });
    const Graph g = importOnnx(m.save());
    EXPECT_EQ(g.opCount(), 4U);
    EXPECT_EQ(opNamed(g, "mean").kind, OpKind::Reduce);
    EXPECT_EQ(outputShape(g), (Shape { 1, 4 }));
}

} // namespace

TEST(OnnxImporter, IntegerDivisionTruncates)
{
    // ONNX's Div of two integers truncates; ids are floats inside opsched, so a Truncate follows.
    ModelMaker m;
    m.input("ids", { 1, 4 }, onnx::TensorProto::INT64).ints("two", { 2 }).output("y");
    m.node("Div", { "ids", "two" }, { "q" }, "halve");
    auto& cast = m.node("Cast", { "q" }, { "y" }, "to_float");
    ModelMaker::attr(cast, "to", std::int64_t { onnx::TensorProto::FLOAT });
    const Graph g = importOnnx(m.save());
    EXPECT_EQ(opNamed(g, "halve:truncate").kind, OpKind::Math);
    // A float Div keeps its fraction.
    ModelMaker f;
    f.input("x", { 1, 4 }).weight("two", { 1 }, { 2 }).output("y");
    f.node("Div", { "x", "two" }, { "y" }, "halve");
    const Graph fg = importOnnx(f.save());
    EXPECT_FALSE(fg.findOp("halve:truncate"));
}

TEST(OnnxImporter, LayerNormPatternsBecomeOneOpOnlyOverTrailingAxes)
{
    // x - mean, squared, mean, + eps, sqrt, divide, * scale, + bias over the last axis: one op.
    auto model = [](std::int64_t axis) {
        ModelMaker m;
        m.input("x", { 1, 3, 4 }).weight("eps", {}, { 1e-5F }).weight("two", {}, { 2.0F }).output("y");
        m.weight("scale", { 4 }, { 1, 2, 3, 4 }).weight("bias", { 4 }, { 0, 0, 0, 1 });
        ModelMaker::attr(m.node("ReduceMean", { "x" }, { "m" }, "ln.mean"), "axes", std::vector<std::int64_t> { axis });
        m.node("Sub", { "x", "m" }, { "d" }, "ln.sub");
        m.node("Pow", { "d", "two" }, { "p" }, "ln.pow");
        ModelMaker::attr(m.node("ReduceMean", { "p" }, { "v" }, "ln.var"), "axes", std::vector<std::int64_t> { axis });
        m.node("Add", { "v", "eps" }, { "e" }, "ln.eps");
        m.node("Sqrt", { "e" }, { "s" }, "ln.sqrt");
        m.node("Div", { "d", "s" }, { "n" }, "ln.div");
        m.node("Mul", { "n", "scale" }, { "a" }, "ln.scale");
        m.node("Add", { "a", "bias" }, { "y" }, "ln.bias");
        return importOnnx(m.save());
    };
    const Graph last = model(-1);
    ASSERT_EQ(last.opCount(), 1U);
    EXPECT_EQ(last.ops().front().kind, OpKind::LayerNorm);
    // Over the middle axis the nodes map one by one (and the scale broadcasts over the last axis).
    const Graph middle = model(1);
    EXPECT_GT(middle.opCount(), 5U);
    for (const auto& op : middle.ops())
        EXPECT_NE(op.kind, OpKind::LayerNorm) << op.name;
}
