// Plain descriptions of the CUDA kernels for imported models' layers (Binary, MatMul, Concat,
// Slice, Transpose, Pad, Reduce, BatchNorm). Shared by the host code that fills them
// (tensor_op_geometry.h, C++20) and the kernels (tensor_kernels.cu, C++17), so: <cstdint> only,
// fixed-size arrays, no project headers. Strides and offsets are in elements; dense tensors are
// row-major float32.
#pragma once

#include <cstdint>

namespace opsched::gpu::kernels {

inline constexpr int kTensorMaxRank = 6; // after collapsing dimensions (tensor_op_geometry.h)
inline constexpr int kMaxOperands = 8; // per elementwise launch; more are folded in chunks

// dst[dstOffset + sum_d i_d * dstStrides[d]] = act(src[srcOffset + sum_d i_d * srcStrides[d]])
// for every index i < dims. Serves Slice (negative strides for negative steps), Transpose and
// Concat along any axis (one launch per operand, into its offset).
struct StridedCopy {
    int rank = 0;
    std::int64_t dims[kTensorMaxRank] = {};
    std::int64_t srcStrides[kTensorMaxRank] = {};
    std::int64_t dstStrides[kTensorMaxRank] = {};
    std::int64_t srcOffset = 0, dstOffset = 0;
};

// out[i] = ((srcs[0] op srcs[1]) op srcs[2]) ... over a dense output of `dims`, each operand read
// through its own strides (0 on broadcast axes). op: BinaryKind's value (0 Add, 1 Sub, 2 Mul, 3 Div).
struct Elementwise {
    int kind = 0;
    int rank = 0;
    std::int64_t dims[kTensorMaxRank] = {};
    int count = 0;
    const float* srcs[kMaxOperands] = {};
    std::int64_t strides[kMaxOperands][kTensorMaxRank] = {};
};

// out[b, m, n] = sum_k a[b, m, k] * b[b, k, n] over a dense output [batch..., m, n]; each batch
// index walks batchDims with the operands' own batch strides (0 where broadcast).
struct BatchedMatMul {
    int batchRank = 0;
    std::int64_t batchDims[kTensorMaxRank] = {};
    std::int64_t aBatchStrides[kTensorMaxRank] = {};
    std::int64_t bBatchStrides[kTensorMaxRank] = {};
    std::int64_t batch = 1, m = 0, k = 0, n = 0;
};

// One output element per kept index (dense, keptDims), reducing over reducedDims. kind:
// ReduceKind's value (0 Mean, 1 Sum, 2 Max).
struct Reduction {
    int kind = 0;
    int keptRank = 0;
    std::int64_t keptDims[kTensorMaxRank] = {};
    std::int64_t keptStrides[kTensorMaxRank] = {}; // into the input
    int reducedRank = 0;
    std::int64_t reducedDims[kTensorMaxRank] = {};
    std::int64_t reducedStrides[kTensorMaxRank] = {};
    std::int64_t reducedCount = 1;
};

// Pad as a gather: output axis d at position o reads input index indices[indexOffsets[d] + o]
// (a table on the device), or `value` where any axis says -1.
struct PadGather {
    int rank = 0;
    std::int64_t outDims[kTensorMaxRank] = {};
    std::int64_t inStrides[kTensorMaxRank] = {};
    std::int64_t indexOffsets[kTensorMaxRank] = {};
    const std::int64_t* indices = nullptr;
    float value = 0.0F;
};

} // namespace opsched::gpu::kernels
