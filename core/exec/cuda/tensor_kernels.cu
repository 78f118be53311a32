#include "exec/cuda/device_activation.cuh"
#include "exec/cuda/device_index.cuh"
#include "exec/cuda/tensor_kernels.h"

#include <cfloat>

namespace opsched::gpu::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kTile = 16;

unsigned blocksFor(std::int64_t n)
{
    const std::int64_t b = (n + kThreads - 1) / kThreads;
    return static_cast<unsigned>(b < 1 ? 1 : (b > 65535 * 16 ? 65535 * 16 : b)); // grid-stride loops cover the rest
}

#define TENSOR_GRID_STRIDE(i, n)                                                                                       \
    for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < (n);                   \
         i += static_cast<std::int64_t>(blockDim.x) * gridDim.x)

__global__ void stridedCopyKernel(const float* src, float* dst, StridedCopy c, Act act, std::int64_t total)
{
    TENSOR_GRID_STRIDE(i, total)
    {
        std::int64_t s = c.srcOffset, d = c.dstOffset;
        addStridedOffsets(i, c.rank, c.dims, c.srcStrides, c.dstStrides, s, d);
        dst[d] = applyActivation(act, src[s]);
    }
}

// ElementwiseCode's binary operations; comparisons give 0/1 (ONNX's booleans as floats).
__device__ float combine(int kind, float a, float b)
{
    switch (kind) {
    case kSub:
        return a - b;
    case kMul:
        return a * b;
    case kDiv:
        return a / b;
    case kPow:
        return powf(a, b);
    case kMin:
        return fminf(a, b);
    case kMax:
        return fmaxf(a, b);
    case kEqual:
        return a == b ? 1.0F : 0.0F;
    case kLess:
        return a < b ? 1.0F : 0.0F;
    case kGreater:
        return a > b ? 1.0F : 0.0F;
    case kPRelu:
        return a < 0.0F ? b * a : a;
    default:
        return a + b;
    }
}

__global__ void elementwiseKernel(Elementwise e, float* out, Act act, std::int64_t total)
{
    TENSOR_GRID_STRIDE(i, total)
    {
        std::int64_t offsets[kMaxOperands] = {};
        std::int64_t rest = i;
        for (int d = e.rank - 1; d >= 0; --d) {
            const std::int64_t x = rest % e.dims[d];
            rest /= e.dims[d];
            for (int k = 0; k < e.count; ++k)
                offsets[k] += x * e.strides[k][d];
        }
        float acc = e.srcs[0][offsets[0]];
        if (e.kind == kSelect) // Where: condition, then x, then y
            acc = acc != 0.0F ? e.srcs[1][offsets[1]] : e.srcs[2][offsets[2]];
        else
            for (int k = 1; k < e.count; ++k)
                acc = combine(e.kind, acc, e.srcs[k][offsets[k]]);
        out[i] = applyActivation(act, acc);
    }
}

// One 16x16 output tile per block, batch on grid z (strided past 65535).
__global__ void batchedMatMulKernel(const float* a, const float* b, float* out, BatchedMatMul g, Act act)
{
    __shared__ float as[kTile][kTile + 1];
    __shared__ float bs[kTile][kTile + 1];
    const std::int64_t row = blockIdx.y * static_cast<std::int64_t>(kTile) + threadIdx.y; // m
    const std::int64_t col = blockIdx.x * static_cast<std::int64_t>(kTile) + threadIdx.x; // n
    for (std::int64_t bi = blockIdx.z; bi < g.batch; bi += gridDim.z) {
        std::int64_t ao = 0, bo = 0;
        addStridedOffsets(bi, g.batchRank, g.batchDims, g.aBatchStrides, g.bBatchStrides, ao, bo);
        const float* am = a + ao;
        const float* bm = b + bo;
        float acc = 0.0F;
        for (std::int64_t t = 0; t < g.k; t += kTile) {
            const std::int64_t ka = t + threadIdx.x, kb = t + threadIdx.y;
            as[threadIdx.y][threadIdx.x] = row < g.m && ka < g.k ? am[row * g.k + ka] : 0.0F;
            bs[threadIdx.y][threadIdx.x] = kb < g.k && col < g.n ? bm[kb * g.n + col] : 0.0F;
            __syncthreads();
            for (int j = 0; j < kTile; ++j)
                acc = fmaf(as[threadIdx.y][j], bs[j][threadIdx.x], acc);
            __syncthreads();
        }
        if (row < g.m && col < g.n)
            out[(bi * g.m + row) * g.n + col] = applyActivation(act, acc);
    }
}

