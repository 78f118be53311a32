#include "exec/cuda/device_activation.cuh"
#include "exec/cuda/recurrent_kernels.h"

namespace opsched::gpu::kernels {
namespace {

constexpr int kThreads = 128;

__device__ float clipped(float x, float clip)
{
    return clip > 0.0F ? fminf(fmaxf(x, -clip), clip) : x;
}

// Gate `gate`'s pre-activation of unit j: the projection plus sum_k state[k] R^T[k, gate H + j].
__device__ float gateSum(
    const RecurrentStep& p, const float* state, std::int64_t b, int gate, std::int64_t j, std::int64_t stateStride)
{
    const std::int64_t gh = (p.cell == kCellRnn ? 1 : p.cell == kCellGru ? 3 : 4) * p.hidden;
    float acc = p.projection[b * p.projectionStride + gate * p.hidden + j];
    if (state)
        for (std::int64_t k = 0; k < p.hidden; ++k)
            acc += state[b * stateStride + k] * p.recurrence[k * gh + gate * p.hidden + j];
    return acc;
}

__global__ void recurrentStepKernel(RecurrentStep p)
{
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= p.batch * p.hidden)
        return;
    const std::int64_t b = i / p.hidden, j = i % p.hidden;
    const float before = p.prevH ? p.prevH[b * p.prevStride + j] : 0.0F;
    float* y = p.out + b * p.outStride + j;
    if (p.cell == kCellRnn) {
        *y = applyActivation(p.f, clipped(gateSum(p, p.prevH, b, 0, j, p.prevStride), p.clip));
        return;
    }
    if (p.cell == kCellLstm) { // ONNX's gate order: i, o, f, c
        const std::int64_t h = p.hidden;
        const float c0 = p.firstStep ? (p.initialC ? p.initialC[i] : 0.0F) : p.cellState[i];
        const float* peep = p.peepholes;
        const float in = applyActivation(
            p.f, clipped(gateSum(p, p.prevH, b, 0, j, p.prevStride) + (peep ? peep[j] * c0 : 0.0F), p.clip));
        const float forget = p.inputForget
            ? 1.0F - in
            : applyActivation(p.f,
                clipped(gateSum(p, p.prevH, b, 2, j, p.prevStride) + (peep ? peep[2 * h + j] * c0 : 0.0F), p.clip));
        const float cand = applyActivation(p.g, clipped(gateSum(p, p.prevH, b, 3, j, p.prevStride), p.clip));
        const float c = forget * c0 + in * cand;
        const float out = applyActivation(
            p.f, clipped(gateSum(p, p.prevH, b, 1, j, p.prevStride) + (peep ? peep[h + j] * c : 0.0F), p.clip));
        p.cellState[i] = c;
        const float hNew = out * applyActivation(p.h, c);
        if (p.hiddenOut) { // the output holds c
            p.hiddenOut[i] = hNew;
            *y = c;
        } else {
            *y = hNew;
        }
        return;
    }
    // GRU, gates z, r, h.
    if (p.linearBeforeReset) {
        const float z = applyActivation(p.f, clipped(gateSum(p, p.prevH, b, 0, j, p.prevStride), p.clip));
        const float r = applyActivation(p.f, clipped(gateSum(p, p.prevH, b, 1, j, p.prevStride), p.clip));
        const std::int64_t gh = 3 * p.hidden;
        float hh = p.hiddenBias ? p.hiddenBias[j] : 0.0F;
        if (p.prevH)
            for (std::int64_t k = 0; k < p.hidden; ++k)
                hh += p.prevH[b * p.prevStride + k] * p.recurrence[k * gh + 2 * p.hidden + j];
        const float x = p.projection[b * p.projectionStride + 2 * p.hidden + j];
        const float n = applyActivation(p.g, clipped(x + r * hh, p.clip));
        *y = n + z * (before - n);
        return;
    }
    if (p.phase == 0) {
        const float z = applyActivation(p.f, clipped(gateSum(p, p.prevH, b, 0, j, p.prevStride), p.clip));
        const float r = applyActivation(p.f, clipped(gateSum(p, p.prevH, b, 1, j, p.prevStride), p.clip));
        p.update[i] = z;
        p.resetState[i] = r * before;
        return;
    }
    const float* reset = p.prevH ? p.resetState : nullptr;
    const float n = applyActivation(p.g, clipped(gateSum(p, reset, b, 2, j, p.hidden), p.clip));
    *y = n + p.update[i] * (before - n);
}

} // namespace

cudaError_t recurrentStep(cudaStream_t stream, const RecurrentStep& p)
{
    const std::int64_t n = p.batch * p.hidden;
    if (n <= 0)
        return cudaSuccess;
    const auto blocks = static_cast<unsigned>((n + kThreads - 1) / kThreads);
    recurrentStepKernel<<<blocks, kThreads, 0, stream>>>(p);
    return cudaGetLastError();
}

} // namespace opsched::gpu::kernels
