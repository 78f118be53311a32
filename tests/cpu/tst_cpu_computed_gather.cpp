// Gathers by indices the model computes, through the importer and the CPU executor, against
// loops written here: Gather along every axis by indices a graph input gives (negative ones
// counting from the end) or an ArgMax computes, GatherElements (torch.gather) by constant and by
// computed indices, indices smaller than the data on the other axes; and an index out of range
// stopping the run with a message that names it.
#include "exec/cpu/cpu_executor.h"
#include "import/onnx_importer.h"
#include "plan/plan.h"
#include "schedule/basic_schedulers.h"
#include "util/error.h"

#include "../import/onnx_model_maker.h"
#include "support/seeded_values.h"

#include <gtest/gtest.h>

#include <random>

using namespace opsched;
using opsched::test::expectSameValues;
using opsched::test::ModelMaker;
using opsched::test::seededUniform;

namespace {

using Dims = std::vector<std::int64_t>;

std::int64_t count(const Dims& d)
{
    std::int64_t n = 1;
    for (auto v : d)
        n *= v;
    return n;
}

// Integer-valued floats in [-len, len) (negative ones count from the end).
std::vector<float> indicesIn(std::int64_t n, std::int64_t len, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_int_distribution<std::int64_t> u(-len, len - 1);
    std::vector<float> v(static_cast<std::size_t>(n));
    for (auto& x : v)
        x = static_cast<float>(u(rng));
    return v;
}

Dims asIntegers(const std::vector<float>& values)
{
    Dims out;
    for (float v : values)
        out.push_back(static_cast<std::int64_t>(v));
    return out;
}

Dims stridesOf(const Dims& d)
{
    Dims s(d.size(), 1);
    for (std::size_t i = d.size(); i-- > 1;)
        s[i - 1] = s[i] * d[i];
    return s;
}

// ONNX Gather: out[a..., i..., b...] = data[a..., index[i...], b...].
std::vector<float> gatherReference(
    const std::vector<float>& data, const Dims& dims, int axis, const std::vector<float>& index)
{
    const auto a = static_cast<std::size_t>(axis);
    std::int64_t outer = 1, inner = 1;
    for (std::size_t d = 0; d < a; ++d)
        outer *= dims[d];
    for (std::size_t d = a + 1; d < dims.size(); ++d)
        inner *= dims[d];
    std::vector<float> out;
    for (std::int64_t o = 0; o < outer; ++o)
        for (float f : index) {
            auto i = static_cast<std::int64_t>(f);
            i = i < 0 ? i + dims[a] : i;
            for (std::int64_t k = 0; k < inner; ++k)
                out.push_back(data[static_cast<std::size_t>((o * dims[a] + i) * inner + k)]);
        }
    return out;
}

// ONNX GatherElements: out[p] = data[p with its axis coordinate replaced by index[p]].
std::vector<float> gatherElementsReference(
    const std::vector<float>& data, const Dims& dims, int axis, const std::vector<float>& index, const Dims& indexDims)
{
    const auto strides = stridesOf(dims), indexStrides = stridesOf(indexDims);
    std::vector<float> out;
    for (std::int64_t p = 0; p < count(indexDims); ++p) {
        std::int64_t offset = 0;
        for (std::size_t d = 0; d < dims.size(); ++d) {
            std::int64_t c = (p / indexStrides[d]) % indexDims[d];
            if (static_cast<int>(d) == axis) {
                c = static_cast<std::int64_t>(index[static_cast<std::size_t>(p)]);
                c = c < 0 ? c + dims[d] : c;
            }
            offset += c * strides[d];
        }
        out.push_back(data[static_cast<std::size_t>(offset)]);
    }
    return out;
}

std::vector<std::vector<float>> run(ModelMaker& m, const std::vector<std::vector<float>>& inputs, int threads = 2)
{
    const Graph g = importOnnx(m.save("computed_gather"));
    cpu::CpuOptions options;
    options.threads = threads;
    cpu::CpuExecutor ex(g, compileSchedule(g, sequentialSchedule(g)), options);
    return ex.run(inputs);
}

} // namespace

