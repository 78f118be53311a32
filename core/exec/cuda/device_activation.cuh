// The fused activations on the device, shared by the CUDA kernel files (CUDA C++17 only).
#pragma once

#include "exec/cuda/cuda_kernels.h"

namespace opsched::gpu::kernels {

// Act's kinds (ActivationKind's values, graph/layer.h).
__device__ inline float applyActivation(Act a, float x)
{
    switch (a.kind) {
    case 1:
        return fmaxf(x, 0.0F);
    case 2:
        return fminf(fmaxf(x, a.alpha), a.beta);
    case 3:
        return 1.0F / (1.0F + expf(-x));
    case 4:
        return fminf(fmaxf(a.alpha * x + a.beta, 0.0F), 1.0F);
    case 5:
        return x * fminf(fmaxf(x + 3.0F, 0.0F), 6.0F) / 6.0F;
    case 6:
        return tanhf(x);
    default:
        return x;
    }
}

} // namespace opsched::gpu::kernels
