#include "exec/cpu/tensor_views.h"

#include "util/error.h"

#include <algorithm>

namespace opsched::cpu {

std::int64_t elementCount(const std::vector<std::int64_t>& dims)
{
    std::int64_t n = 1;
    for (auto d : dims)
        n *= d;
    return n;
}

bool StridedView::hasNegativeStride() const
{
    return std::any_of(strides.begin(), strides.end(), [](std::int64_t s) { return s < 0; });
}

std::vector<std::int64_t> rowMajorStrides(const std::vector<std::int64_t>& dims)
{
    std::vector<std::int64_t> strides(dims.size(), 1);
    for (std::size_t i = dims.size(); i-- > 1;)
        strides[i - 1] = strides[i] * dims[i];
    return strides;
}

StridedView sliceView(const std::vector<std::int64_t>& inDims, const Slice& slice)
{
    const auto rank = static_cast<std::int64_t>(inDims.size());
    if (slice.starts.size() != slice.axes.size() || slice.ends.size() != slice.axes.size()
        || slice.steps.size() != slice.axes.size())
        throw Error("slice needs as many starts, ends and steps as axes");
    StridedView v { 0, inDims, rowMajorStrides(inDims) };
    const auto inStrides = v.strides;
    for (std::size_t i = 0; i < slice.axes.size(); ++i) {
        std::int64_t axis = slice.axes[i];
        if (axis < -rank || axis >= rank)
            throw Error("slice axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
        if (axis < 0)
            axis += rank;
        const auto a = static_cast<std::size_t>(axis);
        const std::int64_t d = inDims[a], step = slice.steps[i];
        if (step == 0)
            throw Error("slice step is 0");
        std::int64_t start = slice.starts[i] < 0 ? slice.starts[i] + d : slice.starts[i];
        std::int64_t end = slice.ends[i] < 0 ? slice.ends[i] + d : slice.ends[i];
        std::int64_t count = 0;
        if (step > 0) {
            start = std::clamp<std::int64_t>(start, 0, d);
            end = std::clamp<std::int64_t>(end, 0, d);
            count = end > start ? (end - start + step - 1) / step : 0;
        } else {
            start = std::clamp<std::int64_t>(start, -1, d - 1);
            end = std::clamp<std::int64_t>(end, -1, d - 1);
            count = start > end ? (start - end - step - 1) / -step : 0;
        }
        if (count > 0)
            v.offset += start * inStrides[a];
        v.dims[a] = count;
        v.strides[a] = inStrides[a] * step;
    }
    return v;
}

StridedView transposeView(const std::vector<std::int64_t>& inDims, const std::vector<std::int64_t>& perm)
{
    if (perm.size() != inDims.size())
        throw Error("transpose permutation has " + std::to_string(perm.size()) + " axes for rank "
            + std::to_string(inDims.size()));
    const auto inStrides = rowMajorStrides(inDims);
    StridedView v { 0, inDims, inStrides };
    std::vector<bool> seen(perm.size());
    for (std::size_t i = 0; i < perm.size(); ++i) {
        const auto p = perm[i];
        if (p < 0 || p >= static_cast<std::int64_t>(perm.size()) || seen[static_cast<std::size_t>(p)])
            throw Error("transpose permutation is not a permutation");
        seen[static_cast<std::size_t>(p)] = true;
        v.dims[i] = inDims[static_cast<std::size_t>(p)];
        v.strides[i] = inStrides[static_cast<std::size_t>(p)];
    }
    return v;
}

void copyView(const float* src, const StridedView& view, float* dst)
{
    const std::size_t rank = view.dims.size();
    for (auto d : view.dims)
        if (d <= 0)
            return;
    if (rank == 0) {
        *dst = src[view.offset];
        return;
    }
    // Innermost axis as a loop, the others as an odometer.
    const std::int64_t inner = view.dims.back(), innerStride = view.strides.back();
    std::vector<std::int64_t> index(rank - 1, 0);
    std::int64_t base = view.offset;
    for (;;) {
        const float* s = src + base;
        for (std::int64_t k = 0; k < inner; ++k)
            *dst++ = s[k * innerStride];
        std::size_t d = rank - 1;
        for (; d-- > 0;) {
            base += view.strides[d];
            if (++index[d] < view.dims[d])
                break;
            base -= view.strides[d] * view.dims[d];
            index[d] = 0;
        }
        if (d == static_cast<std::size_t>(-1))
            return;
    }
}

std::vector<std::int64_t> padSourceIndices(std::int64_t inSize, std::int64_t before, std::int64_t outSize, PadMode mode)
{
    std::vector<std::int64_t> out(static_cast<std::size_t>(std::max<std::int64_t>(outSize, 0)));
    const std::int64_t period = 2 * (inSize - 1);
    for (std::int64_t o = 0; o < outSize; ++o) {
        std::int64_t i = o - before;
        if (i < 0 || i >= inSize) {
            switch (mode) {
            case PadMode::Constant:
                i = -1;
                break;
            case PadMode::Edge:
                i = std::clamp<std::int64_t>(i, 0, inSize - 1);
                break;
            case PadMode::Reflect:
                if (period == 0) {
                    i = 0;
                } else {
                    i = ((i % period) + period) % period;
                    if (i >= inSize)
                        i = period - i;
                }
                break;
            }
        }
        out[static_cast<std::size_t>(o)] = i;
    }
    return out;
}

void padGather(const float* src, const std::vector<std::int64_t>& inDims, float* dst,
    const std::vector<std::int64_t>& outDims, const std::vector<std::vector<std::int64_t>>& indices, float value)
{
    const std::size_t rank = outDims.size();
    for (auto d : outDims)
        if (d <= 0)
            return;
    if (rank == 0) {
        *dst = *src;
        return;
    }
    const auto inStrides = rowMajorStrides(inDims);
    const auto& innerIndex = indices.back();
    const std::int64_t inner = outDims.back();
    std::vector<std::int64_t> index(rank - 1, 0);
    for (;;) {
        // The outer coordinates pick one input row, or none (the whole output row is the constant).
        std::int64_t base = 0;
        bool constantRow = false;
        for (std::size_t d = 0; d + 1 < rank; ++d) {
            const auto i = indices[d][static_cast<std::size_t>(index[d])];
            constantRow = constantRow || i < 0;
            base += i * inStrides[d];
        }
        for (std::int64_t k = 0; k < inner; ++k) {
            const auto i = innerIndex[static_cast<std::size_t>(k)];
            *dst++ = constantRow || i < 0 ? value : src[base + i];
        }
        std::size_t d = rank - 1;
        for (; d-- > 0;) {
            if (++index[d] < outDims[d])
                break;
            index[d] = 0;
        }
        if (d == static_cast<std::size_t>(-1))
            return;
    }
}

MatMulOperandDims promoteMatMulOperands(std::vector<std::int64_t> a, std::vector<std::int64_t> b)
{
    if (a.empty() || b.empty())
        throw Error("matmul operands must have at least one dimension");
    if (a.size() == 1)
        a.insert(a.begin(), 1);
    if (b.size() == 1)
        b.push_back(1);
    const std::size_t rank = std::max(a.size(), b.size());
    a.insert(a.begin(), rank - a.size(), 1);
    b.insert(b.begin(), rank - b.size(), 1);
    return { std::move(a), std::move(b) };
}

} // namespace opsched::cpu
