// Softmax and LogSoftmax before opset 13 normalise over every dimension from `axis` on, flattened
// (a segmentation head's softmax over channels and pixels at opset 11), and ReduceLogSumExp (ONNX's
// own cases of it are float64): through the importer and the CPU executor, against a naive
// evaluation of the definition in double precision.
#include "exec/cpu/cpu_executor.h"
#include "import/onnx_importer.h"
#include "plan/plan.h"
#include "schedule/basic_schedulers.h"

#include "../import/onnx_model_maker.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace opsched;
using opsched::test::ModelMaker;

namespace {

// Rows of `rowLength` consecutive values, each normalised on its own.
std::vector<double> naive(const std::vector<float>& x, std::size_t rowLength, bool log)
{
    std::vector<double> out(x.size());
    for (std::size_t r = 0; r < x.size(); r += rowLength) {
        double m = -INFINITY, sum = 0;
        for (std::size_t i = 0; i < rowLength; ++i)
            m = std::max(m, static_cast<double>(x[r + i]));
        for (std::size_t i = 0; i < rowLength; ++i)
            sum += std::exp(x[r + i] - m);
        for (std::size_t i = 0; i < rowLength; ++i)
            out[r + i] = log ? x[r + i] - m - std::log(sum) : std::exp(x[r + i] - m) / sum;
    }
    return out;
}

TEST(CpuLegacySoftmax, NormalisesOverTheFlattenedTrailingDimensions)
{
    const std::vector<std::int64_t> dims { 2, 3, 4, 5 };
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-3.0F, 3.0F);
    std::vector<float> x(2 * 3 * 4 * 5);
    for (auto& v : x)
        v = u(rng);
    for (const std::string op : { "Softmax", "LogSoftmax" })
        for (std::int64_t axis : { 0, 1, 2, 3 }) {
            ModelMaker m(11);
            m.input("x", dims).output("y", dims);
            ModelMaker::attr(m.node(op, { "x" }, { "y" }, "head"), "axis", axis);
            const Graph g = importOnnx(m.save(), 2);
            cpu::CpuExecutor ex(g, compileSchedule(g, sequentialSchedule(g)));
            const auto got = ex.run({ x }).front();
            std::size_t row = 1;
            for (auto d = static_cast<std::size_t>(axis); d < dims.size(); ++d)
                row *= static_cast<std::size_t>(dims[d]);
            const auto want = naive(x, row, op == "LogSoftmax");
            ASSERT_EQ(got.size(), want.size());
            double worst = 0;
            for (std::size_t i = 0; i < got.size(); ++i)
                worst = std::max(worst, std::abs(got[i] - want[i]));
            EXPECT_LT(worst, 1e-5) << op << " axis " << axis;
        }
}

// log(sum(exp(x))) over the axes, keepdims or not; values of +-1000 in some rows, where the plain
// formula overflows (exp(1000) is inf in float and double alike): the result must stay finite and
// right, so the importer's max-shifted form is what runs.
TEST(CpuReduceLogSumExp, MatchesTheDefinitionAlsoForLargeValues)
{
    const std::vector<std::int64_t> dims { 2, 3, 4 };
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(-4.0F, 4.0F);
    std::vector<float> x(2 * 3 * 4);
    for (auto& v : x)
        v = u(rng);
    x[0] = 1000.0F;
    x[5] = -1000.0F;
    struct Case {
        std::vector<std::int64_t> axes;
        bool keep;
    };
    for (const Case& c : { Case { { 2 }, true }, Case { { 1 }, false }, Case { { 0, 2 }, true }, Case { {}, false } }) {
        std::vector<std::int64_t> outDims;
        std::vector<bool> reduced(dims.size(), c.axes.empty());
        for (auto a : c.axes)
            reduced[static_cast<std::size_t>(a)] = true;
        for (std::size_t d = 0; d < dims.size(); ++d)
            if (!reduced[d] || c.keep)
                outDims.push_back(reduced[d] ? 1 : dims[d]);
        ModelMaker m(13);
        m.input("x", dims).output("y", outDims);
        auto& n = m.node("ReduceLogSumExp", { "x" }, { "y" }, "lse");
        if (!c.axes.empty())
            ModelMaker::attr(n, "axes", c.axes);
        ModelMaker::attr(n, "keepdims", std::int64_t { c.keep ? 1 : 0 });
        const Graph g = importOnnx(m.save(), 2);
        cpu::CpuExecutor ex(g, compileSchedule(g, sequentialSchedule(g)));
        const auto got = ex.run({ x }).front();
        // The definition, per output element: every input whose kept coordinates match it.
        std::vector<double> sums(got.size(), 0.0), maxima(got.size(), -INFINITY);
        auto outIndex = [&](std::size_t i) {
            const std::int64_t idx[] = { static_cast<std::int64_t>(i) / 12, (static_cast<std::int64_t>(i) / 4) % 3,
                static_cast<std::int64_t>(i) % 4 };
            std::size_t o = 0;
            for (std::size_t d = 0; d < 3; ++d)
                if (!reduced[d])
                    o = o * static_cast<std::size_t>(dims[d]) + static_cast<std::size_t>(idx[d]);
            return o;
        };
        for (std::size_t i = 0; i < x.size(); ++i)
            maxima[outIndex(i)] = std::max(maxima[outIndex(i)], static_cast<double>(x[i]));
        for (std::size_t i = 0; i < x.size(); ++i)
            sums[outIndex(i)] += std::exp(x[i] - maxima[outIndex(i)]);
        ASSERT_EQ(got.size(), sums.size());
        for (std::size_t o = 0; o < got.size(); ++o) {
            const double want = maxima[o] + std::log(sums[o]);
            EXPECT_TRUE(std::isfinite(got[o])) << "output " << o;
            EXPECT_NEAR(got[o], want, 1e-5 * std::max(1.0, std::abs(want))) << "output " << o;
        }
    }
}

} // namespace
