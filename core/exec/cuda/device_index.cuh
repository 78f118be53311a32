// Index arithmetic on the device, shared by the CUDA kernel files (CUDA C++17 only).
#pragma once

#include <cstdint>

namespace opsched::gpu::kernels {

// Row-major element `i` of the index space `dims` (`rank` of them), located in two tensors walked
// with their own strides: `a` and `b` hold each tensor's starting offset and gain the element's.
__device__ inline void addStridedOffsets(std::int64_t i, int rank, const std::int64_t* dims,
    const std::int64_t* aStrides, const std::int64_t* bStrides, std::int64_t& a, std::int64_t& b)
{
    for (int d = rank - 1; d >= 0; --d) {
        const std::int64_t x = i % dims[d];
        i /= dims[d];
        a += x * aStrides[d];
        b += x * bStrides[d];
    }
}

} // namespace opsched::gpu::kernels
