// What the local CUDA runtime offers. Having no GPU is an ordinary answer, not an error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace opsched {

struct CudaDeviceInfo {
    int index = 0;
    std::string name;
    int computeMajor = 0;
    int computeMinor = 0;
    int multiprocessors = 0;
    int maxThreadsPerMultiprocessor = 0;
    std::int64_t totalMemoryBytes = 0;
    std::int64_t l2CacheBytes = 0;
};

struct CudaRuntimeStatus {
    bool built = false; // this binary was compiled with CUDA
    bool available = false; // at least one usable device
    std::string reason; // why not, when not
    int runtimeVersion = 0; // e.g. 13000
    int driverVersion = 0; // 0 when no driver is installed
    std::int64_t cudnnVersion = 0; // 0 when built without cuDNN
    std::vector<CudaDeviceInfo> devices;
};

CudaRuntimeStatus queryCudaRuntime();

// Runs a small kernel on `device` and checks its result. Returns an empty string on success,
// otherwise what went wrong.
std::string cudaSelfTest(int device);

} // namespace opsched
