// The cuDNN calls the CUDA executor makes, resolved from libcudnn at run time (dlopen), so opsched
// starts and runs everything else on machines without cuDNN. Each pointer has the exact type of
// cudnn.h's declaration, so a changed signature fails to compile instead of failing at run time.
// Internal to the CUDA backend; only built with the CUDA toolkit and cuDNN headers.
#pragma once

#include <cudnn.h>

#include <string>

namespace opsched::gpu {

struct CudnnApi {
    decltype(&cudnnGetVersion) getVersion = nullptr;
    decltype(&cudnnGetErrorString) getErrorString = nullptr;
    decltype(&cudnnCreate) create = nullptr;
    decltype(&cudnnDestroy) destroy = nullptr;
    decltype(&cudnnSetStream) setStream = nullptr;
    decltype(&cudnnCreateTensorDescriptor) createTensorDescriptor = nullptr;
    decltype(&cudnnSetTensor4dDescriptor) setTensor4dDescriptor = nullptr;
    decltype(&cudnnDestroyTensorDescriptor) destroyTensorDescriptor = nullptr;
    decltype(&cudnnCreateFilterDescriptor) createFilterDescriptor = nullptr;
    decltype(&cudnnSetFilter4dDescriptor) setFilter4dDescriptor = nullptr;
    decltype(&cudnnDestroyFilterDescriptor) destroyFilterDescriptor = nullptr;
    decltype(&cudnnCreateConvolutionDescriptor) createConvolutionDescriptor = nullptr;
    decltype(&cudnnSetConvolution2dDescriptor) setConvolution2dDescriptor = nullptr;
    decltype(&cudnnSetConvolutionGroupCount) setConvolutionGroupCount = nullptr;
    decltype(&cudnnSetConvolutionMathType) setConvolutionMathType = nullptr;
    decltype(&cudnnDestroyConvolutionDescriptor) destroyConvolutionDescriptor = nullptr;
    decltype(&cudnnGetConvolution2dForwardOutputDim) getConvolution2dForwardOutputDim = nullptr;
    decltype(&cudnnCreateActivationDescriptor) createActivationDescriptor = nullptr;
    decltype(&cudnnSetActivationDescriptor) setActivationDescriptor = nullptr;
    decltype(&cudnnDestroyActivationDescriptor) destroyActivationDescriptor = nullptr;
    decltype(&cudnnFindConvolutionForwardAlgorithmEx) findConvolutionForwardAlgorithmEx = nullptr;
    decltype(&cudnnGetConvolutionForwardAlgorithm_v7) getConvolutionForwardAlgorithm = nullptr;
    decltype(&cudnnConvolutionForward) convolutionForward = nullptr;
    decltype(&cudnnConvolutionBiasActivationForward) convolutionBiasActivationForward = nullptr;
};

// The table, loaded on first use. Throws Error naming the library or the missing symbol.
const CudnnApi& cudnnApi();

// Throws Error("<what>: cuDNN <status name>: <message>") unless status is CUDNN_STATUS_SUCCESS.
void checkCudnn(cudnnStatus_t status, const std::string& what);

} // namespace opsched::gpu
