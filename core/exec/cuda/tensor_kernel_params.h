// Plain descriptions of the CUDA kernels for imported models' layers (Binary, MatMul, Concat,
// Slice, Transpose, Pad, Reduce, BatchNorm, LayerNorm, Gather, Where, Expand). Shared by the host code that fills them
// (tensor_op_geometry.h, C++20) and the kernels (tensor_kernels.cu, C++17), so: <cstdint> only,
// fixed-size arrays, no project headers. Strides and offsets are in elements; dense tensors are
// row-major float32.
#pragma once

#include <cstdint>

namespace opsched::gpu::kernels {

inline constexpr int kTensorMaxRank = 6; // after collapsing dimensions (tensor_op_geometry.h)
inline constexpr int kMaxOperands = 8; // per elementwise launch; more are folded in chunks

// ActivationKind's values (graph/layer.h) as the kernels see them; tensor_op_geometry.cpp checks
// that the two agree.
enum ActivationCode : int {
    kActNone,
    kActRelu,
    kActClip,
    kActSigmoid,
    kActHardSigmoid,
    kActHardSwish,
    kActTanh,
    kActGelu,
    kActGeluTanh,
    kActErf,
    kActSqrt,
    kActExp,
    kActLog,
    kActAbs,
    kActNeg,
    kActReciprocal,
    kActPow,
    kActNot,
    kActNonZero,
    kActTruncate,
    kActLeakyRelu,
    kActElu,
    kActSelu,
    kActCelu,
    kActSoftplus,
    kActSoftsign,
    kActMish,
    kActThresholdedRelu,
    kActFloor,
    kActCeil,
    kActRound,
    kActSign,
    kActSin,
    kActCos,
};

// What an Elementwise launch computes: BinaryKind's values (checked likewise), then Where's select.
enum ElementwiseCode : int {
    kAdd,
    kSub,
    kMul,
    kDiv,
    kPow,
    kMin,
    kMax,
    kEqual,
    kLess,
    kGreater,
    kPRelu, // a < 0 ? b * a : a
    kSelect, // srcs[0] != 0 ? srcs[1] : srcs[2]
};

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
// through its own strides (0 on broadcast axes). kind: an ElementwiseCode (kSelect takes 3 operands).
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

// ONNX's TopK over [outer, len, inner]: k per (outer, inner), best first, the lower index first
// among equal values; their values, or with indices their positions.
struct TopKShape {
    std::int64_t outer = 1, len = 1, inner = 1, k = 1;
    int largest = 1;
    int indices = 0;
};

// One output element per kept index (dense, keptDims), reducing over reducedDims. kind:
// ReduceKind's value (0 Mean, 1 Sum, 2 Max, 3 ArgMax, 4 ArgMin: the index in the reduced axes'
// order, the last of equal extremes with selectLast; 5 Min, 6 Prod, 7 L1, 8 L2, 9 SumSquare).
struct Reduction {
    int kind = 0;
    int selectLast = 0;
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

// Resize as a gather over tap tables (exec/cpu/resize_taps.h): output axis d at position o reads
// taps[d] input indices indices[tableOffsets[d] + o * taps[d] + t] with weights[...] at the same
// place; the output is the sum over every combination of one tap per axis of the product of the
// weights times the input there.
struct ResizeGather {
    int rank = 0;
    std::int64_t outDims[kTensorMaxRank] = {};
    std::int64_t inStrides[kTensorMaxRank] = {};
    std::int64_t taps[kTensorMaxRank] = {};
    std::int64_t tableOffsets[kTensorMaxRank] = {};
    const std::int64_t* indices = nullptr;
    const float* weights = nullptr;
};

// A transposed convolution over NCHW, weights as ONNX stores them: [inChannels, outChannels /
// groups, kernelH, kernelW]; bias optional.
struct ConvTransposeShape {
    std::int64_t batch = 0, inChannels = 0, inH = 0, inW = 0;
    std::int64_t outChannels = 0, outH = 0, outW = 0;
    std::int64_t kernelH = 1, kernelW = 1, strideH = 1, strideW = 1;
    std::int64_t padTop = 0, padLeft = 0, dilationH = 1, dilationW = 1;
    std::int64_t groups = 1;
    // The depth axis of an NCDHW one (1, 1, 1, 1, 0, 1 over NCHW).
    std::int64_t inD = 1, outD = 1, kernelD = 1, strideD = 1, padFront = 0, dilationD = 1;
};

// LRN across channels over [batch, channels, inner] (inner: the spatial positions).
struct LrnShape {
    std::int64_t batch = 0, channels = 0, inner = 0, size = 5;
    float alpha = 1e-4F, beta = 0.75F, bias = 1.0F;
};

// A 3-D convolution over NCDHW, weights [outChannels, inChannels / groups, kD, kH, kW]; bias
// optional. Spatial arrays are depth, height, width.
struct Conv3dShape {
    std::int64_t batch = 0, inChannels = 0, outChannels = 0, groups = 1;
    std::int64_t in[3] = {}, out[3] = {}, kernel[3] = {}, stride[3] = {}, padBegin[3] = {}, dilation[3] = {};
};

// Normalisation of each of `rows` dense rows of `cols` elements: (x - mean) / sqrt(var + eps), or
// with rms x / sqrt(mean(x^2) + eps), then * scale[c % scaleCount] (+ bias[c % biasCount]). The
// scale and bias cycle because they may cover only the trailing part of the normalised axes.
struct RowNorm {
    std::int64_t rows = 0, cols = 0;
    std::int64_t scaleCount = 0, biasCount = 0; // 0: none (scale 1, bias 0)
    float epsilon = 1e-5F;
    bool rms = false;
    int threads = 32; // per row (one block per row)
};

// The first out-of-range index a Gather met in a run: which gather (1-based, 0: none) and the id.
struct IndexError {
    int gather = 0;
    float id = 0.0F;
};

// ONNX Gather as dense [outer, count, inner] from data [outer, axisLen, inner]: output slice i
// reads data slice index(i). Indices come from `ids` (an embedding's token ids, floats rounded to
// the nearest integer) or from `indices` (constants, checked and made non-negative on the host).
// Negative ids count from the end; an id still outside [0, axisLen) writes zeros and is reported
// in *error (with errorCode) instead of being read.
struct GatherRows {
    std::int64_t outer = 1, axisLen = 0, count = 0, inner = 1;
    const float* ids = nullptr;
    const std::int64_t* indices = nullptr;
    IndexError* error = nullptr;
    int errorCode = 0;
};

// ONNX GatherElements: output element i (dense over outDims, the indices' shape) reads the data at
// its own coordinates with the `axis` one replaced by its index (ids or constant indices, checked
// and reported as in GatherRows).
struct GatherElements {
    int rank = 0, axis = 0;
    std::int64_t outDims[kTensorMaxRank] {};
    std::int64_t dataStrides[kTensorMaxRank] {};
    std::int64_t axisLen = 0;
    const float* ids = nullptr;
    const std::int64_t* indices = nullptr;
    IndexError* error = nullptr;
    int errorCode = 0;
};

} // namespace opsched::gpu::kernels
