// The fused activations on the device, shared by the CUDA kernel files (CUDA C++17 only).
#pragma once

#include "exec/cuda/cuda_kernels.h"
#include "exec/cuda/tensor_kernel_params.h"

namespace opsched::gpu::kernels {

// Act's kinds are ActivationCode values (ActivationKind's, graph/layer.h). Float maths with
// ONNX's meaning: Log of a negative is NaN, Reciprocal of 0 is inf, as on the host.
__device__ inline float applyActivation(Act a, float x)
{
    switch (a.kind) {
    case kActRelu:
        return fmaxf(x, 0.0F);
    case kActClip:
        return fminf(fmaxf(x, a.alpha), a.beta);
    case kActSigmoid:
        return 1.0F / (1.0F + expf(-x));
    case kActHardSigmoid:
        return fminf(fmaxf(a.alpha * x + a.beta, 0.0F), 1.0F);
    case kActHardSwish:
        return x * fminf(fmaxf(x + 3.0F, 0.0F), 6.0F) / 6.0F;
    case kActTanh:
        return tanhf(x);
    case kActGelu:
        return 0.5F * x * (1.0F + erff(x * 0.70710678118654752F)); // x * Phi(x)
    case kActGeluTanh: {
        const float inner = 0.79788456080286536F * (x + 0.044715F * x * x * x); // sqrt(2/pi) (...)
        return 0.5F * x * (1.0F + tanhf(inner));
    }
    case kActErf:
        return erff(x);
    case kActSqrt:
        return sqrtf(x);
    case kActExp:
        return expf(x);
    case kActLog:
        return logf(x);
    case kActAbs:
        return fabsf(x);
    case kActNeg:
        return -x;
    case kActReciprocal:
        return 1.0F / x;
    case kActPow:
        return powf(x, a.alpha);
    case kActNot:
        return x == 0.0F ? 1.0F : 0.0F;
    case kActNonZero:
        return x != 0.0F ? 1.0F : 0.0F;
    case kActTruncate:
        return truncf(x);
    case kActLeakyRelu:
        return x < 0.0F ? a.alpha * x : x;
    case kActElu:
        return x < 0.0F ? a.alpha * expm1f(x) : x;
    case kActSelu:
        return a.beta * (x < 0.0F ? a.alpha * expm1f(x) : x);
    case kActCelu:
        return x < 0.0F ? a.alpha * expm1f(x / a.alpha) : x;
    case kActSoftplus:
        return x > 20.0F ? x : log1pf(expf(x));
    case kActSoftsign:
        return x / (1.0F + fabsf(x));
    case kActMish:
        return x * tanhf(x > 20.0F ? x : log1pf(expf(x)));
    case kActThresholdedRelu:
        return x > a.alpha ? x : 0.0F;
    case kActFloor:
        return floorf(x);
    case kActCeil:
        return ceilf(x);
    case kActRound:
        return rintf(x); // the default rounding mode: halves to even
    case kActSign:
        return x > 0.0F ? 1.0F : x < 0.0F ? -1.0F : 0.0F;
    case kActSin:
        return sinf(x);
    case kActCos:
        return cosf(x);
    default:
        return x;
    }
}

} // namespace opsched::gpu::kernels
