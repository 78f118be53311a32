// CumSum (forward or reverse, inclusive or exclusive, any axis) imported as a product with a
// constant triangle, run on the CPU and compared element-wise with running sums computed here
// (ONNX's own cases are float64), and on an int64 mask the way exports take position ids from it.
#include "exec/cpu/cpu_executor.h"
#include "import/onnx_importer.h"
#include "plan/plan.h"
#include "schedule/basic_schedulers.h"

#include "../import/onnx_model_maker.h"

#include <gtest/gtest.h>

#include <random>

using namespace opsched;
using opsched::test::ModelMaker;

namespace {

std::vector<float> runCumSum(const std::vector<std::int64_t>& dims, std::int64_t axis, bool exclusive, bool reverse,
    const std::vector<float>& x, int type = onnx::TensorProto::FLOAT)
{
    ModelMaker m(14);
    m.input("x", dims, type).output("y", dims).ints("axis", { axis });
    const bool floats = type == onnx::TensorProto::FLOAT;
    auto& n = m.node("CumSum", { "x", "axis" }, { floats ? "y" : "sums" }, "cumsum");
    ModelMaker::attr(n, "exclusive", std::int64_t { exclusive ? 1 : 0 });
    ModelMaker::attr(n, "reverse", std::int64_t { reverse ? 1 : 0 });
    if (!floats) // the sums keep the input's type; the model's output is float
        ModelMaker::attr(
            m.node("Cast", { "sums" }, { "y" }, "to_float"), "to", std::int64_t { onnx::TensorProto::FLOAT });
    const Graph g = importOnnx(m.save(), dims.front());
    cpu::CpuExecutor ex(g, compileSchedule(g, sequentialSchedule(g)));
    return ex.run({ x }).front();
}

} // namespace

TEST(CpuCumSum, RunningSumsAlongEveryAxis)
{
    const std::vector<std::int64_t> dims { 2, 3, 5 };
    const std::int64_t strides[] = { 15, 5, 1 };
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-1.0F, 1.0F);
    std::vector<float> x(30);
    for (auto& v : x)
        v = u(rng);
    for (const std::int64_t axis : { 2, 1, 0, -1 })
        for (const bool exclusive : { false, true })
            for (const bool reverse : { false, true }) {
                const auto got = runCumSum(dims, axis, exclusive, reverse, x);
                ASSERT_EQ(got.size(), x.size());
                const std::int64_t a = axis < 0 ? axis + 3 : axis;
                for (std::size_t i = 0; i < x.size(); ++i) {
                    const auto at = static_cast<std::int64_t>(i) / strides[a] % dims[a];
                    const auto base = static_cast<std::int64_t>(i) - at * strides[a];
                    double want = 0;
                    for (std::int64_t k = 0; k < dims[a]; ++k) {
                        const bool in = reverse ? (exclusive ? k > at : k >= at) : (exclusive ? k < at : k <= at);
                        if (in)
                            want += x[static_cast<std::size_t>(base + k * strides[a])];
                    }
                    EXPECT_NEAR(got[i], want, 1e-5) << "axis " << axis << (exclusive ? " exclusive" : "")
                                                    << (reverse ? " reverse" : "") << ", element " << i;
                }
            }
}

TEST(CpuCumSum, PositionIdsFromAnIntegerMask)
{
    // RoBERTa-style exports: cumsum(mask, axis 1) * mask on int64 token masks; the sums are exact.
    const std::vector<float> mask { 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 0 };
    const auto got = runCumSum({ 2, 6 }, 1, false, false, mask, onnx::TensorProto::INT64);
    const std::vector<float> want { 1, 2, 3, 3, 3, 4, 1, 2, 3, 4, 5, 5 };
    ASSERT_EQ(got, want);
    // And along a one-dimensional input, reversed.
    const auto reversed = runCumSum({ 4 }, 0, false, true, { 1, 2, 3, 4 });
    EXPECT_EQ(reversed, (std::vector<float> { 10, 9, 7, 4 }));
}
