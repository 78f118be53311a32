#include "exec/cuda/cudnn_api.h"

#include "util/error.h"
#include "util/shared_library.h"

namespace opsched::gpu {
namespace {

template <typename Fn> void resolve(const SharedLibrary& lib, Fn& slot, const char* name)
{
    slot = lib.symbol<Fn>(name);
    if (!slot)
        throw Error(std::string("cuDNN library lacks '") + name + "' (cuDNN 9 is required)");
}

CudnnApi load()
{
    static const SharedLibrary lib({ "libcudnn.so.9", "libcudnn.so" });
    if (!lib.loaded())
        throw Error("cuDNN 9 (libcudnn.so.9) was not found (" + lib.error()
            + "); install it or add its directory to LD_LIBRARY_PATH");
    CudnnApi api;
    resolve(lib, api.getVersion, "cudnnGetVersion");
    resolve(lib, api.getErrorString, "cudnnGetErrorString");
    resolve(lib, api.create, "cudnnCreate");
    resolve(lib, api.destroy, "cudnnDestroy");
    resolve(lib, api.setStream, "cudnnSetStream");
    resolve(lib, api.createTensorDescriptor, "cudnnCreateTensorDescriptor");
    resolve(lib, api.setTensor4dDescriptor, "cudnnSetTensor4dDescriptor");
    resolve(lib, api.destroyTensorDescriptor, "cudnnDestroyTensorDescriptor");
    resolve(lib, api.createFilterDescriptor, "cudnnCreateFilterDescriptor");
    resolve(lib, api.setFilter4dDescriptor, "cudnnSetFilter4dDescriptor");
    resolve(lib, api.destroyFilterDescriptor, "cudnnDestroyFilterDescriptor");
    resolve(lib, api.createConvolutionDescriptor, "cudnnCreateConvolutionDescriptor");
    resolve(lib, api.setConvolution2dDescriptor, "cudnnSetConvolution2dDescriptor");
    resolve(lib, api.setConvolutionGroupCount, "cudnnSetConvolutionGroupCount");
    resolve(lib, api.setConvolutionMathType, "cudnnSetConvolutionMathType");
    resolve(lib, api.destroyConvolutionDescriptor, "cudnnDestroyConvolutionDescriptor");
    resolve(lib, api.getConvolution2dForwardOutputDim, "cudnnGetConvolution2dForwardOutputDim");
    resolve(lib, api.createActivationDescriptor, "cudnnCreateActivationDescriptor");
    resolve(lib, api.setActivationDescriptor, "cudnnSetActivationDescriptor");
    resolve(lib, api.destroyActivationDescriptor, "cudnnDestroyActivationDescriptor");
    resolve(lib, api.findConvolutionForwardAlgorithmEx, "cudnnFindConvolutionForwardAlgorithmEx");
    resolve(lib, api.getConvolutionForwardAlgorithm, "cudnnGetConvolutionForwardAlgorithm_v7");
    resolve(lib, api.convolutionForward, "cudnnConvolutionForward");
    resolve(lib, api.convolutionBiasActivationForward, "cudnnConvolutionBiasActivationForward");
    if (api.getVersion() < 90000)
        throw Error("cuDNN " + std::to_string(api.getVersion()) + " is too old; opsched needs cuDNN 9");
    return api;
}

} // namespace

const CudnnApi& cudnnApi()
{
    static const CudnnApi api = load(); // a throwing initialiser is retried on the next call
    return api;
}

void checkCudnn(cudnnStatus_t status, const std::string& what)
{
    if (status == CUDNN_STATUS_SUCCESS)
        return;
    const char* message = cudnnApi().getErrorString ? cudnnApi().getErrorString(status) : "unknown";
    throw Error(what + ": cuDNN error " + std::to_string(static_cast<int>(status)) + " (" + message + ")");
}

} // namespace opsched::gpu
