// Index arithmetic for the CPU executor's data-movement layers (Slice, Transpose, Pad) and the
// little own code oneDNN has no primitive for: copies through views with negative strides (slices
// with negative steps) and the reflect / edge modes of Pad. Plain C++, no oneDNN, so it is tested
// on its own. Dense tensors are row-major float32; strides are in elements.
#pragma once

#include "graph/layer.h"

#include <cstdint>
#include <vector>

namespace opsched::cpu {

// A window onto a dense tensor: `offset` elements from its start, then `dims` walked with
// `strides` (which may be negative or zero).
struct StridedView {
    std::int64_t offset = 0;
    std::vector<std::int64_t> dims, strides;

    bool hasNegativeStride() const;
};

std::vector<std::int64_t> rowMajorStrides(const std::vector<std::int64_t>& dims);

// The number of elements of a dense tensor with these dimensions (1 for none).
std::int64_t elementCount(const std::vector<std::int64_t>& dims);

// ONNX Slice over `inDims`: negative starts/ends count from the end, both are clamped (to
// [0, d] for positive steps, [-1, d-1] for negative ones), negative axes count from the last.
// Throws Error for a step of 0 or mismatched lists.
StridedView sliceView(const std::vector<std::int64_t>& inDims, const Slice& slice);

// The input seen in the output's order: output axis i walks input axis perm[i].
StridedView transposeView(const std::vector<std::int64_t>& inDims, const std::vector<std::int64_t>& perm);

// Copies the view of `src` into dense `dst` (the view's dims, row-major).
void copyView(const float* src, const StridedView& view, float* dst);

// For one axis of Pad: the input index each output position reads, or -1 for the constant.
// `before` may be negative (cropping). Reflect mirrors without repeating the edge and keeps
// reflecting for pads longer than the axis (NumPy's pad); Edge repeats the border value.
std::vector<std::int64_t> padSourceIndices(
    std::int64_t inSize, std::int64_t before, std::int64_t outSize, PadMode mode);

// Pad as a gather: every output element reads the input at the per-axis indices, or `value`
// where any of them is -1. indices[d] has outDims[d] entries.
void padGather(const float* src, const std::vector<std::int64_t>& inDims, float* dst,
    const std::vector<std::int64_t>& outDims, const std::vector<std::vector<std::int64_t>>& indices, float value);

// ONNX MatMul's operands brought to one rank: a 1-D left operand becomes [1, K], a 1-D right one
// [K, 1], and the shorter one gets leading 1s (its batch dimensions broadcast). Throws Error for
// rank-0 operands.
struct MatMulOperandDims {
    std::vector<std::int64_t> a, b;
};
MatMulOperandDims promoteMatMulOperands(std::vector<std::int64_t> a, std::vector<std::int64_t> b);

} // namespace opsched::cpu
