#include "exec/cuda/cuda_kernels.h"
#include "exec/cuda/device_activation.cuh"
#include "exec/cuda/device_index.cuh"

#include <algorithm>
#include <cfloat>

namespace opsched::gpu::kernels {
namespace {

constexpr int kThreads = 256;

unsigned blocksFor(std::int64_t n)
{
    const std::int64_t b = (n + kThreads - 1) / kThreads;
    return static_cast<unsigned>(b < 1 ? 1 : (b > 65535 * 16 ? 65535 * 16 : b)); // grid-stride loops cover the rest
}

__device__ float apply(Act a, float x)
{
    return applyActivation(a, x);
}

#define GRID_STRIDE(i, n)                                                                                              \
    for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < (n);                   \
         i += static_cast<std::int64_t>(blockDim.x) * gridDim.x)

__global__ void activationKernel(const float* in, float* out, std::int64_t n, Act first, Act second)
{
    GRID_STRIDE(i, n) out[i] = apply(second, apply(first, in[i]));
}

__global__ void biasActivationKernel(
    float* data, const float* bias, std::int64_t total, std::int64_t channels, std::int64_t inner, Act act)
{
    GRID_STRIDE(i, total)
    {
        const float b = bias ? bias[(i / inner) % channels] : 0.0F;
        data[i] = apply(act, data[i] + b);
    }
}

__global__ void channelCopyKernel(ChannelCopy c, std::int64_t total)
{
    GRID_STRIDE(i, total)
    {
        const std::int64_t inner = i % c.inner;
        const std::int64_t ch = (i / c.inner) % c.channels;
        const std::int64_t n = i / (c.inner * c.channels);
        const std::int64_t src = (n * c.srcChannels + c.srcC0 + ch) * c.inner + inner;
        float sum = 0.0F;
        for (int k = 0; k < c.sourceCount; ++k)
            sum += c.srcs[k][src];
        float& d = c.dst[(n * c.dstChannels + c.dstC0 + ch) * c.inner + inner];
        d = c.accumulate ? d + sum : sum;
    }
}

__global__ void poolKernel(const float* in, float* out, Pool p, Act act, std::int64_t total)
{
    GRID_STRIDE(i, total)
    {
        const std::int64_t ow = i % p.outW;
        const std::int64_t oh = (i / p.outW) % p.outH;
        const std::int64_t nc = i / (p.outW * p.outH);
        const float* plane = in + nc * p.inH * p.inW;
        std::int64_t h0 = oh * p.strideH - p.padTop, w0 = ow * p.strideW - p.padLeft;
        std::int64_t h1 = min(h0 + p.kernelH, p.inH + p.padBottom), w1 = min(w0 + p.kernelW, p.inW + p.padRight);
        const std::int64_t padded = (h1 - h0) * (w1 - w0);
        h0 = max(h0, std::int64_t { 0 });
        w0 = max(w0, std::int64_t { 0 });
        h1 = min(h1, p.inH);
        w1 = min(w1, p.inW);
        float acc = p.max ? -INFINITY : 0.0F; // an empty window (all padding) is -inf, as on the CPU
        for (std::int64_t h = h0; h < h1; ++h)
            for (std::int64_t w = w0; w < w1; ++w) {
                const float v = plane[h * p.inW + w];
                acc = p.max ? fmaxf(acc, v) : acc + v;
            }
        if (!p.max) {
            const std::int64_t count = p.countIncludePad ? padded : (h1 - h0) * (w1 - w0);
            acc = count > 0 ? acc / static_cast<float>(count) : 0.0F;
        }
        out[i] = apply(act, acc);
    }
}

// One thread per (outer, inner) row: the rows are short (classes, channels) in these networks.
__global__ void softmaxKernel(
    const float* in, float* out, std::int64_t outer, std::int64_t axis, std::int64_t inner, bool logOutput)
{
    GRID_STRIDE(r, outer * inner)
    {
        const std::int64_t base = (r / inner) * axis * inner + r % inner;
        float m = -FLT_MAX;
        for (std::int64_t a = 0; a < axis; ++a)
            m = fmaxf(m, in[base + a * inner]);
        float sum = 0.0F;
        for (std::int64_t a = 0; a < axis; ++a)
            sum += expf(in[base + a * inner] - m);
        const float logSum = logf(sum);
        for (std::int64_t a = 0; a < axis; ++a)
            out[base + a * inner]
                = logOutput ? in[base + a * inner] - m - logSum : expf(in[base + a * inner] - m) / sum;
    }
}

// The last axis (attention scores: rows of the sequence length): one warp per row, so neighbouring
// lanes read neighbouring elements; max and sum are combined across the warp by shuffles.
__global__ void softmaxLastAxisKernel(const float* in, float* out, std::int64_t rows, std::int64_t len, bool logOutput)
{
    constexpr unsigned kAll = 0xffffffffU;
    const int lane = static_cast<int>(threadIdx.x % 32);
    const std::int64_t warpsPerBlock = blockDim.x / 32;
    const std::int64_t first = blockIdx.x * warpsPerBlock + threadIdx.x / 32;
    // r is the same for the whole warp, so every lane takes part in each shuffle.
    for (std::int64_t r = first; r < rows; r += warpsPerBlock * gridDim.x) {
        const float* x = in + r * len;
        float* y = out + r * len;
        float m = -FLT_MAX;
        for (std::int64_t a = lane; a < len; a += 32)
            m = fmaxf(m, x[a]);
        for (int step = 16; step > 0; step /= 2)
            m = fmaxf(m, __shfl_xor_sync(kAll, m, step));
        float sum = 0.0F;
        for (std::int64_t a = lane; a < len; a += 32)
            sum += expf(x[a] - m);
        for (int step = 16; step > 0; step /= 2)
            sum += __shfl_xor_sync(kAll, sum, step);
        const float logSum = logf(sum);
        for (std::int64_t a = lane; a < len; a += 32)
            y[a] = logOutput ? x[a] - m - logSum : expf(x[a] - m) / sum;
    }
}

constexpr int kTile = 16;

// Tiled: each block computes a 16x16 tile of out, staging 16-wide slices of in and weight.
__global__ void gemmKernel(const float* in, const float* weight, const float* bias, float* out, std::int64_t n,
    std::int64_t k, std::int64_t o, Act act)
{
    __shared__ float a[kTile][kTile + 1];
    __shared__ float b[kTile][kTile + 1];
    const std::int64_t row = blockIdx.y * static_cast<std::int64_t>(kTile) + threadIdx.y; // n
    const std::int64_t col = blockIdx.x * static_cast<std::int64_t>(kTile) + threadIdx.x; // o
    const std::int64_t wRow = blockIdx.x * static_cast<std::int64_t>(kTile) + threadIdx.y;
    float acc = 0.0F;
    for (std::int64_t t = 0; t < k; t += kTile) {
        const std::int64_t kk = t + threadIdx.x;
        a[threadIdx.y][threadIdx.x] = row < n && kk < k ? in[row * k + kk] : 0.0F;
        b[threadIdx.y][threadIdx.x] = wRow < o && kk < k ? weight[wRow * k + kk] : 0.0F;
        __syncthreads();
        for (int j = 0; j < kTile; ++j)
            acc = fmaf(a[threadIdx.y][j], b[threadIdx.x][j], acc);
        __syncthreads();
    }
    if (row < n && col < o)
        out[row * o + col] = apply(act, acc + (bias ? bias[col] : 0.0F));
}

__global__ void multiplyKernel(const float* a, const float* b, float* out, Broadcast s, Act act, std::int64_t total)
{
    GRID_STRIDE(i, total)
    {
        std::int64_t ia = 0, ib = 0;
        addStridedOffsets(i, s.rank, s.dims, s.aStrides, s.bStrides, ia, ib);
        out[i] = apply(act, a[ia] * b[ib]);
    }
}

__global__ void padCopyKernel(const float* in, float* out, std::int64_t h, std::int64_t w, std::int64_t outH,
    std::int64_t outW, std::int64_t top, std::int64_t left, std::int64_t total)
{
    GRID_STRIDE(i, total)
    {
        const std::int64_t x = i % outW - left;
        const std::int64_t y = (i / outW) % outH - top;
        const std::int64_t nc = i / (outW * outH);
        out[i] = x >= 0 && x < w && y >= 0 && y < h ? in[(nc * h + y) * w + x] : 0.0F;
    }
}

} // namespace

