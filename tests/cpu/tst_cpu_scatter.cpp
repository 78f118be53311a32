// ScatterND, ScatterElements and GatherND with constant indices through the importer and the CPU
// executor, against loops written here: a slice assignment (x[:, 1:3] = f(x), as torch exports it),
// constant updates, a scatter along the last axis, GatherND with and without batch dimensions, by
// constant and by computed indices; reductions (add, mul, max, min) over repeated writes; and
// scatters by computed indices refused by name.
#include "exec/cpu/cpu_executor.h"
#include "import/onnx_importer.h"
#include "plan/plan.h"
#include "schedule/basic_schedulers.h"
#include "util/error.h"

#include "../import/onnx_model_maker.h"
#include "support/seeded_values.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace opsched;
using opsched::test::expectSameValues;
using opsched::test::ModelMaker;
using opsched::test::seededUniform;

namespace {

using Dims = std::vector<std::int64_t>;

std::vector<float> run(ModelMaker& m, const std::vector<std::vector<float>>& inputs)
{
    const Graph g = importOnnx(m.save("scatter"));
    cpu::CpuExecutor ex(g, compileSchedule(g, sequentialSchedule(g)));
    return ex.run(inputs).at(0);
}

std::string importError(ModelMaker& m)
{
    try {
        (void)importOnnx(m.save("scatter_bad"));
    } catch (const Error& e) {
        return e.what();
    }
    return "(imported)";
}

} // namespace

TEST(CpuScatter, ASliceAssignmentWritesItsUpdatesAndKeepsTheRest)
{
    if (!cpu::cpuBackendAvailable())
        GTEST_SKIP() << "skipped: no CPU backend (built without oneDNN)";
    // x [2, 4, 3]; y = x with y[:, 1:3, :] = sigmoid(x[:, 1:3, :]): indices [2, 2, 2] of (n, row).
    ModelMaker m(13);
    m.input("x", { 2, 4, 3 }).output("y");
    m.int64s("starts", { 1 }, { 1 });
    m.int64s("ends", { 1 }, { 3 });
    m.int64s("axes", { 1 }, { 1 });
    m.node("Slice", { "x", "starts", "ends", "axes" }, { "part" }, "part");
    m.node("Sigmoid", { "part" }, { "updates" }, "act");
    m.int64s("indices", { 2, 2, 2 }, { 0, 1, 0, 2, 1, 1, 1, 2 });
    m.node("ScatterND", { "x", "indices", "updates" }, { "y" }, "assign");
    const auto x = seededUniform(24, 1);
    auto want = x;
    for (std::size_t n = 0; n < 2; ++n)
        for (std::size_t r = 1; r < 3; ++r)
            for (std::size_t c = 0; c < 3; ++c) {
                const float v = x[(n * 4 + r) * 3 + c];
                want[(n * 4 + r) * 3 + c] = 1.0F / (1.0F + std::exp(-v));
            }
    const auto got = run(m, { x });
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i)
        EXPECT_NEAR(got[i], want[i], 1e-6) << "element " << i;
}

TEST(CpuScatter, ConstantUpdatesAndRepeatedTargetsLastWins)
{
    if (!cpu::cpuBackendAvailable())
        GTEST_SKIP() << "skipped: no CPU backend (built without oneDNN)";
    ModelMaker m(13);
    m.input("x", { 5, 2 }).output("y").weight("updates", { 3, 2 }, { 1, 2, 3, 4, 5, 6 });
    m.int64s("indices", { 3, 1 }, { 4, -5, 4 }); // row 4 twice: the second write stays
    m.node("ScatterND", { "x", "indices", "updates" }, { "y" }, "assign");
    const auto x = seededUniform(10, 2);
    auto want = x;
    want[0] = 3, want[1] = 4, want[8] = 5, want[9] = 6;
    expectSameValues(run(m, { x }), want);
}

TEST(CpuScatter, ScatterElementsAlongTheLastAxis)
{
    if (!cpu::cpuBackendAvailable())
        GTEST_SKIP() << "skipped: no CPU backend (built without oneDNN)";
    for (const char* op : { "ScatterElements", "Scatter" }) {
        SCOPED_TRACE(op);
        ModelMaker m(op == std::string("Scatter") ? 10 : 13);
        m.input("x", { 3, 5 }).input("u", { 2, 2 }).output("y");
        m.int64s("indices", { 2, 2 }, { 4, 0, -1, 2 });
        ModelMaker::attr(m.node(op, { "x", "indices", "u" }, { "y" }, "scatter"), "axis", std::int64_t { 1 });
        const auto x = seededUniform(15, 3), u = seededUniform(4, 4);
        auto want = x;
        want[4] = u[0], want[0] = u[1], want[5 + 4] = u[2], want[5 + 2] = u[3];
        expectSameValues(run(m, { x, u }), want);
    }
}

