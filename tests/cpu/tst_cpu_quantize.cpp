// QuantizeLinear and DequantizeLinear: on activations, float arithmetic with ONNX's rounding (half
// to even) and saturation, compared element-wise with the definitions written out here; on
// constants (int8 weights, int32 biases), folded at import, so a QDQ convolution gives what the
// float convolution gives on the dequantized weights and the quantized input.
#include "exec/cpu/cpu_executor.h"
#include "import/onnx_importer.h"
#include "plan/plan.h"
#include "schedule/basic_schedulers.h"

#include "../import/onnx_model_maker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace opsched;
using opsched::test::ModelMaker;

namespace {

std::vector<float> runModel(const std::string& path, const std::vector<std::vector<float>>& inputs)
{
    const Graph g = importOnnx(path, 1);
    cpu::CpuExecutor ex(g, compileSchedule(g, sequentialSchedule(g)));
    return ex.run(inputs).front();
}

void addTyped(ModelMaker& m, const std::string& name, int type, const std::vector<std::int64_t>& dims,
    const std::vector<std::int64_t>& values)
{
    auto* t = m.graph().add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    for (auto d : dims)
        t->add_dims(d);
    for (auto v : values) {
        if (type == onnx::TensorProto::INT64)
            t->add_int64_data(v);
        else
            t->add_int32_data(static_cast<std::int32_t>(v)); // int8, uint8 and int32 live here
    }
}

// Quantize then dequantize in the reference: what the model computes.
float fakeQuant(float x, float scale, std::int64_t zero, std::int64_t lo, std::int64_t hi)
{
    const double q = std::clamp(std::nearbyint(static_cast<double>(x / scale)) + static_cast<double>(zero),
        static_cast<double>(lo), static_cast<double>(hi));
    return static_cast<float>(q - static_cast<double>(zero)) * scale;
}

} // namespace

TEST(CpuQuantize, QuantizeRoundsHalfToEvenAndSaturatesUint8)
{
    // x / 0.5 = 2.5 -> 2, 3.5 -> 4, -0.5 -> -0 (then + 128); beyond the range saturates.
    const std::vector<float> x { 1.25F, 1.75F, -0.25F, 0.0F, 70.0F, -70.0F, 0.3F, -1.1F };
    ModelMaker m(13);
    m.input("x", { 1, 8 }).output("y", { 1, 8 }).weight("s", {}, { 0.5F });
    addTyped(m, "z", onnx::TensorProto::UINT8, {}, { 128 });
    m.node("QuantizeLinear", { "x", "s", "z" }, { "q" }, "quant");
    ModelMaker::attr(m.node("Cast", { "q" }, { "y" }, "to_float"), "to", std::int64_t { onnx::TensorProto::FLOAT });
    const auto got = runModel(m.save(), { x });
    EXPECT_EQ(got, (std::vector<float> { 130, 132, 128, 128, 255, 0, 129, 126 }));
}

TEST(CpuQuantize, PerChannelInt8FakeQuantMatchesTheDefinition)
{
    // Q -> DQ on a [1, 3, 2, 2] activation, int8, one scale and zero point per channel (axis 1).
    const std::vector<float> scales { 0.05F, 0.2F, 0.013F };
    const std::vector<std::int64_t> zeros { 0, -3, 7 };
    std::vector<float> x(12);
    for (std::size_t i = 0; i < x.size(); ++i)
        x[i] = std::sin(static_cast<float>(i) * 1.7F) * (i % 3 == 0 ? 9.0F : 1.3F);
    ModelMaker m(13);
    m.input("x", { 1, 3, 2, 2 }).output("y", { 1, 3, 2, 2 }).weight("s", { 3 }, scales);
    addTyped(m, "z", onnx::TensorProto::INT8, { 3 }, zeros);
    m.node("QuantizeLinear", { "x", "s", "z" }, { "q" }, "quant");
    m.node("DequantizeLinear", { "q", "s", "z" }, { "y" }, "dequant");
    const auto got = runModel(m.save(), { x });
    ASSERT_EQ(got.size(), x.size());
    int saturated = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const std::size_t c = i / 4;
        const float want = fakeQuant(x[i], scales[c], zeros[c], -128, 127);
        EXPECT_FLOAT_EQ(got[i], want) << i;
        saturated += std::abs(x[i] / scales[c] + static_cast<float>(zeros[c])) > 127.5F ? 1 : 0;
    }
    EXPECT_GT(saturated, 0); // the case reaches the int8 range's ends
}

