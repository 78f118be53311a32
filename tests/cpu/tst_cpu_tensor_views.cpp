// The index arithmetic behind Slice, Transpose and Pad on the CPU (exec/cpu/tensor_views.h),
// against results worked out by hand.
#include "exec/cpu/tensor_views.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <numeric>

using namespace opsched;
using namespace opsched::cpu;

namespace {

std::vector<float> iota(std::size_t n)
{
    std::vector<float> v(n);
    std::iota(v.begin(), v.end(), 0.0F);
    return v;
}

std::vector<float> gathered(const std::vector<float>& src, const StridedView& v)
{
    std::int64_t n = 1;
    for (auto d : v.dims)
        n *= d;
    std::vector<float> out(static_cast<std::size_t>(n));
    copyView(src.data(), v, out.data());
    return out;
}

TEST(CpuTensorViews, SliceClampsAndCountsFromTheEnd)
{
    // [4, 5]: rows 1..3 by 2 (clamped end), columns from the last backwards by 2 (start -1).
    const StridedView v = sliceView({ 4, 5 }, Slice { { 1, -1 }, { 100, -100 }, { 0, 1 }, { 2, -2 } });
    EXPECT_EQ(v.dims, (std::vector<std::int64_t> { 2, 3 }));
    EXPECT_EQ(v.strides, (std::vector<std::int64_t> { 10, -2 }));
    EXPECT_EQ(v.offset, 5 + 4);
    EXPECT_TRUE(v.hasNegativeStride());
    EXPECT_EQ(gathered(iota(20), v), (std::vector<float> { 9, 7, 5, 19, 17, 15 }));
}

TEST(CpuTensorViews, SliceEmptyAndBadSteps)
{
    EXPECT_EQ(sliceView({ 6 }, Slice { { 4 }, { 2 }, { 0 }, { 1 } }).dims, (std::vector<std::int64_t> { 0 }));
    EXPECT_THROW(sliceView({ 6 }, Slice { { 0 }, { 2 }, { 0 }, { 0 } }), Error);
    EXPECT_THROW(sliceView({ 6 }, Slice { { 0 }, { 2 }, { 1 }, { 1 } }), Error);
}

TEST(CpuTensorViews, TransposeWalksTheInputInOutputOrder)
{
    const StridedView v = transposeView({ 2, 3, 4 }, { 2, 0, 1 });
    EXPECT_EQ(v.dims, (std::vector<std::int64_t> { 4, 2, 3 }));
    EXPECT_EQ(v.strides, (std::vector<std::int64_t> { 1, 12, 4 }));
    const auto out = gathered(iota(24), v);
    EXPECT_EQ(out[0], 0);
    EXPECT_EQ(out[1], 4); // [0][0][1] = in[0][1][0]
    EXPECT_EQ(out[3], 12); // [0][1][0] = in[1][0][0]
    EXPECT_EQ(out[6], 1); // [1][0][0] = in[0][0][1]
    EXPECT_THROW(transposeView({ 2, 3 }, { 0, 0 }), Error);
}

TEST(CpuTensorViews, PadIndicesPerMode)
{
    using V = std::vector<std::int64_t>;
    EXPECT_EQ(padSourceIndices(3, 2, 7, PadMode::Constant), (V { -1, -1, 0, 1, 2, -1, -1 }));
    EXPECT_EQ(padSourceIndices(3, 2, 7, PadMode::Edge), (V { 0, 0, 0, 1, 2, 2, 2 }));
    EXPECT_EQ(padSourceIndices(3, 2, 7, PadMode::Reflect), (V { 2, 1, 0, 1, 2, 1, 0 }));
    // Longer than the axis: reflection keeps going (NumPy).
    EXPECT_EQ(padSourceIndices(3, 5, 9, PadMode::Reflect), (V { 1, 0, 1, 2, 1, 0, 1, 2, 1 }));
    EXPECT_EQ(padSourceIndices(1, 2, 4, PadMode::Reflect), (V { 0, 0, 0, 0 }));
    // Negative padding crops.
    EXPECT_EQ(padSourceIndices(5, -2, 3, PadMode::Constant), (V { 2, 3, 4 }));
}

TEST(CpuTensorViews, PadGatherFillsWholeRowsWithTheConstant)
{
    // [2, 2] padded by one row above and one column on the right, constant 9.
    const std::vector<float> in { 1, 2, 3, 4 };
    std::vector<float> out(9);
    padGather(in.data(), { 2, 2 }, out.data(), { 3, 3 },
        { padSourceIndices(2, 1, 3, PadMode::Constant), padSourceIndices(2, 0, 3, PadMode::Constant) }, 9.0F);
    EXPECT_EQ(out, (std::vector<float> { 9, 9, 9, 1, 2, 9, 3, 4, 9 }));
}

} // namespace