// A reduction's start, one element's contribution, two partials combined, and the result (kinds
// as in Reduction).
__device__ float reduceStart(int kind)
{
    return kind == 2 ? -INFINITY : kind == 5 ? INFINITY : kind == 6 ? 1.0F : 0.0F;
}
__device__ float reduceTerm(int kind, float v)
{
    return kind == 7 ? fabsf(v) : (kind == 8 || kind == 9) ? v * v : v;
}
__device__ float reduceCombine(int kind, float a, float b)
{
    return kind == 2 ? fmaxf(a, b) : kind == 5 ? fminf(a, b) : kind == 6 ? a * b : a + b;
}
__device__ float reduceFinish(int kind, float acc, std::int64_t count)
{
    return kind == 0 ? acc / static_cast<float>(count) : kind == 8 ? sqrtf(acc) : acc;
}

// One thread per output element, walking its reduced elements (reductions here are small: the
// heads of imported models).
__global__ void reduceKernel(const float* in, float* out, Reduction r, Act act, std::int64_t total)
{
    TENSOR_GRID_STRIDE(i, total)
    {
        std::int64_t rest = i, base = 0;
        for (int d = r.keptRank - 1; d >= 0; --d) {
            const std::int64_t x = rest % r.keptDims[d];
            rest /= r.keptDims[d];
            base += x * r.keptStrides[d];
        }
        const bool arg = r.kind == 3 || r.kind == 4;
        float acc = arg ? 0.0F : reduceStart(r.kind), best = 0.0F;
        for (std::int64_t j = 0; j < r.reducedCount; ++j) {
            std::int64_t rj = j, off = base;
            for (int d = r.reducedRank - 1; d >= 0; --d) {
                const std::int64_t x = rj % r.reducedDims[d];
                rj /= r.reducedDims[d];
                off += x * r.reducedStrides[d];
            }
            const float v = in[off];
            if (arg) {
                const bool better = j == 0 || (r.kind == 3 ? v > best : v < best) || (r.selectLast && v == best);
                if (better) {
                    best = v;
                    acc = static_cast<float>(j);
                }
            } else {
                acc = reduceCombine(r.kind, acc, reduceTerm(r.kind, v));
            }
        }
        out[i] = applyActivation(act, arg ? acc : reduceFinish(r.kind, acc, r.reducedCount));
    }
}

__device__ std::int64_t reducedOffset(const Reduction& r, std::int64_t j)
{
    std::int64_t off = 0;
    for (int d = r.reducedRank - 1; d >= 0; --d) {
        off += (j % r.reducedDims[d]) * r.reducedStrides[d];
        j /= r.reducedDims[d];
    }
    return off;
}

// Few outputs over many elements (a mean over everything, a global pool): one block per output,
// its threads striding over the reduced elements, then a tree in shared memory.
__global__ void reduceBlockKernel(const float* in, float* out, Reduction r, Act act, std::int64_t total)
{
    __shared__ float partial[kThreads];
    for (std::int64_t i = blockIdx.x; i < total; i += gridDim.x) {
        std::int64_t rest = i, base = 0;
        for (int d = r.keptRank - 1; d >= 0; --d) {
            base += (rest % r.keptDims[d]) * r.keptStrides[d];
            rest /= r.keptDims[d];
        }
        float acc = reduceStart(r.kind);
        for (std::int64_t j = threadIdx.x; j < r.reducedCount; j += blockDim.x)
            acc = reduceCombine(r.kind, acc, reduceTerm(r.kind, in[base + reducedOffset(r, j)]));
        partial[threadIdx.x] = acc;
        __syncthreads();
        for (int half = kThreads / 2; half > 0; half /= 2) {
            if (threadIdx.x < half)
                partial[threadIdx.x] = reduceCombine(r.kind, partial[threadIdx.x], partial[threadIdx.x + half]);
            __syncthreads();
        }
        if (threadIdx.x == 0)
            out[i] = applyActivation(act, reduceFinish(r.kind, partial[0], r.reducedCount));
        __syncthreads(); // partial is reused for the next output
    }
}

__global__ void padGatherKernel(const float* in, float* out, PadGather p, Act act, std::int64_t total)
{
    TENSOR_GRID_STRIDE(i, total)
    {
        std::int64_t rest = i, src = 0;
        bool constant = false;
        for (int d = p.rank - 1; d >= 0; --d) {
            const std::int64_t x = rest % p.outDims[d];
            rest /= p.outDims[d];
            const std::int64_t at = p.indices[p.indexOffsets[d] + x];
            constant = constant || at < 0;
            src += at * p.inStrides[d];
        }
        out[i] = applyActivation(act, constant ? p.value : in[src]);
    }
}

