// CUDA error handling and device memory for the CUDA backend: every runtime call is checked and a
// failure becomes an Error that says what was being done (the op's name) and what CUDA said.
#pragma once

#include "util/error.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <utility>

namespace opsched::gpu {

inline void checkCuda(cudaError_t err, const std::string& what)
{
    if (err == cudaSuccess)
        return;
    cudaGetLastError(); // clear a non-sticky error so the next call starts clean
    std::string hint;
    if (err == cudaErrorMemoryAllocation)
        hint = " (out of GPU memory: try a smaller batch)";
    else if (err == cudaErrorInsufficientDriver)
        hint = " (the NVIDIA driver is older than this build's CUDA runtime needs)";
    throw Error(what + ": " + cudaGetErrorName(err) + ": " + cudaGetErrorString(err) + hint);
}

// Owned device memory (cudaFree on destruction).
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    DeviceBuffer(std::int64_t bytes, const std::string& what)
    {
        if (bytes > 0)
            checkCuda(cudaMalloc(&data_, static_cast<std::size_t>(bytes)),
                what + ": cudaMalloc of " + std::to_string(bytes) + " bytes");
        bytes_ = bytes;
    }
    ~DeviceBuffer()
    {
        if (data_)
            cudaFree(data_);
    }
    DeviceBuffer(DeviceBuffer&& o) noexcept
        : data_(std::exchange(o.data_, nullptr))
        , bytes_(std::exchange(o.bytes_, 0))
    {
    }
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept
    {
        std::swap(data_, o.data_);
        std::swap(bytes_, o.bytes_);
        return *this;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    float* floats() const { return static_cast<float*>(data_); }
    std::byte* bytes() const { return static_cast<std::byte*>(data_); }
    void* data() const { return data_; }
    std::int64_t size() const { return bytes_; }

private:
    void* data_ = nullptr;
    std::int64_t bytes_ = 0;
};

// Uploads host floats into a new device buffer (before any capture: a synchronous copy).
inline DeviceBuffer upload(const float* values, std::size_t count, const std::string& what)
{
    DeviceBuffer buf(static_cast<std::int64_t>(count * sizeof(float)), what);
    if (count > 0)
        checkCuda(cudaMemcpy(buf.data(), values, count * sizeof(float), cudaMemcpyHostToDevice), what + ": upload");
    return buf;
}

} // namespace opsched::gpu
