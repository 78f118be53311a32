// CUDA kernels for imported models' layers: N-ary broadcast Binary and Where, batched MatMul,
// strided copies (Slice, Transpose, Concat along any axis, Expand), Pad, Reduce and BatchNorm,
// each with the layer's fused activation. Launchers as in cuda_kernels.h: one kernel on `stream`,
// capturable, returning the launch's error. Descriptions come from tensor_op_geometry.h.
#pragma once

#include "exec/cuda/cuda_kernels.h"
#include "exec/cuda/tensor_kernel_params.h"

namespace opsched::gpu::kernels {

// Element count of a description's index space (the product of its dims).
std::int64_t elementCount(const std::int64_t* dims, int rank);

cudaError_t stridedCopy(cudaStream_t stream, const float* src, float* dst, const StridedCopy& c, Act act);

// Writes the dense output of `e` (operands in e.srcs); out may be one of them when it is read
// with the output's own strides (a later chunk of an N-ary fold).
cudaError_t elementwise(cudaStream_t stream, const Elementwise& e, float* out, Act act);

// Tiled FP32 (FMA) product into dense [batch..., m, n].
cudaError_t batchedMatMul(
    cudaStream_t stream, const float* a, const float* b, float* out, const BatchedMatMul& g, Act act);

cudaError_t reduce(cudaStream_t stream, const float* in, float* out, const Reduction& r, Act act);

// One thread per (outer, inner) row: k passes, each taking the best element not yet taken.
cudaError_t topK(cudaStream_t stream, const float* in, float* out, const TopKShape& t, Act act);

cudaError_t padGather(cudaStream_t stream, const float* in, float* out, const PadGather& p, Act act);

cudaError_t resizeGather(cudaStream_t stream, const float* in, float* out, const ResizeGather& r, Act act);

// LRN across channels: each output element sums the squares of its channel window.
cudaError_t lrn(cudaStream_t stream, const float* in, float* out, const LrnShape& s, Act act);

// Direct transposed convolution: each output element gathers the inputs whose taps land on it.
cudaError_t convTranspose(cudaStream_t stream, const float* in, const float* weights, const float* bias, float* out,
    const ConvTransposeShape& c, Act act);

// Direct 3-D convolution (cuDNN is set up for 2-D ones here): one thread per output element.
cudaError_t conv3d(cudaStream_t stream, const float* in, const float* weights, const float* bias, float* out,
    const Conv3dShape& c, Act act);

// out = act(in * scale[c] + shift[c]) over [batch, channels, inner].
cudaError_t scaleShift(cudaStream_t stream, const float* in, float* out, const float* scale, const float* shift,
    std::int64_t batch, std::int64_t channels, std::int64_t inner, Act act);

} // namespace opsched::gpu::kernels
