// How the zoo's CNNs seed their weights (zoo/signal_scale.h): the statistics it propagates, and
// the filters it gives the networks (rows summing to zero, depthwise ones to one shared sum).
// That outputs then depend on the input is measured on the CPU (tests/cpu/tst_cpu_zoo_inputs.cpp).
#include "model/model_ref.h"
#include "zoo/signal_scale.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

using namespace opsched;
using namespace opsched::zoo;

namespace {

std::vector<double> rowSums(const Graph& g, const std::string& weightName)
{
    for (const auto& t : g.tensors())
        if (t.name == weightName) {
            const auto values = t.weight->values(static_cast<std::size_t>(t.shape.elements()));
            const auto row = static_cast<std::size_t>(t.shape.elements() / t.shape[0]);
            std::vector<double> sums(static_cast<std::size_t>(t.shape[0]), 0.0);
            for (std::size_t i = 0; i < values.size(); ++i)
                sums[i / row] += values[i];
            return sums;
        }
    throw std::runtime_error("no weight " + weightName);
}

TEST(SignalScale, SeededRowsSumToTheirTarget)
{
    const auto values = WeightData::seeded(7, 1.0F, 4, 0.5F)->values(12);
    for (std::size_t row = 0; row < 3; ++row)
        EXPECT_NEAR(values[row * 4] + values[row * 4 + 1] + values[row * 4 + 2] + values[row * 4 + 3], 0.5, 1e-6);
    EXPECT_NE(values, WeightData::seeded(7, 1.0F)->values(12)); // shifted
    EXPECT_EQ(WeightData::seeded(7, 1.0F, 1)->values(3), WeightData::seeded(7, 1.0F)->values(3)); // rows of one: as is
}

TEST(SignalScale, CoverageAndScale)
{
    Conv2d c;
    c.outChannels = 1;
    c.kernelH = c.kernelW = 3;
    c.padTop = c.padBottom = c.padLeft = c.padRight = 1;
    // On 4x4: per axis 2 + 3 + 3 + 2 of 12 taps land inside.
    EXPECT_NEAR(tapCoverage(c, Shape { 1, 1, 4, 4 }), (10.0 / 12) * (10.0 / 12), 1e-12);
    Conv2d one;
    one.outChannels = 1;
    EXPECT_DOUBLE_EQ(tapCoverage(one, Shape { 1, 1, 4, 4 }), 1.0);
    // Uniform in +-a has variance a^2/3: 9 taps of unit variance to variance 2.
    const double a = heUniformScale(9, 1.0, 1.0, 2.0);
    EXPECT_NEAR(9 * a * a / 3, 2.0, 1e-6);
}

TEST(SignalScale, ReluAndPoolMoments)
{
    const Signal centred { { 0.0, 0.0 }, 2.0 };
    const Signal r = afterActivation(Activation::relu(), centred);
    EXPECT_NEAR(r.mean[0], std::sqrt(1.0 / std::numbers::pi), 1e-6); // sqrt(2) / sqrt(2 pi)
    EXPECT_NEAR(r.variance, 1.0 - 1.0 / std::numbers::pi, 1e-6);
    EXPECT_TRUE(r.nonNegative);
    EXPECT_EQ(afterActivation(Activation::relu(), r).mean, r.mean); // a second ReLU passes it

    Layer max;
    max.params = Pool2d { PoolKind::Max, 3, 3, 1, 1 };
    const auto m = signalThrough(max, Signal { { 0.0 }, 1.0 }, Shape { 1, 1, 8, 8 });
    ASSERT_TRUE(m);
    EXPECT_NEAR(m->mean[0], 1.485, 0.005); // the largest of 9 standard Gaussians
    EXPECT_NEAR(m->variance, 0.357, 0.005);
    Layer average;
    average.params = Pool2d { PoolKind::Average, 3, 3, 1, 1 };
    const auto avg = signalThrough(average, Signal { { 0.5 }, 0.9 }, Shape { 1, 1, 8, 8 });
    EXPECT_EQ(avg->mean[0], 0.5);
    EXPECT_NEAR(avg->variance, 0.3, 1e-12);
    Layer matmul;
    matmul.params = MatMul {};
    EXPECT_FALSE(signalThrough(matmul, centred, Shape { 1, 2 }));
}

TEST(SignalScale, ConvFiltersDropTheSharedMean)
{
    // A conv's filters sum to zero; a depthwise conv's all share one positive sum (its pointwise
    // conv's sum to zero again).
    for (double s : rowSums(loadModel("zoo:inception_v3"), "Mixed_7c.branch3x3dbl_2.weight"))
        EXPECT_NEAR(s, 0.0, 1e-4);
    const Graph nasnet = loadModel("zoo:nasnet_a");
    const auto depthwise = rowSums(nasnet, "cell_0.comb0_left_1.1.weight");
    EXPECT_GT(depthwise.front(), 0.0);
    for (double s : depthwise)
        EXPECT_NEAR(s, depthwise.front(), 1e-4);
    for (double s : rowSums(nasnet, "cell_0.comb0_left_1.2.weight"))
        EXPECT_NEAR(s, 0.0, 1e-4);
    // The classifier is not centred (no BN after it).
    double most = 0;
    for (double s : rowSums(nasnet, "fc.weight"))
        most = std::max(most, std::abs(s));
    EXPECT_GT(most, 1e-2);
}

} // namespace
