// TopK on the CPU against a stable sort written here: values and indices along every axis, the
// largest and the smallest, k from 1 to the whole axis, on data with many ties (ONNX puts the
// lower index first among equal values); the opset-1 form (k an attribute); and K computed at run
// time refused by name.
#include "exec/cpu/cpu_executor.h"
#include "import/onnx_importer.h"
#include "plan/plan.h"
#include "schedule/basic_schedulers.h"

#include "../import/onnx_model_maker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

using namespace opsched;
using opsched::test::ModelMaker;

namespace {

const std::vector<std::int64_t> kDims { 2, 5, 3 };

// Values from a small set, so that most rows hold ties.
std::vector<float> tiedValues()
{
    std::vector<float> x(30);
    for (std::size_t i = 0; i < x.size(); ++i)
        x[i] = static_cast<float>((i * 7 + i / 4) % 5) - 2.0F;
    return x;
}

// The reference: along `axis`, positions sorted by value (largest or smallest first), stably.
void reference(const std::vector<float>& x, int axis, std::int64_t k, bool largest, std::vector<float>& values,
    std::vector<float>& indices)
{
    std::int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d)
        outer *= kDims[static_cast<std::size_t>(d)];
    for (std::size_t d = static_cast<std::size_t>(axis) + 1; d < kDims.size(); ++d)
        inner *= kDims[d];
    const std::int64_t len = kDims[static_cast<std::size_t>(axis)];
    values.assign(static_cast<std::size_t>(outer * k * inner), 0);
    indices = values;
    for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i = 0; i < inner; ++i) {
            std::vector<std::int64_t> order(static_cast<std::size_t>(len));
            std::iota(order.begin(), order.end(), std::int64_t { 0 });
            const auto at = [&](std::int64_t j) { return x[static_cast<std::size_t>((o * len + j) * inner + i)]; };
            std::stable_sort(order.begin(), order.end(),
                [&](std::int64_t a, std::int64_t b) { return largest ? at(a) > at(b) : at(a) < at(b); });
            for (std::int64_t j = 0; j < k; ++j) {
                const auto out = static_cast<std::size_t>((o * k + j) * inner + i);
                values[out] = at(order[static_cast<std::size_t>(j)]);
                indices[out] = static_cast<float>(order[static_cast<std::size_t>(j)]);
            }
        }
}

std::vector<std::vector<float>> run(const std::string& path, const std::vector<float>& x)
{
    const Graph g = importOnnx(path, 2);
    cpu::CpuExecutor ex(g, compileSchedule(g, sequentialSchedule(g)));
    return ex.run({ x });
}

} // namespace

TEST(CpuTopK, ValuesAndIndicesMatchAStableSortOnEveryAxis)
{
    const auto x = tiedValues();
    int ties = 0;
    for (int axis = 0; axis < 3; ++axis)
        for (bool largest : { true, false })
            for (std::int64_t k = 1; k <= kDims[static_cast<std::size_t>(axis)]; ++k) {
                SCOPED_TRACE(
                    "axis " + std::to_string(axis) + (largest ? " largest" : " smallest") + ", k " + std::to_string(k));
                std::vector<std::int64_t> outDims = kDims;
                outDims[static_cast<std::size_t>(axis)] = k;
                ModelMaker m(11);
                m.input("x", kDims).ints("k", { k }).output("values", outDims).output("indices", outDims);
                m.graph().mutable_output(1)->mutable_type()->mutable_tensor_type()->set_elem_type(
                    onnx::TensorProto::INT64);
                auto& node = m.node("TopK", { "x", "k" }, { "values", "indices" }, "top");
                ModelMaker::attr(node, "axis", static_cast<std::int64_t>(axis - 3)); // negative axes
                ModelMaker::attr(node, "largest", std::int64_t { largest ? 1 : 0 });
                std::vector<float> values, indices;
                reference(x, axis, k, largest, values, indices);
                const auto got = run(m.save(), x);
                ASSERT_EQ(got.size(), 2U);
                EXPECT_EQ(got[0], values);
                EXPECT_EQ(got[1], indices);
                for (std::size_t i = 1; i < values.size(); ++i)
                    ties += values[i] == values[i - 1] ? 1 : 0;
            }
    EXPECT_GT(ties, 20); // the order among equal values was tested
}

TEST(CpuTopK, OpsetOneTakesKAsAnAttributeAndOnlyReadOutputsAreBuilt)
{
    const auto x = tiedValues();
    ModelMaker m(9);
    m.input("x", kDims).output("values");
    auto& node = m.node("TopK", { "x" }, { "values", "unused_indices" }, "top");
    ModelMaker::attr(node, "k", std::int64_t { 2 });
    const std::string path = m.save();
    EXPECT_EQ(importOnnx(path, 2).opCount(), 1U);
    std::vector<float> values, indices;
    reference(x, 2, 2, true, values, indices);
    EXPECT_EQ(run(path, x).front(), values);
}

TEST(CpuTopK, KComputedAtRunTimeIsRefusedByName)
{
    ModelMaker m(11);
    m.input("x", kDims).input("k", { 1 }, onnx::TensorProto::INT64).output("values", { 2, 5, 1 }, true);
    m.node("TopK", { "x", "k" }, { "values", "indices" }, "top");
    try {
        importOnnx(m.save(), 2);
        FAIL() << "a run-time K imported";
    } catch (const Error& e) {
        EXPECT_NE(
            std::string(e.what()).find("'top' (TopK): K computed at run time is not supported"), std::string::npos)
            << e.what();
    }
}
