#include "exec/cuda/cuda_runtime_info.h"

#include "util/shared_library.h"

#include <cuda_runtime.h>

#include <vector>

namespace opsched {
namespace {

std::string describe(cudaError_t err)
{
    return std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
}

__global__ void affineKernel(float* out, int n, float scale, float offset)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = scale * static_cast<float>(i) + offset;
}

} // namespace

CudaRuntimeStatus queryCudaRuntime()
{
    CudaRuntimeStatus status;
    status.built = true;
    cudaRuntimeGetVersion(&status.runtimeVersion);
    cudaDriverGetVersion(&status.driverVersion);
    // cuDNN is opened at run time: a machine without it still runs everything else.
    static const SharedLibrary cudnn({ "libcudnn.so.9", "libcudnn.so" });
    if (auto getVersion = cudnn.symbol<std::size_t (*)()>("cudnnGetVersion"))
        status.cudnnVersion = static_cast<std::int64_t>(getVersion());
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        status.reason = status.driverVersion == 0 ? "no NVIDIA driver (" + describe(err) + ")" : describe(err);
        cudaGetLastError(); // clear the sticky error so later calls start clean
        return status;
    }
    if (count == 0) {
        status.reason = "no CUDA device";
        return status;
    }
    for (int i = 0; i < count; ++i) {
        cudaDeviceProp prop {};
        if (cudaGetDeviceProperties(&prop, i) != cudaSuccess)
            continue;
        CudaDeviceInfo info;
        info.index = i;
        info.name = prop.name;
        info.computeMajor = prop.major;
        info.computeMinor = prop.minor;
        info.multiprocessors = prop.multiProcessorCount;
        info.maxThreadsPerMultiprocessor = prop.maxThreadsPerMultiProcessor;
        info.totalMemoryBytes = static_cast<std::int64_t>(prop.totalGlobalMem);
        info.l2CacheBytes = prop.l2CacheSize;
        status.devices.push_back(std::move(info));
    }
    status.available = !status.devices.empty();
    if (!status.available)
        status.reason = "CUDA devices found but none could be queried";
    return status;
}

std::string cudaSelfTest(int device)
{
    constexpr int n = 1 << 16;
    if (auto err = cudaSetDevice(device); err != cudaSuccess)
        return "cudaSetDevice(" + std::to_string(device) + "): " + describe(err);
    float* buffer = nullptr;
    if (auto err = cudaMalloc(&buffer, n * sizeof(float)); err != cudaSuccess)
        return "cudaMalloc: " + describe(err);
    affineKernel<<<(n + 255) / 256, 256>>>(buffer, n, 0.5F, 3.0F);
    std::vector<float> host(n);
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess)
        err = cudaMemcpy(host.data(), buffer, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(buffer);
    if (err != cudaSuccess)
        return "kernel launch: " + describe(err);
    for (int i = 0; i < n; ++i)
        if (host[i] != 0.5F * static_cast<float>(i) + 3.0F)
            return "kernel result mismatch at element " + std::to_string(i);
    return {};
}

} // namespace opsched