cudaError_t activation(cudaStream_t stream, const float* in, float* out, std::int64_t n, Act first, Act second)
{
    activationKernel<<<blocksFor(n), kThreads, 0, stream>>>(in, out, n, first, second);
    return cudaGetLastError();
}

cudaError_t biasActivation(cudaStream_t stream, float* data, const float* bias, std::int64_t batch,
    std::int64_t channels, std::int64_t inner, Act act)
{
    const std::int64_t total = batch * channels * inner;
    biasActivationKernel<<<blocksFor(total), kThreads, 0, stream>>>(data, bias, total, channels, inner, act);
    return cudaGetLastError();
}

cudaError_t channelCopy(cudaStream_t stream, const ChannelCopy& c)
{
    const std::int64_t total = c.batch * c.channels * c.inner;
    channelCopyKernel<<<blocksFor(total), kThreads, 0, stream>>>(c, total);
    return cudaGetLastError();
}

cudaError_t pool(cudaStream_t stream, const float* in, float* out, const Pool& p, Act act)
{
    const std::int64_t total = p.batch * p.channels * p.outH * p.outW;
    poolKernel<<<blocksFor(total), kThreads, 0, stream>>>(in, out, p, act, total);
    return cudaGetLastError();
}

cudaError_t softmax(cudaStream_t stream, const float* in, float* out, std::int64_t outer, std::int64_t axis,
    std::int64_t inner, bool logOutput)
{
    if (outer * inner <= 0)
        return cudaGetLastError();
    if (inner == 1) {
        constexpr std::int64_t warpsPerBlock = kThreads / 32;
        const std::int64_t blocks = std::min<std::int64_t>((outer + warpsPerBlock - 1) / warpsPerBlock, 65535 * 16);
        softmaxLastAxisKernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(in, out, outer, axis, logOutput);
    } else {
        softmaxKernel<<<blocksFor(outer * inner), kThreads, 0, stream>>>(in, out, outer, axis, inner, logOutput);
    }
    return cudaGetLastError();
}

