// MaxPool with dilations, decomposed at import (a strided slice and an undilated pool where each
// stride is a multiple of its dilation, else one slice per window position and their maximum):
// compared element-wise with the definition written out as loops, for 1-D, 2-D and 3-D windows,
// padding, ceil mode, and a folded Pad of zeros whose zeros must win over negative inputs.
#include "cpu_test_support.h"
#include "import/onnx_importer.h"

#include "../import/onnx_model_maker.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace opsched;
using opsched::test::ModelMaker;

namespace {

struct Case {
    const char* name;
    std::vector<std::int64_t> dims, kernel, stride, dilation, pads; // pads: begins then ends
    bool ceil;
    std::size_t ops; // ops the decomposition makes
};

std::vector<float> wave(std::size_t n, float offset)
{
    std::vector<float> x(n);
    for (std::size_t i = 0; i < n; ++i)
        x[i] = std::sin(0.37F * static_cast<float>(i * i % 101)) * 3.0F + offset;
    return x;
}

// The definition: each output element is the largest input the dilated window reads (padding is
// never read as a value); the output size as ONNX gives it.
std::vector<float> reference(const Case& c, const std::vector<float>& x, std::vector<std::int64_t>& outDims)
{
    const std::size_t n = c.kernel.size();
    outDims = { c.dims[0], c.dims[1] };
    for (std::size_t d = 0; d < n; ++d) {
        const std::int64_t span = c.dilation[d] * (c.kernel[d] - 1) + 1;
        const std::int64_t room = c.dims[2 + d] + c.pads[d] + c.pads[n + d] - span;
        std::int64_t o = (c.ceil ? (room + c.stride[d] - 1) / c.stride[d] : room / c.stride[d]) + 1;
        if (c.ceil && (o - 1) * c.stride[d] >= c.dims[2 + d] + c.pads[d])
            --o;
        outDims.push_back(o);
    }
    std::int64_t total = 1, spatialIn = 1, spatialOut = 1;
    for (auto d : outDims)
        total *= d;
    for (std::size_t d = 0; d < n; ++d) {
        spatialIn *= c.dims[2 + d];
        spatialOut *= outDims[2 + d];
    }
    std::vector<float> y(static_cast<std::size_t>(total), -std::numeric_limits<float>::infinity());
    for (std::int64_t plane = 0; plane < c.dims[0] * c.dims[1]; ++plane)
        for (std::int64_t o = 0; o < spatialOut; ++o) {
            std::vector<std::int64_t> pos(n);
            for (std::int64_t r = o, d = static_cast<std::int64_t>(n) - 1; d >= 0; --d) {
                pos[d] = r % outDims[2 + d];
                r /= outDims[2 + d];
            }
            std::int64_t windows = 1;
            for (auto k : c.kernel)
                windows *= k;
            float best = -std::numeric_limits<float>::infinity();
            for (std::int64_t w = 0; w < windows; ++w) {
                std::int64_t flat = 0, r = w;
                bool inside = true;
                std::vector<std::int64_t> at(n);
                for (std::int64_t d = static_cast<std::int64_t>(n) - 1; d >= 0; --d) {
                    const std::int64_t i = r % c.kernel[d];
                    r /= c.kernel[d];
                    at[d] = pos[d] * c.stride[d] + i * c.dilation[d] - c.pads[d];
                    inside = inside && at[d] >= 0 && at[d] < c.dims[2 + d];
                }
                if (!inside)
                    continue;
                for (std::size_t d = 0; d < n; ++d)
                    flat = flat * c.dims[2 + d] + at[d];
                best = std::max(best, x[static_cast<std::size_t>(plane * spatialIn + flat)]);
            }
            y[static_cast<std::size_t>(plane * spatialOut + o)] = best;
        }
    return y;
}

} // namespace

