// Models older than opset 7, upgraded at import (onnx_old_opsets.h): explicit broadcasting from an
// axis, per-channel PRelu slopes, Reshape's shape attribute and BatchNormalization's is_test give
// what their opset-6 definitions say, compared element-wise with those definitions written out
// here. (What cannot be upgraded is refused by name: OnnxImportErrors.OpsetsOutOfRange.)
#include "cpu_test_support.h"
#include "import/onnx_importer.h"

#include "../import/onnx_model_maker.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace opsched;
using opsched::test::ModelMaker;

namespace {

std::vector<float> runModel(const std::string& path, const std::vector<std::vector<float>>& inputs)
{
    return opsched::test::runSequential(importOnnx(path, 1), inputs).front();
}

std::vector<float> wave(std::size_t n)
{
    std::vector<float> x(n);
    for (std::size_t i = 0; i < n; ++i)
        x[i] = std::sin(0.7F * static_cast<float>(i)) * 2.0F;
    return x;
}

} // namespace

TEST(CpuOldOpsets, BroadcastFromAnAxisMatchesChannelsNotTheLastDimension)
{
    // Opset 6: Add(x [1,3,2,3], b [3], broadcast=1, axis=1) adds b[c] to channel c. Numpy
    // broadcasting would add b along the last dimension (also of size 3), so a wrong reading shows.
    const std::vector<float> b { 10.0F, 20.0F, 30.0F };
    ModelMaker m(6);
    m.input("x", { 1, 3, 2, 3 }).output("y", { 1, 3, 2, 3 }).weight("b", { 3 }, b);
    auto& add = m.node("Add", { "x", "b" }, { "y" }, "add");
    ModelMaker::attr(add, "broadcast", std::int64_t { 1 });
    ModelMaker::attr(add, "axis", std::int64_t { 1 });
    const auto x = wave(18);
    const auto got = runModel(m.save(), { x });
    ASSERT_EQ(got.size(), x.size());
    for (std::size_t i = 0; i < x.size(); ++i)
        EXPECT_FLOAT_EQ(got[i], x[i] + b[i / 6]) << i;
}

TEST(CpuOldOpsets, BroadcastWithoutAxisMatchesTheLastDimensions)
{
    // Without axis, B's dimensions are A's last ones: Mul(x [1,2,3,2], s [3,2]).
    const std::vector<float> s { 1, 2, 3, 4, 5, 6 };
    ModelMaker m(6);
    m.input("x", { 1, 2, 3, 2 }).output("y", { 1, 2, 3, 2 }).weight("s", { 3, 2 }, s);
    ModelMaker::attr(m.node("Mul", { "x", "s" }, { "y" }, "mul"), "broadcast", std::int64_t { 1 });
    const auto x = wave(12);
    const auto got = runModel(m.save(), { x });
    ASSERT_EQ(got.size(), x.size());
    for (std::size_t i = 0; i < x.size(); ++i)
        EXPECT_FLOAT_EQ(got[i], x[i] * s[i % 6]) << i;
}

TEST(CpuOldOpsets, PreluSlopeIsPerChannel)
{
    // Opset 6's PRelu slope [C] belongs to axis 1; the input's last dimension is also C.
    const std::vector<float> slope { 0.1F, 0.5F, -2.0F };
    ModelMaker m(6);
    m.input("x", { 1, 3, 2, 3 }).output("y", { 1, 3, 2, 3 }).weight("slope", { 3 }, slope);
    m.node("PRelu", { "x", "slope" }, { "y" }, "prelu");
    const auto x = wave(18);
    const auto got = runModel(m.save(), { x });
    ASSERT_EQ(got.size(), x.size());
    for (std::size_t i = 0; i < x.size(); ++i)
        EXPECT_FLOAT_EQ(got[i], x[i] >= 0 ? x[i] : x[i] * slope[i / 6]) << i;
}

TEST(CpuOldOpsets, ReshapeAttributeAndInferenceBatchNorm)
{
    // Opset 4: Reshape takes its shape as an attribute; BatchNormalization (is_test=1) normalises
    // per channel with the running statistics.
    const std::vector<float> scale { 1.5F, -0.5F }, bias { 0.25F, 1.0F }, mean { 0.1F, -0.3F }, var { 2.0F, 0.5F };
    ModelMaker m(4);
    m.input("x", { 1, 2, 2, 2 }).output("y", { 1, 8 });
    m.weight("scale", { 2 }, scale).weight("bias", { 2 }, bias).weight("mean", { 2 }, mean).weight("var", { 2 }, var);
    auto& bn = m.node("BatchNormalization", { "x", "scale", "bias", "mean", "var" }, { "n" }, "bn");
    ModelMaker::attr(bn, "is_test", std::int64_t { 1 });
    ModelMaker::attr(bn, "epsilon", 1e-5F);
    ModelMaker::attr(m.node("Reshape", { "n" }, { "y" }, "flatten"), "shape", std::vector<std::int64_t> { 1, 8 });
    const auto x = wave(8);
    const auto got = runModel(m.save(), { x });
    ASSERT_EQ(got.size(), x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        const std::size_t c = i / 4;
        const float want = scale[c] * (x[i] - mean[c]) / std::sqrt(var[c] + 1e-5F) + bias[c];
        EXPECT_NEAR(got[i], want, 1e-5F) << i;
    }
}