TEST(CpuQuantize, QdqConvolutionEqualsTheFloatConvolutionOfTheDequantizedValues)
{
    // input -> Q -> DQ -> Conv(W = DQ(int8, per output channel), B = DQ(int32)) -> Relu.
    const std::int64_t cout = 4, cin = 2, k = 3;
    std::vector<std::int64_t> wq(static_cast<std::size_t>(cout * cin * k * k));
    for (std::size_t i = 0; i < wq.size(); ++i)
        wq[i] = static_cast<std::int64_t>((i * 37) % 255) - 127;
    const std::vector<float> wScale { 0.01F, 0.02F, 0.005F, 0.03F };
    const std::vector<std::int64_t> bq { 100, -250, 37, 0 };
    const float xScale = 0.04F;
    const std::int64_t xZero = 128;
    std::vector<float> bScale(4), wDeq(wq.size()), bDeq(4);
    for (std::size_t o = 0; o < 4; ++o) {
        bScale[o] = xScale * wScale[o];
        bDeq[o] = static_cast<float>(bq[o]) * bScale[o];
    }
    for (std::size_t i = 0; i < wq.size(); ++i)
        wDeq[i] = static_cast<float>(wq[i]) * wScale[i / static_cast<std::size_t>(cin * k * k)];
    std::vector<float> x(static_cast<std::size_t>(cin * 6 * 6));
    for (std::size_t i = 0; i < x.size(); ++i)
        x[i] = std::cos(static_cast<float>(i) * 0.9F) * 3.0F;

    ModelMaker qdq(13);
    qdq.input("x", { 1, cin, 6, 6 }).output("y").weight("xs", {}, { xScale }).weight("ws", { cout }, wScale);
    qdq.weight("bs", { cout }, bScale);
    addTyped(qdq, "xz", onnx::TensorProto::UINT8, {}, { xZero });
    addTyped(qdq, "wq", onnx::TensorProto::INT8, { cout, cin, k, k }, wq);
    addTyped(qdq, "bq", onnx::TensorProto::INT32, { cout }, bq);
    addTyped(qdq, "wz", onnx::TensorProto::INT8, { cout }, { 0, 0, 0, 0 });
    qdq.node("QuantizeLinear", { "x", "xs", "xz" }, { "xq" }, "quant");
    qdq.node("DequantizeLinear", { "xq", "xs", "xz" }, { "xd" }, "dequant");
    ModelMaker::attr(
        qdq.node("DequantizeLinear", { "wq", "ws", "wz" }, { "w" }, "dequant_w"), "axis", std::int64_t { 0 });
    ModelMaker::attr(qdq.node("DequantizeLinear", { "bq", "bs" }, { "b" }, "dequant_b"), "axis", std::int64_t { 0 });
    ModelMaker::attr(
        qdq.node("Conv", { "xd", "w", "b" }, { "c" }, "conv"), "pads", std::vector<std::int64_t> { 1, 1, 1, 1 });
    qdq.node("Relu", { "c" }, { "y" }, "relu");
    const std::string qdqPath = qdq.save("qdq");
    const Graph g = importOnnx(qdqPath, 1);
    // The weight's and bias's dequantization fold into the convolution's weights: the ops are the
    // input's quantization (division and rounding, zero point and clip), its dequantization
    // (zero point, scale) and the convolution with its Relu.
    EXPECT_EQ(g.opCount(), 5U);
    EXPECT_FALSE(g.findOp("dequant_w"));
    EXPECT_FALSE(g.findOp("dequant_b"));

    ModelMaker plain(13);
    plain.input("x", { 1, cin, 6, 6 }).output("y").weight("w", { cout, cin, k, k }, wDeq).weight("b", { cout }, bDeq);
    ModelMaker::attr(
        plain.node("Conv", { "x", "w", "b" }, { "c" }, "conv"), "pads", std::vector<std::int64_t> { 1, 1, 1, 1 });
    plain.node("Relu", { "c" }, { "y" }, "relu");
    std::vector<float> xq(x.size());
    for (std::size_t i = 0; i < x.size(); ++i)
        xq[i] = fakeQuant(x[i], xScale, xZero, 0, 255);

    const auto got = runModel(qdqPath, { x });
    const auto want = runModel(plain.save("plain"), { xq });
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        EXPECT_NEAR(got[i], want[i], 1e-6F) << i;
}

TEST(CpuQuantize, RunTimeScalesAndBlockedQuantizationAreRefusedByName)
{
    ModelMaker m(13);
    m.input("x", { 1, 4 }).input("s", {}).output("y", { 1, 4 });
    m.node("QuantizeLinear", { "x", "s" }, { "q" }, "quant");
    m.node("DequantizeLinear", { "q", "s" }, { "y" }, "dequant");
    try {
        importOnnx(m.save(), 1);
        FAIL() << "a scale computed at run time imported";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("'quant' (QuantizeLinear): scales and zero points computed at run time"),
            std::string::npos)
            << e.what();
    }
}