cudaError_t gemm(cudaStream_t stream, const float* in, const float* weight, const float* bias, float* out,
    std::int64_t n, std::int64_t k, std::int64_t o, Act act)
{
    if (n <= 0 || o <= 0) // an empty grid is an invalid launch configuration, not a no-op
        return cudaGetLastError();
    const dim3 block(kTile, kTile);
    const dim3 grid(static_cast<unsigned>((o + kTile - 1) / kTile), static_cast<unsigned>((n + kTile - 1) / kTile));
    gemmKernel<<<grid, block, 0, stream>>>(in, weight, bias, out, n, k, o, act);
    return cudaGetLastError();
}

cudaError_t multiply(cudaStream_t stream, const float* a, const float* b, float* out, const Broadcast& shape, Act act)
{
    std::int64_t total = 1;
    for (int d = 0; d < shape.rank; ++d)
        total *= shape.dims[d];
    multiplyKernel<<<blocksFor(total), kThreads, 0, stream>>>(a, b, out, shape, act, total);
    return cudaGetLastError();
}

cudaError_t padCopy(cudaStream_t stream, const float* in, float* out, std::int64_t batch, std::int64_t channels,
    std::int64_t h, std::int64_t w, std::int64_t outH, std::int64_t outW, std::int64_t top, std::int64_t left)
{
    const std::int64_t total = batch * channels * outH * outW;
    padCopyKernel<<<blocksFor(total), kThreads, 0, stream>>>(in, out, h, w, outH, outW, top, left, total);
    return cudaGetLastError();
}

} // namespace opsched::gpu::kernels