TEST(CpuScatter, GatherNdWithAndWithoutBatchDimensions)
{
    if (!cpu::cpuBackendAvailable())
        GTEST_SKIP() << "skipped: no CPU backend (built without oneDNN)";
    const auto x = seededUniform(2 * 3 * 4, 5); // [2, 3, 4]
    {
        ModelMaker m(13); // (n, row) pairs: rows of 4
        m.input("x", { 2, 3, 4 }).output("y");
        m.int64s("indices", { 3, 2 }, { 1, 2, 0, 0, -1, 1 });
        m.node("GatherND", { "x", "indices" }, { "y" }, "gather");
        std::vector<float> want;
        for (auto [n, r] : { std::pair { 1, 2 }, std::pair { 0, 0 }, std::pair { 1, 1 } })
            for (int c = 0; c < 4; ++c)
                want.push_back(x[static_cast<std::size_t>((n * 3 + r) * 4 + c)]);
        expectSameValues(run(m, { x }), want);
    }
    {
        ModelMaker m(13); // batch_dims 1: per batch, (row, column) pairs
        m.input("x", { 2, 3, 4 }).output("y");
        m.int64s("indices", { 2, 2, 2 }, { 0, 3, 2, 1, 1, 1, 2, -1 });
        auto& node = m.node("GatherND", { "x", "indices" }, { "y" }, "gather");
        ModelMaker::attr(node, "batch_dims", std::int64_t { 1 });
        const std::vector<float> want { x[0 * 4 + 3], x[2 * 4 + 1], x[12 + 1 * 4 + 1], x[12 + 2 * 4 + 3] };
        expectSameValues(run(m, { x }), want);
    }
}

TEST(CpuScatter, GatherNdByComputedIndices)
{
    if (!cpu::cpuBackendAvailable())
        GTEST_SKIP() << "skipped: no CPU backend (built without oneDNN)";
    const auto x = seededUniform(2 * 3 * 4, 6); // [2, 3, 4]
    for (std::int64_t batchDims : { 0, 1 }) {
        SCOPED_TRACE("batch_dims " + std::to_string(batchDims));
        ModelMaker m(13);
        const Dims indexDims = batchDims == 0 ? Dims { 3, 2 } : Dims { 2, 2, 2 };
        m.input("x", { 2, 3, 4 }).input("indices", indexDims, onnx::TensorProto::INT64).output("y");
        auto& node = m.node("GatherND", { "x", "indices" }, { "y" }, "gather");
        ModelMaker::attr(node, "batch_dims", batchDims);
        std::vector<float> indices, want;
        if (batchDims == 0) { // (n, row) pairs, one negative: rows of 4
            indices = { 1, 2, 0, 0, -1, -2 };
            for (auto [n, r] : { std::pair { 1, 2 }, std::pair { 0, 0 }, std::pair { 1, 1 } })
                for (int c = 0; c < 4; ++c)
                    want.push_back(x[static_cast<std::size_t>((n * 3 + r) * 4 + c)]);
        } else { // per batch, (row, column) pairs
            indices = { 0, 3, 2, 1, 1, 1, 2, -1 };
            want = { x[0 * 4 + 3], x[2 * 4 + 1], x[12 + 1 * 4 + 1], x[12 + 2 * 4 + 3] };
        }
        expectSameValues(run(m, { x, indices }), want);
    }
}

TEST(CpuScatter, ReductionsCombineEveryWrite)
{
    if (!cpu::cpuBackendAvailable())
        GTEST_SKIP() << "skipped: no CPU backend (built without oneDNN)";
    // Rows 1 and 3 written, row 3 three times: add, mul, max and min over the data and each write.
    const auto x = seededUniform(10, 7), u = seededUniform(8, 8);
    for (const char* reduction : { "add", "mul", "max", "min" }) {
        SCOPED_TRACE(reduction);
        ModelMaker m(18);
        m.input("x", { 5, 2 }).input("u", { 4, 2 }).output("y");
        m.int64s("indices", { 4, 1 }, { 3, 1, -2, 3 });
        ModelMaker::attr(
            m.node("ScatterND", { "x", "indices", "u" }, { "y" }, "assign"), "reduction", std::string(reduction));
        auto want = x;
        for (std::size_t t : { 0U, 1U, 2U, 3U }) {
            const std::size_t row = t == 1 ? 1 : 3;
            for (std::size_t c = 0; c < 2; ++c) {
                float& y = want[row * 2 + c];
                const float v = u[t * 2 + c];
                y = reduction == std::string("add")   ? y + v
                    : reduction == std::string("mul") ? y * v
                    : reduction == std::string("max") ? std::max(y, v)
                                                      : std::min(y, v);
            }
        }
        const auto got = run(m, { x, u });
        ASSERT_EQ(got.size(), want.size());
        for (std::size_t i = 0; i < want.size(); ++i)
            EXPECT_NEAR(got[i], want[i], 1e-6) << "element " << i;
    }
}

TEST(CpuScatter, ComputedIndicesAreRefusedByName)
{
    ModelMaker m(13);
    m.input("x", { 4, 2 }).input("i", { 1, 1 }, onnx::TensorProto::INT64).input("u", { 1, 2 }).output("y");
    m.node("ScatterND", { "x", "i", "u" }, { "y" }, "assign");
    EXPECT_NE(importError(m).find("indices computed at run time"), std::string::npos) << importError(m);
}
