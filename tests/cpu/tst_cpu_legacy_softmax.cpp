// Softmax and LogSoftmax before opset 13 normalise over every dimension from `axis` on, flattened
// (a segmentation head's softmax over channels and pixels at opset 11): through the importer and
// the CPU executor, against a naive evaluation of that definition.
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

} // namespace
