#include "exec/cuda/cublas_gemm.h"

#include "util/error.h"

namespace opsched::gpu {

CublasGemms::CublasGemms(bool tf32)
    : api_(cublasApi())
    , tf32_(tf32)
{
}

CublasGemms::~CublasGemms()
{
    for (auto h : handles_)
        if (h)
            api_->destroy(h);
}

std::string CublasGemms::note() const
{
    if (available())
        return {};
    return cublasUnavailableReason() + "; Gemm and MatMul run on opsched's own FP32 kernels instead";
}

void CublasGemms::ensureHandle(std::size_t stream)
{
    if (!api_)
        return;
    if (handles_.size() <= stream)
        handles_.resize(stream + 1, nullptr);
    if (!handles_[stream])
        checkCublas(api_->create(&handles_[stream]), "cublasCreate for stream " + std::to_string(stream));
}

void CublasGemms::run(const ColumnMajorGemm& c, const float* a, const float* b, float* out, cudaStream_t stream,
    std::size_t index, void* workspace, std::int64_t workspaceBytes, const std::string& what) const
{
    if (!api_)
        throw Error(what + ": cuBLAS is not available");
    if (index >= handles_.size() || !handles_[index])
        throw Error(what + ": no cuBLAS handle was made for stream " + std::to_string(index) + " before capture");
    cublasHandle_t h = handles_[index];
    // Setting the stream resets the workspace to cuBLAS's own pool, so the workspace follows; both
    // are host-side and cheap, and make the handle right whatever ran on it before.
    checkCublas(api_->setStream(h, stream), what + ": cublasSetStream");
    checkCublas(
        api_->setWorkspace(h, workspace, static_cast<std::size_t>(workspaceBytes)), what + ": cublasSetWorkspace");
    const float one = 1.0F, zero = 0.0F; // host scalars: read when the call is issued (or captured)
    const cublasComputeType_t compute = tf32_ ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    auto op = [](bool t) { return t ? CUBLAS_OP_T : CUBLAS_OP_N; };
    auto i32 = [](std::int64_t v) { return static_cast<int>(v); }; // fitsCublasInt() checked by the caller
    checkCublas(api_->gemmStridedBatchedEx(h, op(c.transposeFirst), op(c.transposeSecond), i32(c.m), i32(c.n), i32(c.k),
                    &one, b, CUDA_R_32F, i32(c.ldFirst), c.strideFirst, a, CUDA_R_32F, i32(c.ldSecond), c.strideSecond,
                    &zero, out, CUDA_R_32F, i32(c.ldc), c.strideC, i32(c.batch), compute, CUBLAS_GEMM_DEFAULT),
        what + ": cublasGemmStridedBatchedEx");
}

} // namespace opsched::gpu
