#include "exec/cuda/device_activation.cuh"
#include "exec/cuda/row_kernels.h"

#include <algorithm>

namespace opsched::gpu::kernels {
namespace {

constexpr unsigned kAllLanes = 0xffffffffU;
constexpr int kThreads = 256;

__device__ float warpSum(float v)
{
    for (int step = 16; step > 0; step /= 2)
        v += __shfl_xor_sync(kAllLanes, v, step);
    return v;
}

// Sum over the block; every thread gets it. `shared` holds 33 floats: one per warp, then the total.
__device__ float blockSum(float v, float* shared)
{
    const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
    v = warpSum(v);
    if (lane == 0)
        shared[warp] = v;
    __syncthreads();
    if (warp == 0) {
        const int warps = static_cast<int>((blockDim.x + 31) / 32);
        v = warpSum(lane < warps ? shared[lane] : 0.0F);
        if (lane == 0)
            shared[32] = v;
    }
    __syncthreads();
    const float total = shared[32];
    __syncthreads(); // `shared` is reused by the next call
    return total;
}

// One block per row (strided over rows). Two passes for the statistics (mean, then the squares
// around it) rather than E[x^2] - E[x]^2, which cancels badly for rows far from zero; the row is
// small enough to stay in cache between passes.
__global__ void rowNormKernel(const float* in, float* out, const float* scale, const float* bias, RowNorm p, Act act)
{
    __shared__ float shared[33];
    const float cols = static_cast<float>(p.cols);
    for (std::int64_t r = blockIdx.x; r < p.rows; r += gridDim.x) {
        const float* x = in + r * p.cols;
        float* y = out + r * p.cols;
        float mean = 0.0F;
        if (!p.rms) {
            float sum = 0.0F;
            for (std::int64_t c = threadIdx.x; c < p.cols; c += blockDim.x)
                sum += x[c];
            mean = blockSum(sum, shared) / cols;
        }
        float squares = 0.0F;
        for (std::int64_t c = threadIdx.x; c < p.cols; c += blockDim.x) {
            const float d = x[c] - mean;
            squares += d * d;
        }
        const float inverse = rsqrtf(blockSum(squares, shared) / cols + p.epsilon);
        for (std::int64_t c = threadIdx.x; c < p.cols; c += blockDim.x) {
            float v = (x[c] - mean) * inverse;
            if (p.scaleCount > 0)
                v *= scale[p.scaleCount == p.cols ? c : c % p.scaleCount];
            if (p.biasCount > 0)
                v += bias[p.biasCount == p.cols ? c : c % p.biasCount];
            y[c] = applyActivation(act, v);
        }
    }
}

// An id (a float from the model) as an index into an axis of axisLen: rounded, negative ones
// from the end. False for one outside the axis (NaN included), reported once through `error`.
__device__ bool idIndex(float id, std::int64_t axisLen, IndexError* error, int errorCode, std::int64_t& index)
{
    const float rounded = rintf(id);
    const float extent = static_cast<float>(axisLen);
    if (!(rounded >= -extent && rounded < extent)) { // written so that NaN fails too
        if (error && atomicCAS(&error->gather, 0, errorCode) == 0)
            error->id = id;
        return false;
    }
    index = static_cast<std::int64_t>(rounded);
    if (index < 0)
        index += axisLen;
    return true;
}

__global__ void gatherRowsKernel(const float* data, float* out, GatherRows g, Act act, std::int64_t total)
{
    for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < total;
         i += static_cast<std::int64_t>(blockDim.x) * gridDim.x) {
        const std::int64_t within = i % g.inner;
        const std::int64_t slot = (i / g.inner) % g.count;
        const std::int64_t outer = i / (g.inner * g.count);
        std::int64_t index = 0;
        if (g.ids) {
            if (!idIndex(g.ids[slot], g.axisLen, within == 0 ? g.error : nullptr, g.errorCode, index)) {
                out[i] = 0.0F;
                continue;
            }
        } else {
            index = g.indices[slot];
        }
        out[i] = applyActivation(act, data[(outer * g.axisLen + index) * g.inner + within]);
    }
}

__global__ void gatherElementsKernel(const float* data, float* out, GatherElements g, Act act, std::int64_t total)
{
    for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < total;
         i += static_cast<std::int64_t>(blockDim.x) * gridDim.x) {
        std::int64_t index = 0;
        if (g.ids) {
            if (!idIndex(g.ids[i], g.axisLen, g.error, g.errorCode, index)) {
                out[i] = 0.0F;
                continue;
            }
        } else {
            index = g.indices[i];
        }
        std::int64_t rest = i, offset = 0;
        for (int d = g.rank - 1; d >= 0; --d) {
            const std::int64_t coordinate = rest % g.outDims[d];
            rest /= g.outDims[d];
            offset += (d == g.axis ? index : coordinate) * g.dataStrides[d];
        }
        out[i] = applyActivation(act, data[offset]);
    }
}

} // namespace

cudaError_t rowNorm(
    cudaStream_t stream, const float* in, float* out, const float* scale, const float* bias, const RowNorm& p, Act act)
{
    if (p.rows <= 0 || p.cols <= 0)
        return cudaGetLastError();
    if (p.threads < 32 || p.threads > 1024 || p.threads % 32 != 0)
        return cudaErrorInvalidValue;
    const unsigned blocks = static_cast<unsigned>(std::min<std::int64_t>(p.rows, 1 << 20));
    rowNormKernel<<<blocks, static_cast<unsigned>(p.threads), 0, stream>>>(in, out, scale, bias, p, act);
    return cudaGetLastError();
}

cudaError_t gatherRows(cudaStream_t stream, const float* data, float* out, const GatherRows& g, Act act)
{
    const std::int64_t total = g.outer * g.count * g.inner;
    if (total <= 0)
        return cudaGetLastError();
    if (!g.ids && !g.indices)
        return cudaErrorInvalidValue;
    const std::int64_t blocks = std::min<std::int64_t>((total + kThreads - 1) / kThreads, 65535 * 16);
    gatherRowsKernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(data, out, g, act, total);
    return cudaGetLastError();
}

cudaError_t gatherElements(cudaStream_t stream, const float* data, float* out, const GatherElements& g, Act act)
{
    std::int64_t total = g.rank > 0 ? 1 : 0;
    for (int d = 0; d < g.rank; ++d)
        total *= g.outDims[d];
    if (total <= 0)
        return cudaGetLastError();
    if (!g.ids && !g.indices)
        return cudaErrorInvalidValue;
    const std::int64_t blocks = std::min<std::int64_t>((total + kThreads - 1) / kThreads, 65535 * 16);
    gatherElementsKernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(data, out, g, act, total);
    return cudaGetLastError();
}

} // namespace opsched::gpu::kernels
