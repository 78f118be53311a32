// Used until a build has the CUDA executor: every request for a GPU timer is refused clearly.
#include "exec/cuda/cuda_stage_timer.h"

#include "exec/cuda/cuda_runtime_info.h"
#include "util/error.h"

namespace opsched {

std::unique_ptr<StageTimer> makeCudaStageTimer(const CudaTimerOptions& options)
{
    const CudaRuntimeStatus status = queryCudaRuntime();
    std::string why = status.available ? "this build of opsched has no CUDA executor" : status.reason;
    throw Error("cuda:" + std::to_string(options.device) + ": " + why
        + "; use --device sim:NAME (see `opsched-cli devices`) to estimate on a simulated GPU");
}

} // namespace opsched
