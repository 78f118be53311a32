#include "exec/cuda/tensor_op_geometry.h"

#include "exec/cpu/tensor_views.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace opsched::gpu {
namespace {

std::int64_t product(const std::vector<std::int64_t>& dims)
{
    std::int64_t n = 1;
    for (auto d : dims)
        n *= d;
    return n;
}

std::string dimsText(const std::vector<std::int64_t>& dims)
{
    std::string s = "[";
    for (std::size_t i = 0; i < dims.size(); ++i)
        s += (i ? ", " : "") + std::to_string(dims[i]);
    return s + "]";
}

void checkRank(std::size_t rank, const char* what)
{
    if (rank > static_cast<std::size_t>(kernels::kTensorMaxRank))
        throw Error(std::string(what) + " needs " + std::to_string(rank)
            + " axes after merging contiguous ones; the CUDA kernels take " + std::to_string(kernels::kTensorMaxRank));
}

template <std::size_t N> void fill(std::int64_t (&dst)[N], const std::vector<std::int64_t>& src)
{
    std::copy(src.begin(), src.end(), dst);
}

} // namespace

std::vector<std::int64_t> broadcastStrides(
    const std::vector<std::int64_t>& operandDims, const std::vector<std::int64_t>& outDims)
{
    if (operandDims.size() > outDims.size())
        throw Error(
            "an operand of shape " + dimsText(operandDims) + " has more axes than the result " + dimsText(outDims));
    const std::size_t shift = outDims.size() - operandDims.size();
    const auto dense = cpu::rowMajorStrides(operandDims);
    std::vector<std::int64_t> strides(outDims.size(), 0);
    for (std::size_t d = 0; d < operandDims.size(); ++d) {
        const std::int64_t extent = operandDims[d], out = outDims[d + shift];
        if (extent != out && extent != 1)
            throw Error("an operand of shape " + dimsText(operandDims) + " does not broadcast to " + dimsText(outDims));
        strides[d + shift] = extent == 1 ? 0 : dense[d];
    }
    return strides;
}

void collapseDims(std::vector<std::int64_t>& dims, std::vector<std::vector<std::int64_t>*> strideSets)
{
    // Extent-1 axes are never walked: drop them.
    for (std::size_t d = dims.size(); d-- > 0;)
        if (dims[d] == 1) {
            dims.erase(dims.begin() + static_cast<std::ptrdiff_t>(d));
            for (auto* s : strideSets)
                s->erase(s->begin() + static_cast<std::ptrdiff_t>(d));
        }
    // Axis d folds into d + 1 when every set steps over d + 1's whole extent in one step of d.
    for (std::size_t d = dims.size(); d-- > 1;) {
        const std::size_t outer = d - 1;
        const bool contiguous = std::all_of(
            strideSets.begin(), strideSets.end(), [&](const auto* s) { return (*s)[outer] == (*s)[d] * dims[d]; });
        if (!contiguous)
            continue;
        dims[d] *= dims[outer];
        dims.erase(dims.begin() + static_cast<std::ptrdiff_t>(outer));
        for (auto* s : strideSets)
            s->erase(s->begin() + static_cast<std::ptrdiff_t>(outer));
    }
}

kernels::StridedCopy stridedCopy(
    const cpu::StridedView& view, std::vector<std::int64_t> dstStrides, std::int64_t dstOffset)
{
    if (dstStrides.size() != view.dims.size())
        throw Error("a strided copy's source and destination differ in rank");
    auto dims = view.dims;
    auto srcStrides = view.strides;
    collapseDims(dims, { &srcStrides, &dstStrides });
    checkRank(dims.size(), "a strided copy");
    kernels::StridedCopy c;
    c.rank = static_cast<int>(dims.size());
    fill(c.dims, dims);
    fill(c.srcStrides, srcStrides);
    fill(c.dstStrides, dstStrides);
    c.srcOffset = view.offset;
    c.dstOffset = dstOffset;
    return c;
}

kernels::StridedCopy denseCopy(const cpu::StridedView& view)
{
    return stridedCopy(view, cpu::rowMajorStrides(view.dims), 0);
}

