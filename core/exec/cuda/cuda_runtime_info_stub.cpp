// Used when opsched is built without the CUDA toolkit.
#include "exec/cuda/cuda_runtime_info.h"

namespace opsched {

CudaRuntimeStatus queryCudaRuntime()
{
    CudaRuntimeStatus status;
    status.reason = "this build of opsched has no CUDA support (CUDA toolkit not found at build time)";
    return status;
}

std::string cudaSelfTest(int)
{
    return "this build of opsched has no CUDA support";
}

} // namespace opsched