__global__ void resizeGatherKernel(const float* in, float* out, ResizeGather r, Act act, std::int64_t total)
{
    TENSOR_GRID_STRIDE(i, total)
    {
        std::int64_t coord[kTensorMaxRank];
        std::int64_t rest = i;
        for (int d = r.rank - 1; d >= 0; --d) {
            coord[d] = rest % r.outDims[d];
            rest /= r.outDims[d];
        }
        // Odometer over one tap per axis.
        std::int64_t tap[kTensorMaxRank] = {};
        float acc = 0.0F;
        for (;;) {
            float w = 1.0F;
            std::int64_t src = 0;
            for (int d = 0; d < r.rank; ++d) {
                const std::int64_t at = r.tableOffsets[d] + coord[d] * r.taps[d] + tap[d];
                w *= r.weights[at];
                src += r.indices[at] * r.inStrides[d];
            }
            acc += w * in[src];
            int d = r.rank - 1;
            while (d >= 0 && ++tap[d] == r.taps[d])
                tap[d--] = 0;
            if (d < 0)
                break;
        }
        out[i] = applyActivation(act, acc);
    }
}

__global__ void convTransposeKernel(const float* in, const float* weights, const float* bias, float* out,
    ConvTransposeShape c, Act act, std::int64_t total)
{
    const std::int64_t inPerGroup = c.inChannels / c.groups, outPerGroup = c.outChannels / c.groups;
    TENSOR_GRID_STRIDE(i, total)
    {
        const std::int64_t ow = i % c.outW, oh = (i / c.outW) % c.outH, od = (i / (c.outW * c.outH)) % c.outD;
        const std::int64_t oc = (i / (c.outW * c.outH * c.outD)) % c.outChannels;
        const std::int64_t n = i / (c.outW * c.outH * c.outD * c.outChannels);
        const std::int64_t g = oc / outPerGroup, ocg = oc % outPerGroup;
        float acc = bias ? bias[oc] : 0.0F;
        for (std::int64_t kd = 0; kd < c.kernelD; ++kd) {
            const std::int64_t dNum = od + c.padFront - kd * c.dilationD;
            if (dNum < 0 || dNum % c.strideD != 0 || dNum / c.strideD >= c.inD)
                continue;
            const std::int64_t id = dNum / c.strideD;
            for (std::int64_t kh = 0; kh < c.kernelH; ++kh) {
                const std::int64_t hNum = oh + c.padTop - kh * c.dilationH;
                if (hNum < 0 || hNum % c.strideH != 0 || hNum / c.strideH >= c.inH)
                    continue;
                const std::int64_t ih = hNum / c.strideH;
                for (std::int64_t kw = 0; kw < c.kernelW; ++kw) {
                    const std::int64_t wNum = ow + c.padLeft - kw * c.dilationW;
                    if (wNum < 0 || wNum % c.strideW != 0 || wNum / c.strideW >= c.inW)
                        continue;
                    const std::int64_t iw = wNum / c.strideW;
                    for (std::int64_t icg = 0; icg < inPerGroup; ++icg) {
                        const std::int64_t ic = g * inPerGroup + icg;
                        acc += in[(((n * c.inChannels + ic) * c.inD + id) * c.inH + ih) * c.inW + iw]
                            * weights[(((ic * outPerGroup + ocg) * c.kernelD + kd) * c.kernelH + kh) * c.kernelW + kw];
                    }
                }
            }
        }
        out[i] = applyActivation(act, acc);
    }
}

__global__ void lrnKernel(const float* in, float* out, LrnShape s, Act act, std::int64_t total)
{
    TENSOR_GRID_STRIDE(i, total)
    {
        const std::int64_t c = (i / s.inner) % s.channels, base = i - c * s.inner;
        const std::int64_t first = c - (s.size - 1) / 2, last = c + s.size / 2;
        float sum = 0.0F;
        for (std::int64_t k = first < 0 ? 0 : first; k <= last && k < s.channels; ++k) {
            const float v = in[base + k * s.inner];
            sum += v * v;
        }
        out[i] = applyActivation(act, in[i] / powf(s.bias + s.alpha / static_cast<float>(s.size) * sum, s.beta));
    }
}

