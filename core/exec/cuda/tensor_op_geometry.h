// Host side of the CUDA kernels for imported models' layers: turns layer parameters and shapes
// into the kernels' plain descriptions (tensor_kernel_params.h). The index arithmetic of slices,
// transposes and pads is the CPU executor's (exec/cpu/tensor_views.h); here it only becomes
// strides. Plain C++, no CUDA, so it is tested on machines without a GPU.
#pragma once

#include "exec/cpu/tensor_views.h"
#include "exec/cuda/tensor_kernel_params.h"
#include "graph/layer.h"

#include <cstdint>
#include <vector>

namespace opsched::gpu {

// NumPy broadcasting: the operand right-aligned to `outDims`, as strides per output axis, 0
// where it is broadcast. Throws Error when the operand does not broadcast to outDims.
std::vector<std::int64_t> broadcastStrides(
    const std::vector<std::int64_t>& operandDims, const std::vector<std::int64_t>& outDims);

// Drops extent-1 axes and merges neighbouring axes that every stride set walks contiguously,
// so any rank fits the kernels' kTensorMaxRank when the layout allows. `dims` of size 0 on some
// axis are kept (nothing to do). Modifies `dims` and every set in place.
void collapseDims(std::vector<std::int64_t>& dims, std::vector<std::vector<std::int64_t>*> strideSets);

// Copy of `view` into a destination walked with `dstStrides` from `dstOffset` (same rank).
kernels::StridedCopy stridedCopy(
    const cpu::StridedView& view, std::vector<std::int64_t> dstStrides, std::int64_t dstOffset);
// Copy of `view` into a dense tensor of the view's dims.
kernels::StridedCopy denseCopy(const cpu::StridedView& view);

// Concatenation along `axis` (non-negative): one copy per operand into its offset of the dense output.
std::vector<kernels::StridedCopy> concatCopies(
    const std::vector<std::vector<std::int64_t>>& operandDims, const std::vector<std::int64_t>& outDims, int axis);

// An N-ary Binary as launches of at most kMaxOperands operands each. operandOf[j][slot] is the
// operand index that launch j reads in that slot, or -1 for the output (a later launch folds the
// next operands into what the previous one wrote).
struct BinaryLaunches {
    std::vector<kernels::Elementwise> launches;
    std::vector<std::vector<int>> operandOf;
};
BinaryLaunches binaryLaunches(BinaryKind kind, const std::vector<std::vector<std::int64_t>>& operandDims,
    const std::vector<std::int64_t>& outDims);

// ONNX MatMul: 1-D operands promoted (a: [1, k], b: [k, 1]) and the batch axes broadcast.
// Throws Error when the shapes do not multiply into outDims.
kernels::BatchedMatMul matMulGeometry(const std::vector<std::int64_t>& aDims, const std::vector<std::int64_t>& bDims,
    const std::vector<std::int64_t>& outDims);

// Reduce over `axes` (negative count from the end; empty: all). The output is dense over the
// kept axes whether or not the layer keeps the reduced ones as 1.
kernels::Reduction reductionGeometry(
    ReduceKind kind, const std::vector<std::int64_t>& inDims, const std::vector<std::int64_t>& axes);

// Pad as a gather, with its per-axis source index tables (cpu::padSourceIndices) laid end to end.
struct PadTables {
    kernels::PadGather gather; // `indices` left for the caller to point at the uploaded tables
    std::vector<std::int64_t> indices;
};
PadTables padGeometry(
    const Pad& pad, const std::vector<std::int64_t>& inDims, const std::vector<std::int64_t>& outDims);

// Inference batch normalisation as y = x * scale[c] + shift[c]: scale = gamma / sqrt(var + eps),
// shift = beta - mean * scale.
struct ScaleShift {
    std::vector<float> scale, shift;
};
ScaleShift batchNormScaleShift(const std::vector<float>& gamma, const std::vector<float>& beta,
    const std::vector<float>& mean, const std::vector<float>& variance, float epsilon);

} // namespace opsched::gpu