TEST(CpuDilatedPool, MatchesTheDefinition)
{
    const std::vector<Case> cases {
        { "2-D, slices", { 1, 2, 9, 11 }, { 3, 3 }, { 1, 2 }, { 2, 3 }, { 1, 0, 1, 2 }, false, 11 },
        { "2-D, slices, ceil", { 1, 2, 10, 10 }, { 2, 2 }, { 3, 3 }, { 2, 2 }, { 1, 1, 1, 1 }, true, 6 },
        { "2-D, strided", { 2, 3, 17, 13 }, { 3, 2 }, { 4, 3 }, { 2, 3 }, { 2, 1, 1, 0 }, false, 3 },
        { "1-D, strided", { 1, 3, 40 }, { 5 }, { 2 }, { 2 }, { 3, 2 }, false, 3 },
        { "1-D, slices", { 1, 2, 23 }, { 4 }, { 3 }, { 2 }, { 0, 0 }, false, 6 },
        { "3-D, slices", { 1, 2, 5, 6, 7 }, { 2, 2, 2 }, { 1, 2, 1 }, { 2, 2, 3 }, { 0, 1, 0, 0, 1, 1 }, false, 10 },
    };
    for (const Case& c : cases) {
        ModelMaker m(13);
        m.input("x", c.dims).output("y");
        auto& pool = m.node("MaxPool", { "x" }, { "y" }, "pool");
        ModelMaker::attr(pool, "kernel_shape", c.kernel);
        ModelMaker::attr(pool, "strides", c.stride);
        ModelMaker::attr(pool, "dilations", c.dilation);
        ModelMaker::attr(pool, "pads", c.pads);
        ModelMaker::attr(pool, "ceil_mode", std::int64_t { c.ceil ? 1 : 0 });
        const Graph g = importOnnx(m.save(), c.dims[0]);
        EXPECT_EQ(g.opCount(), c.ops) << c.name;
        std::int64_t size = 1;
        for (auto d : c.dims)
            size *= d;
        const auto x = wave(static_cast<std::size_t>(size), -1.0F);
        std::vector<std::int64_t> outDims;
        const auto want = reference(c, x, outDims);
        const auto got = opsched::test::runSequential(g, { x }).front();
        ASSERT_EQ(got.size(), want.size()) << c.name;
        for (std::size_t i = 0; i < want.size(); ++i)
            ASSERT_EQ(got[i], want[i]) << c.name << " element " << i;
    }
}

TEST(CpuDilatedPool, AFoldedPadOfZerosStillCountsAsValues)
{
    // Pad(0) -> MaxPool(dilated) on negative inputs: the border windows' maximum is a pad zero.
    ModelMaker m(13);
    m.input("x", { 1, 1, 6, 6 }).output("y").ints("pads", { 0, 0, 1, 1, 0, 0, 1, 1 });
    m.node("Pad", { "x", "pads" }, { "p" }, "pad");
    auto& pool = m.node("MaxPool", { "p" }, { "y" }, "pool");
    ModelMaker::attr(pool, "kernel_shape", std::vector<std::int64_t> { 2, 2 });
    ModelMaker::attr(pool, "dilations", std::vector<std::int64_t> { 2, 2 });
    const Graph g = importOnnx(m.save(), 1);
    std::vector<float> x(36);
    for (std::size_t i = 0; i < x.size(); ++i)
        x[i] = -1.0F - static_cast<float>(i);
    const auto got = opsched::test::runSequential(g, { x }).front();
    ASSERT_EQ(got.size(), 36U); // 8x8 padded, a 3-wide window: 6x6
    // The padded map is 0 on its border; window (r, c) reads padded rows r, r+2 and columns c, c+2.
    for (std::int64_t r = 0; r < 6; ++r)
        for (std::int64_t c = 0; c < 6; ++c) {
            float want = -std::numeric_limits<float>::infinity();
            for (std::int64_t i : { r, r + 2 })
                for (std::int64_t j : { c, c + 2 }) {
                    const bool border = i == 0 || i == 7 || j == 0 || j == 7;
                    want = std::max(want, border ? 0.0F : x[static_cast<std::size_t>((i - 1) * 6 + (j - 1))]);
                }
            EXPECT_EQ(got[static_cast<std::size_t>(r * 6 + c)], want) << r << "," << c;
        }
}
