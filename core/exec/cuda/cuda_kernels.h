// The CUDA executor's own kernels: everything that is not a convolution. Each launcher issues one
// kernel on `stream` (capturable: no allocation, no synchronisation) and returns the launch's
// error. Shapes are dense NCHW float32 unless a launcher says otherwise.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace opsched::gpu::kernels {

// An activation: ActivationKind's value (kernels::ActivationCode, tensor_kernel_params.h), with
// its parameters.
struct Act {
    int kind = 0;
    float alpha = 0, beta = 0;
};

// out[i] = second(first(in[i])); in == out is allowed.
cudaError_t activation(cudaStream_t stream, const float* in, float* out, std::int64_t n, Act first, Act second = {});

// In place on [batch, channels, inner]: x = act(x + bias[c]); bias may be null.
cudaError_t biasActivation(cudaStream_t stream, float* data, const float* bias, std::int64_t batch,
    std::int64_t channels, std::int64_t inner, Act act);

// Channel-slice copy/sum: for n < batch, c < channels, i < inner:
//   dst[(n * dstChannels + dstC0 + c) * inner + i] (+)= sum_k srcs[k][(n * srcChannels + srcC0 + c) * inner + i]
// Serves concatenation into a slice, summed terms, and copying a merged launch's slice out.
inline constexpr int kMaxSources = 8;
struct ChannelCopy {
    float* dst = nullptr;
    std::int64_t dstChannels = 0, dstC0 = 0;
    const float* srcs[kMaxSources] = {};
    int sourceCount = 0;
    std::int64_t srcChannels = 0, srcC0 = 0;
    std::int64_t batch = 0, channels = 0, inner = 0;
    bool accumulate = false; // add to dst instead of overwriting it
};
cudaError_t channelCopy(cudaStream_t stream, const ChannelCopy& c);

// Max / average pooling with PyTorch's windows: asymmetric padding, ceil-mode overhang past the
// padding not counted, count_include_pad.
struct Pool {
    bool max = true;
    bool countIncludePad = false;
    std::int64_t batch = 0, channels = 0, inH = 0, inW = 0, outH = 0, outW = 0;
    std::int64_t kernelH = 1, kernelW = 1, strideH = 1, strideW = 1;
    std::int64_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0;
};
cudaError_t pool(cudaStream_t stream, const float* in, float* out, const Pool& p, Act act);

// Softmax over the middle dimension of [outer, axis, inner]. The last axis (inner 1, attention
// scores) runs one warp per row, reading it coalesced; other axes one thread per row. logOutput:
// log-softmax (x - max - log(sum(exp(x - max)))).
cudaError_t softmax(cudaStream_t stream, const float* in, float* out, std::int64_t outer, std::int64_t axis,
    std::int64_t inner, bool logOutput = false);

// out[n, o] = act(sum_k in[n, k] * weight[o, k] + bias[o]); bias may be null. FP32 FMA.
cudaError_t gemm(cudaStream_t stream, const float* in, const float* weight, const float* bias, float* out,
    std::int64_t n, std::int64_t k, std::int64_t o, Act act);

// out = act(a * b) with NumPy broadcasting: strides per output dimension, 0 where broadcast.
inline constexpr int kMaxRank = 6;
struct Broadcast {
    int rank = 0;
    std::int64_t dims[kMaxRank] = {};
    std::int64_t aStrides[kMaxRank] = {};
    std::int64_t bStrides[kMaxRank] = {};
};
cudaError_t multiply(cudaStream_t stream, const float* a, const float* b, float* out, const Broadcast& shape, Act act);

// Zero-padded copy of [batch, channels, h, w] into [batch, channels, h + top + bottom, w + left + right]
// (convolutions with asymmetric padding, which cuDNN does not take).
cudaError_t padCopy(cudaStream_t stream, const float* in, float* out, std::int64_t batch, std::int64_t channels,
    std::int64_t h, std::int64_t w, std::int64_t outH, std::int64_t outW, std::int64_t top, std::int64_t left);

} // namespace opsched::gpu::kernels