TEST(CpuComputedGather, GatherByIndicesFromAnInputOnEveryAxis)
{
    if (!cpu::cpuBackendAvailable())
        GTEST_SKIP() << "skipped: no CPU backend (built without oneDNN)";
    const Dims dims { 3, 4, 5 };
    const auto data = seededUniform(count(dims), 1);
    for (int axis = 0; axis < 3; ++axis)
        for (const Dims& indexDims : { Dims { 2 }, Dims { 2, 3 } }) {
            SCOPED_TRACE("axis " + std::to_string(axis) + ", " + std::to_string(indexDims.size()) + "-D indices");
            ModelMaker m(13);
            m.input("data", dims).input("index", indexDims, onnx::TensorProto::INT64).output("y");
            ModelMaker::attr(m.node("Gather", { "data", "index" }, { "y" }, "gather"), "axis", std::int64_t { axis });
            const auto index = indicesIn(count(indexDims), dims[static_cast<std::size_t>(axis)], 10U + axis);
            const auto got = run(m, { data, index });
            ASSERT_EQ(got.size(), 1U);
            expectSameValues(got[0], gatherReference(data, dims, axis, index));
        }
}

TEST(CpuComputedGather, GatherByAnArgMaxOfAnotherActivation)
{
    if (!cpu::cpuBackendAvailable())
        GTEST_SKIP() << "skipped: no CPU backend (built without oneDNN)";
    // scores [2, 6, 3]: the best of 6 per (batch, column); rows of a [6, 4] table of features by it.
    ModelMaker m(13);
    m.input("scores", { 2, 6, 3 }).input("features", { 6, 4 }).output("y");
    auto& argmax = m.node("ArgMax", { "scores" }, { "best" }, "best");
    ModelMaker::attr(argmax, "axis", std::int64_t { 1 });
    ModelMaker::attr(argmax, "keepdims", std::int64_t { 0 });
    m.node("Gather", { "features", "best" }, { "y" }, "pick");
    const auto scores = seededUniform(36, 2), features = seededUniform(24, 3);
    std::vector<float> best;
    for (std::int64_t b = 0; b < 2; ++b)
        for (std::int64_t c = 0; c < 3; ++c) {
            std::int64_t arg = 0;
            for (std::int64_t r = 1; r < 6; ++r)
                if (scores[static_cast<std::size_t>((b * 6 + r) * 3 + c)]
                    > scores[static_cast<std::size_t>((b * 6 + arg) * 3 + c)])
                    arg = r;
            best.push_back(static_cast<float>(arg));
        }
    const auto got = run(m, { scores, features });
    ASSERT_EQ(got.size(), 1U);
    expectSameValues(got[0], gatherReference(features, { 6, 4 }, 0, best));
}

TEST(CpuComputedGather, GatherElementsByConstantAndComputedIndices)
{
    if (!cpu::cpuBackendAvailable())
        GTEST_SKIP() << "skipped: no CPU backend (built without oneDNN)";
    const Dims dims { 3, 4, 5 };
    const auto data = seededUniform(count(dims), 4);
    for (int axis = -1; axis < 3; ++axis)
        for (bool computed : { false, true }) {
            const int a = axis < 0 ? axis + 3 : axis;
            // Shorter than the data on the other axes, longer on the gathered one.
            Dims indexDims { 2, 3, 4 };
            indexDims[static_cast<std::size_t>(a)] = 7;
            SCOPED_TRACE("axis " + std::to_string(axis) + (computed ? ", computed" : ", constant"));
            const auto index = indicesIn(count(indexDims), dims[static_cast<std::size_t>(a)], 20U + a);
            ModelMaker m(13);
            m.input("data", dims).output("y");
            if (computed)
                m.input("index", indexDims, onnx::TensorProto::INT64);
            else
                m.int64s("index", indexDims, asIntegers(index));
            ModelMaker::attr(
                m.node("GatherElements", { "data", "index" }, { "y" }, "gather"), "axis", std::int64_t { axis });
            const auto got = computed ? run(m, { data, index }, 1) : run(m, { data }, 1);
            ASSERT_EQ(got.size(), 1U);
            expectSameValues(got[0], gatherElementsReference(data, dims, a, index, indexDims));
        }
}

TEST(CpuComputedGather, AnIndexOutOfRangeStopsTheRunByName)
{
    if (!cpu::cpuBackendAvailable())
        GTEST_SKIP() << "skipped: no CPU backend (built without oneDNN)";
    for (const char* op : { "Gather", "GatherElements" }) {
        SCOPED_TRACE(op);
        ModelMaker m(13);
        m.input("data", { 4, 3 }).input("index", { 4, 3 }, onnx::TensorProto::INT64).output("y");
        m.node(op, { "data", "index" }, { "y" }, "gather");
        std::vector<float> index(12, 1.0F);
        index[5] = 4.0F; // the axis has 4 elements
        try {
            (void)run(m, { seededUniform(12, 5), index });
            ADD_FAILURE() << "an index of 4 on an axis of 4 ran";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("index 4"), std::string::npos) << e.what();
        }
    }
}