__global__ void conv3dKernel(
    const float* in, const float* weights, const float* bias, float* out, Conv3dShape c, Act act, std::int64_t total)
{
    const std::int64_t inPerGroup = c.inChannels / c.groups, outPerGroup = c.outChannels / c.groups;
    TENSOR_GRID_STRIDE(i, total)
    {
        std::int64_t rest = i;
        const std::int64_t ow = rest % c.out[2];
        rest /= c.out[2];
        const std::int64_t oh = rest % c.out[1];
        rest /= c.out[1];
        const std::int64_t od = rest % c.out[0];
        rest /= c.out[0];
        const std::int64_t oc = rest % c.outChannels, n = rest / c.outChannels;
        const std::int64_t g = oc / outPerGroup;
        float acc = bias ? bias[oc] : 0.0F;
        for (std::int64_t icg = 0; icg < inPerGroup; ++icg) {
            const std::int64_t ic = g * inPerGroup + icg;
            const float* src = in + (n * c.inChannels + ic) * c.in[0] * c.in[1] * c.in[2];
            const float* w = weights + (oc * inPerGroup + icg) * c.kernel[0] * c.kernel[1] * c.kernel[2];
            for (std::int64_t kd = 0; kd < c.kernel[0]; ++kd) {
                const std::int64_t id = od * c.stride[0] - c.padBegin[0] + kd * c.dilation[0];
                if (id < 0 || id >= c.in[0])
                    continue;
                for (std::int64_t kh = 0; kh < c.kernel[1]; ++kh) {
                    const std::int64_t ih = oh * c.stride[1] - c.padBegin[1] + kh * c.dilation[1];
                    if (ih < 0 || ih >= c.in[1])
                        continue;
                    for (std::int64_t kw = 0; kw < c.kernel[2]; ++kw) {
                        const std::int64_t iw = ow * c.stride[2] - c.padBegin[2] + kw * c.dilation[2];
                        if (iw >= 0 && iw < c.in[2])
                            acc += src[(id * c.in[1] + ih) * c.in[2] + iw]
                                * w[(kd * c.kernel[1] + kh) * c.kernel[2] + kw];
                    }
                }
            }
        }
        out[i] = applyActivation(act, acc);
    }
}

__global__ void scaleShiftKernel(const float* in, float* out, const float* scale, const float* shift,
    std::int64_t channels, std::int64_t inner, Act act, std::int64_t total)
{
    TENSOR_GRID_STRIDE(i, total)
    {
        const std::int64_t c = (i / inner) % channels;
        out[i] = applyActivation(act, fmaf(in[i], scale[c], shift[c]));
    }
}

} // namespace

std::int64_t elementCount(const std::int64_t* dims, int rank)
{
    std::int64_t n = 1;
    for (int d = 0; d < rank; ++d)
        n *= dims[d];
    return n;
}

cudaError_t stridedCopy(cudaStream_t stream, const float* src, float* dst, const StridedCopy& c, Act act)
{
    const std::int64_t total = elementCount(c.dims, c.rank);
    if (total > 0)
        stridedCopyKernel<<<blocksFor(total), kThreads, 0, stream>>>(src, dst, c, act, total);
    return cudaGetLastError();
}

cudaError_t elementwise(cudaStream_t stream, const Elementwise& e, float* out, Act act)
{
    const std::int64_t total = elementCount(e.dims, e.rank);
    if (e.count < 1 || e.count > kMaxOperands || (e.kind == kSelect && e.count != 3))
        return cudaErrorInvalidValue;
    if (total > 0)
        elementwiseKernel<<<blocksFor(total), kThreads, 0, stream>>>(e, out, act, total);
    return cudaGetLastError();
}

cudaError_t batchedMatMul(
    cudaStream_t stream, const float* a, const float* b, float* out, const BatchedMatMul& g, Act act)
{
    if (g.batch * g.m * g.n == 0)
        return cudaGetLastError();
    const dim3 block(kTile, kTile);
    const dim3 grid(static_cast<unsigned>((g.n + kTile - 1) / kTile), static_cast<unsigned>((g.m + kTile - 1) / kTile),
        static_cast<unsigned>(g.batch < 65535 ? g.batch : 65535));
    batchedMatMulKernel<<<grid, block, 0, stream>>>(a, b, out, g, act);
    return cudaGetLastError();
}

