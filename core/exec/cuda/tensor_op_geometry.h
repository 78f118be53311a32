// Host side of the CUDA kernels for imported models' layers (transformers' too): turns layer
// parameters and shapes into the kernels' plain descriptions (tensor_kernel_params.h). The index
// arithmetic of slices, transposes and pads is the CPU executor's (exec/cpu/tensor_views.h); here
// it only becomes strides. Plain C++, no CUDA, so it is tested on machines without a GPU.
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

// The order a Binary folds its operands in, as indices into the op's terms then the layer's
// weights: as listed, or with constantFirst the one weight first. Throws Error when constantFirst
// has no single weight.
std::vector<std::size_t> binaryOperandOrder(const Binary& binary, std::size_t terms, std::size_t weights);

// Where as one select launch over its condition, x and y (in that order in srcs).
kernels::Elementwise whereGeometry(const std::vector<std::int64_t>& conditionDims,
    const std::vector<std::int64_t>& xDims, const std::vector<std::int64_t>& yDims,
    const std::vector<std::int64_t>& outDims);

// Expand: the input read with broadcast strides (0 where repeated) into the dense output.
kernels::StridedCopy expandCopy(const std::vector<std::int64_t>& inDims, const std::vector<std::int64_t>& outDims);

// LayerNorm over the axes from `norm.axis` on: rows x cols, with the threads per row. The scale
// (and bias, when biasDims is given) must hold one value per normalised element, or cover a
// trailing part of the normalised axes (leading 1s ignored), which the kernel cycles over each
// row. Throws Error otherwise.
kernels::RowNorm rowNormGeometry(const LayerNorm& norm, const std::vector<std::int64_t>& inDims,
    const std::vector<std::int64_t>& scaleDims, const std::vector<std::int64_t>* biasDims);

// Gather along `axis` of `dataDims` with `indexCount` indices, checked against outDims. The
// caller sets the index source (ids or indices) and the error slot.
kernels::GatherRows gatherGeometry(const std::vector<std::int64_t>& dataDims, int axis, std::int64_t indexCount,
    const std::vector<std::int64_t>& outDims);
// GatherElements along `axis` of `dataDims` by indices of `indexDims` (the output's shape). The
// caller sets the index source and the error slot. Throws Error for a rank or shape that does not fit.
kernels::GatherElements gatherElementsGeometry(
    const std::vector<std::int64_t>& dataDims, int axis, const std::vector<std::int64_t>& indexDims);
// A gather's constant indices made non-negative; throws Error for one outside [-axisLen, axisLen).
std::vector<std::int64_t> normalisedGatherIndices(const std::vector<std::int64_t>& indices, std::int64_t axisLen);

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

// Resize as a gather over its tap tables (cpu::resizeTaps) laid end to end.
struct ResizeTables {
    kernels::ResizeGather gather; // `indices` and `weights` left for the caller to point at the uploads
    std::vector<std::int64_t> indices;
    std::vector<float> weights;
};
ResizeTables resizeGeometry(
    const Resize& resize, const std::vector<std::int64_t>& inDims, const std::vector<std::int64_t>& outDims);

// The transposed convolution's sizes, checked against the layer's output.
kernels::ConvTransposeShape convTransposeGeometry(
    const ConvTranspose2d& c, const std::vector<std::int64_t>& inDims, const std::vector<std::int64_t>& outDims);

// A 3-D convolution's sizes (NCDHW), checked against the layer's output.
kernels::Conv3dShape conv3dGeometry(
    const Conv2d& c, const std::vector<std::int64_t>& inDims, const std::vector<std::int64_t>& outDims);

// Inference batch normalisation as y = x * scale[c] + shift[c]: scale = gamma / sqrt(var + eps),
// shift = beta - mean * scale.
struct ScaleShift {
    std::vector<float> scale, shift;
};
ScaleShift batchNormScaleShift(const std::vector<float>& gamma, const std::vector<float>& beta,
    const std::vector<float>& mean, const std::vector<float>& variance, float epsilon);

} // namespace opsched::gpu
