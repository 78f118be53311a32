// The cuBLAS calls the CUDA executor makes, resolved from libcublas at run time (dlopen), as cuDNN's
// are (cudnn_api.h): opsched starts without cuBLAS and then runs GEMMs on its own kernels. Each
// pointer has the type of cublas_v2.h's declaration, so a changed signature fails to compile.
// Internal to the CUDA backend.
#pragma once

#include <cublas_v2.h>

#include <string>

namespace opsched::gpu {

// cublasGemmStridedBatchedEx is overloaded in C++ (a legacy cudaDataType compute type), so its
// type is spelled out; cublas_api.cpp checks it against the header's declaration.
using CublasGemmStridedBatchedEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
    int, const void*, const void*, cudaDataType, int, long long int, const void*, cudaDataType, int, long long int,
    const void*, void*, cudaDataType, int, long long int, int, cublasComputeType_t, cublasGemmAlgo_t);

struct CublasApi {
    // A handle, set up for a stream, and the one call the executor makes on it.
    decltype(&cublasCreate) create = nullptr;
    decltype(&cublasDestroy) destroy = nullptr;
    decltype(&cublasSetStream) setStream = nullptr;
    decltype(&cublasSetWorkspace) setWorkspace = nullptr;
    CublasGemmStridedBatchedEx gemmStridedBatchedEx = nullptr;
    // The version, and the names errors give.
    decltype(&cublasGetVersion) getVersion = nullptr;
    decltype(&cublasGetStatusString) getStatusString = nullptr;
};

// The table, loaded on first use, or nullptr when cuBLAS cannot be opened or lacks a symbol;
// then cublasUnavailableReason() says why.
const CublasApi* cublasApi();
const std::string& cublasUnavailableReason();

// Throws Error("<what>: cuBLAS error N (<name>)") unless status is CUBLAS_STATUS_SUCCESS.
void checkCublas(cublasStatus_t status, const std::string& what);

} // namespace opsched::gpu
