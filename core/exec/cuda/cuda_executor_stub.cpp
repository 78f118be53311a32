// Used when opsched is built without the CUDA toolkit or cuDNN headers: the GPU backend refuses
// clearly instead of being absent.
#include "exec/cuda/cuda_executor.h"

#include "util/error.h"

namespace opsched::gpu {

bool cudaBackendAvailable()
{
    return false;
}

struct CudaExecutor::Impl { };

CudaExecutor::CudaExecutor(const Graph&, const Plan&, CudaOptions)
{
    throw Error("this build of opsched has no CUDA backend (CUDA toolkit or cuDNN headers not found at build time)");
}

CudaExecutor::~CudaExecutor() = default;

void CudaExecutor::poison() { }

std::vector<std::vector<float>> CudaExecutor::run(const std::vector<std::vector<float>>&)
{
    return {};
}

std::vector<double> CudaExecutor::timeReplays(int, int)
{
    return {};
}

void CudaExecutor::runEagerly(const LaunchWrapper&) { }

std::int64_t CudaExecutor::arenaBytes() const
{
    return 0;
}
std::int64_t CudaExecutor::weightBytes() const
{
    return 0;
}
std::string CudaExecutor::deviceName() const
{
    return {};
}
std::string CudaExecutor::notes() const
{
    return {};
}

} // namespace opsched::gpu
