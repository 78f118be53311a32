// GEMMs on cuBLAS for one executor: a handle per stream that runs GEMMs (as cuDNN's handles are per
// stream, so concurrent GEMMs never share a handle's internals), each bound to its stream and to a
// workspace the caller owns, set explicitly so no call allocates during CUDA graph capture. FP32
// with TF32 tensor cores when allowed. When cuBLAS cannot be opened, available() is false and the
// executor runs its own kernels instead. Internal to the CUDA backend.
#pragma once

#include "exec/cuda/cublas_api.h"
#include "exec/cuda/gemm_mapping.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

namespace opsched::gpu {

class CublasGemms {
public:
    // Per-stream workspace cuBLAS gets (NVIDIA's recommendation for Hopper; less suffices elsewhere).
    static constexpr std::int64_t kWorkspaceBytes = std::int64_t { 32 } << 20;

    explicit CublasGemms(bool tf32);
    ~CublasGemms();
    CublasGemms(const CublasGemms&) = delete;
    CublasGemms& operator=(const CublasGemms&) = delete;

    bool available() const { return api_ != nullptr; }
    // Empty when available; otherwise why not, and what runs instead (said once per executor).
    std::string note() const;

    void ensureHandle(std::size_t stream); // before capture
    // out = row-major GEMM described by `c` (toColumnMajor), a and b as in RowMajorGemm, on
    // `stream` (the plan's stream index `index`) with `workspace` of kWorkspaceBytes or more.
    void run(const ColumnMajorGemm& c, const float* a, const float* b, float* out, cudaStream_t stream,
        std::size_t index, void* workspace, std::int64_t workspaceBytes, const std::string& what) const;

private:
    const CublasApi* api_;
    bool tf32_;
    std::vector<cublasHandle_t> handles_;
};

} // namespace opsched::gpu