// Top-k by k selection passes over the row: pass j takes the best element that ranks after the
// one pass j - 1 took (value, then index, as ONNX orders ties), so nothing needs marking.
__global__ void topKKernel(const float* in, float* out, TopKShape t, Act act, std::int64_t rows)
{
    TENSOR_GRID_STRIDE(r, rows)
    {
        const std::int64_t o = r / t.inner, i = r % t.inner;
        const float* row = in + o * t.len * t.inner + i;
        float* dst = out + o * t.k * t.inner + i;
        float lastValue = 0.0F;
        std::int64_t lastIndex = -1;
        for (std::int64_t j = 0; j < t.k; ++j) {
            std::int64_t best = -1;
            float bestValue = 0.0F;
            for (std::int64_t x = 0; x < t.len; ++x) {
                const float v = row[x * t.inner];
                // Ranks after the previous pick: worse value, or equal value at a higher index.
                const bool after
                    = lastIndex < 0 || (t.largest ? v < lastValue : v > lastValue) || (v == lastValue && x > lastIndex);
                if (!after)
                    continue;
                if (best < 0 || (t.largest ? v > bestValue : v < bestValue)) {
                    best = x;
                    bestValue = v;
                }
            }
            lastIndex = best;
            lastValue = bestValue;
            dst[j * t.inner] = applyActivation(act, t.indices ? static_cast<float>(best) : bestValue);
        }
    }
}

cudaError_t topK(cudaStream_t stream, const float* in, float* out, const TopKShape& t, Act act)
{
    const std::int64_t rows = t.outer * t.inner;
    if (rows > 0)
        topKKernel<<<blocksFor(rows), kThreads, 0, stream>>>(in, out, t, act, rows);
    return cudaGetLastError();
}

cudaError_t reduce(cudaStream_t stream, const float* in, float* out, const Reduction& r, Act act)
{
    const std::int64_t total = elementCount(r.keptDims, r.keptRank);
    // Too few outputs to fill the GPU with one thread each, and long sums: a block per output.
    if (total > 0 && total < 8192 && r.reducedCount >= 512 && r.kind != 3 && r.kind != 4) { // not arg-extremes
        const unsigned blocks = static_cast<unsigned>(total < 65535 ? total : 65535);
        reduceBlockKernel<<<blocks, kThreads, 0, stream>>>(in, out, r, act, total);
    } else if (total > 0) {
        reduceKernel<<<blocksFor(total), kThreads, 0, stream>>>(in, out, r, act, total);
    }
    return cudaGetLastError();
}

cudaError_t padGather(cudaStream_t stream, const float* in, float* out, const PadGather& p, Act act)
{
    const std::int64_t total = elementCount(p.outDims, p.rank);
    if (total > 0)
        padGatherKernel<<<blocksFor(total), kThreads, 0, stream>>>(in, out, p, act, total);
    return cudaGetLastError();
}

cudaError_t resizeGather(cudaStream_t stream, const float* in, float* out, const ResizeGather& r, Act act)
{
    const std::int64_t total = elementCount(r.outDims, r.rank);
    if (total > 0)
        resizeGatherKernel<<<blocksFor(total), kThreads, 0, stream>>>(in, out, r, act, total);
    return cudaGetLastError();
}

cudaError_t lrn(cudaStream_t stream, const float* in, float* out, const LrnShape& s, Act act)
{
    const std::int64_t total = s.batch * s.channels * s.inner;
    if (total > 0)
        lrnKernel<<<blocksFor(total), kThreads, 0, stream>>>(in, out, s, act, total);
    return cudaGetLastError();
}

cudaError_t convTranspose(cudaStream_t stream, const float* in, const float* weights, const float* bias, float* out,
    const ConvTransposeShape& c, Act act)
{
    const std::int64_t total = c.batch * c.outChannels * c.outD * c.outH * c.outW;
    if (total > 0)
        convTransposeKernel<<<blocksFor(total), kThreads, 0, stream>>>(in, weights, bias, out, c, act, total);
    return cudaGetLastError();
}

cudaError_t conv3d(cudaStream_t stream, const float* in, const float* weights, const float* bias, float* out,
    const Conv3dShape& c, Act act)
{
    const std::int64_t total = c.batch * c.outChannels * c.out[0] * c.out[1] * c.out[2];
    if (total > 0)
        conv3dKernel<<<blocksFor(total), kThreads, 0, stream>>>(in, weights, bias, out, c, act, total);
    return cudaGetLastError();
}

cudaError_t scaleShift(cudaStream_t stream, const float* in, float* out, const float* scale, const float* shift,
    std::int64_t batch, std::int64_t channels, std::int64_t inner, Act act)
{
    const std::int64_t total = batch * channels * inner;
    if (total > 0)
        scaleShiftKernel<<<blocksFor(total), kThreads, 0, stream>>>(in, out, scale, shift, channels, inner, act, total);
    return cudaGetLastError();
}

} // namespace opsched::gpu::kernels