std::vector<kernels::StridedCopy> concatCopies(
    const std::vector<std::vector<std::int64_t>>& operandDims, const std::vector<std::int64_t>& outDims, int axis)
{
    const auto rank = outDims.size();
    if (axis < 0 || static_cast<std::size_t>(axis) >= rank)
        throw Error("concat axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    const auto a = static_cast<std::size_t>(axis);
    const auto outStrides = cpu::rowMajorStrides(outDims);
    std::vector<kernels::StridedCopy> copies;
    std::int64_t at = 0;
    for (const auto& dims : operandDims) {
        for (std::size_t d = 0; d < rank; ++d)
            if (dims.size() != rank || (d != a && dims[d] != outDims[d]))
                throw Error("concat operand " + dimsText(dims) + " does not fit the result " + dimsText(outDims)
                    + " along axis " + std::to_string(axis));
        const cpu::StridedView src { 0, dims, cpu::rowMajorStrides(dims) };
        copies.push_back(stridedCopy(src, outStrides, at * outStrides[a]));
        at += dims[a];
    }
    if (at != outDims[a])
        throw Error("concat operands add up to " + std::to_string(at) + " along axis " + std::to_string(axis)
            + ", the result has " + std::to_string(outDims[a]));
    return copies;
}

BinaryLaunches binaryLaunches(BinaryKind kind, const std::vector<std::vector<std::int64_t>>& operandDims,
    const std::vector<std::int64_t>& outDims)
{
    if (operandDims.size() < 2)
        throw Error("an element-wise operation needs two operands");
    BinaryLaunches result;
    const auto dense = cpu::rowMajorStrides(outDims);
    std::size_t next = 0;
    while (next < operandDims.size()) {
        std::vector<int> slots;
        if (next > 0)
            slots.push_back(-1); // what the previous launch wrote
        while (slots.size() < static_cast<std::size_t>(kernels::kMaxOperands) && next < operandDims.size())
            slots.push_back(static_cast<int>(next++));
        std::vector<std::vector<std::int64_t>> strides;
        for (int slot : slots)
            strides.push_back(
                slot < 0 ? dense : broadcastStrides(operandDims[static_cast<std::size_t>(slot)], outDims));
        auto dims = outDims;
        auto out = dense;
        std::vector<std::vector<std::int64_t>*> sets { &out };
        for (auto& s : strides)
            sets.push_back(&s);
        collapseDims(dims, sets);
        checkRank(dims.size(), "an element-wise operation");
        kernels::Elementwise e;
        e.kind = static_cast<int>(kind);
        e.rank = static_cast<int>(dims.size());
        fill(e.dims, dims);
        e.count = static_cast<int>(slots.size());
        for (std::size_t k = 0; k < strides.size(); ++k)
            fill(e.strides[k], strides[k]);
        result.launches.push_back(e);
        result.operandOf.push_back(std::move(slots));
    }
    return result;
}

kernels::BatchedMatMul matMulGeometry(const std::vector<std::int64_t>& aDims, const std::vector<std::int64_t>& bDims,
    const std::vector<std::int64_t>& outDims)
{
    auto [ad, bd] = cpu::promoteMatMulOperands(aDims, bDims);
    const std::size_t rank = ad.size();
    const std::string shapes = dimsText(aDims) + " x " + dimsText(bDims);
    if (ad[rank - 1] != bd[rank - 2])
        throw Error("matmul of " + shapes + ": inner dimensions differ");
    std::vector<std::int64_t> batchDims(rank - 2);
    for (std::size_t i = 0; i + 2 < rank; ++i) {
        if (ad[i] != bd[i] && ad[i] != 1 && bd[i] != 1)
            throw Error("matmul of " + shapes + ": batch dimensions do not broadcast");
        batchDims[i] = std::max(ad[i], bd[i]);
    }
    kernels::BatchedMatMul g;
    g.m = ad[rank - 2];
    g.k = ad[rank - 1];
    g.n = bd[rank - 1];
    g.batch = product(batchDims);
    if (g.batch * g.m * g.n != product(outDims))
        throw Error("matmul of " + shapes + " does not give " + dimsText(outDims));
    // Batch strides of each operand's matrices; 0 where that operand is broadcast.
    std::vector<std::int64_t> aStrides(rank - 2), bStrides(rank - 2);
    std::int64_t aStep = g.m * g.k, bStep = g.k * g.n;
    for (std::size_t i = rank - 2; i-- > 0;) {
        aStrides[i] = ad[i] == 1 ? 0 : aStep;
        bStrides[i] = bd[i] == 1 ? 0 : bStep;
        aStep *= ad[i];
        bStep *= bd[i];
    }
    auto outStrides = cpu::rowMajorStrides(batchDims);
    collapseDims(batchDims, { &aStrides, &bStrides, &outStrides });
    checkRank(batchDims.size(), "a matmul's batch");
    g.batchRank = static_cast<int>(batchDims.size());
    fill(g.batchDims, batchDims);
    fill(g.aBatchStrides, aStrides);
    fill(g.bBatchStrides, bStrides);
    return g;
}

kernels::Reduction reductionGeometry(
    ReduceKind kind, const std::vector<std::int64_t>& inDims, const std::vector<std::int64_t>& axes)
{
    const auto rank = static_cast<std::int64_t>(inDims.size());
    std::vector<bool> reduced(inDims.size(), axes.empty());
    for (auto a : axes) {
        if (a < -rank || a >= rank)
            throw Error("reduce axis " + std::to_string(a) + " is out of range for rank " + std::to_string(rank));
        reduced[static_cast<std::size_t>(a < 0 ? a + rank : a)] = true;
    }
    const auto inStrides = cpu::rowMajorStrides(inDims);
    std::vector<std::int64_t> keptDims, keptStrides, reducedDims, reducedStrides;
    for (std::size_t d = 0; d < inDims.size(); ++d) {
        (reduced[d] ? reducedDims : keptDims).push_back(inDims[d]);
        (reduced[d] ? reducedStrides : keptStrides).push_back(inStrides[d]);
    }
    kernels::Reduction r;
    r.kind = static_cast<int>(kind);
    r.reducedCount = product(reducedDims);
    if (r.reducedCount == 0)
        throw Error("reduce over an empty axis of " + dimsText(inDims));
    auto outStrides = cpu::rowMajorStrides(keptDims);
    collapseDims(keptDims, { &keptStrides, &outStrides });
    collapseDims(reducedDims, { &reducedStrides });
    checkRank(keptDims.size(), "a reduction's kept axes");
    checkRank(reducedDims.size(), "a reduction's reduced axes");
    r.keptRank = static_cast<int>(keptDims.size());
    fill(r.keptDims, keptDims);
    fill(r.keptStrides, keptStrides);
    r.reducedRank = static_cast<int>(reducedDims.size());
    fill(r.reducedDims, reducedDims);
    fill(r.reducedStrides, reducedStrides);
    return r;
}

PadTables padGeometry(const Pad& pad, const std::vector<std::int64_t>& inDims, const std::vector<std::int64_t>& outDims)
{
    const std::size_t rank = inDims.size();
    if (pad.pads.size() != 2 * rank || outDims.size() != rank)
        throw Error("pad needs 2 x rank pads");
    checkRank(rank, "a pad");
    PadTables t;
    t.gather.rank = static_cast<int>(rank);
    t.gather.value = pad.value;
    const auto inStrides = cpu::rowMajorStrides(inDims);
    for (std::size_t d = 0; d < rank; ++d) {
        if (outDims[d] != inDims[d] + pad.pads[d] + pad.pads[d + rank])
            throw Error("pad of " + dimsText(inDims) + " does not give " + dimsText(outDims));
        if (inDims[d] == 0 && pad.mode != PadMode::Constant && outDims[d] > 0)
            throw Error("reflect and edge pads need a non-empty axis");
        t.gather.outDims[d] = outDims[d];
        t.gather.inStrides[d] = inStrides[d];
        t.gather.indexOffsets[d] = static_cast<std::int64_t>(t.indices.size());
        const auto axis = cpu::padSourceIndices(inDims[d], pad.pads[d], outDims[d], pad.mode);
        t.indices.insert(t.indices.end(), axis.begin(), axis.end());
    }
    return t;
}

ScaleShift batchNormScaleShift(const std::vector<float>& gamma, const std::vector<float>& beta,
    const std::vector<float>& mean, const std::vector<float>& variance, float epsilon)
{
    const std::size_t channels = gamma.size();
    if (beta.size() != channels || mean.size() != channels || variance.size() != channels)
        throw Error("batch normalisation needs scale, bias, mean and variance of one length each");
    ScaleShift s;
    for (std::size_t c = 0; c < channels; ++c) {
        // In double: var + eps may be tiny, and this is done once.
        const double scale = gamma[c] / std::sqrt(static_cast<double>(variance[c]) + epsilon);
        s.scale.push_back(static_cast<float>(scale));
        s.shift.push_back(static_cast<float>(beta[c] - mean[c] * scale));
    }
    return s;
}

} // namespace opsched::gpu
