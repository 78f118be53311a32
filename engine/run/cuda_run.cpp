#include "engine/run/cuda_run.h"

#include "engine/run/run_check.h"
#include "exec/cpu/tensor_layout.h"
#include "exec/cuda/cuda_executor.h"
#include "exec/cuda/cuda_runtime_info.h"
#include "util/error.h"

namespace opsched::engine {

CudaRunResult runOnCuda(const Graph& graph, const Plan& plan, const std::vector<std::vector<float>>& inputs, int repeat,
    bool tf32, const gpu::ConvVariant& conv, CudaRunChecks checks)
{
    const CudaRuntimeStatus status = queryCudaRuntime();
    if (!status.available)
        throw Error("--backend cuda: no CUDA device (" + status.reason + "); use --backend cpu");
    if (!gpu::cudaBackendAvailable())
        throw Error("--backend cuda: this build of opsched has no CUDA backend (cuDNN headers were not found when it "
                    "was built); use --backend cpu");
    gpu::CudaOptions options;
    options.tf32 = tf32;
    options.conv = conv;
    options.skipDependencyWaits = checks.skipWaits;
    gpu::CudaExecutor executor(graph, plan, options);
    CudaRunResult r;
    r.notes = executor.notes();
    if (checks.check) { // warm-up on other data, then a poisoned arena: stale values cannot pass the check
        executor.run(warmUpInputs(inputs));
        executor.poison();
    }
    r.outputs = executor.run(inputs); // checked; without a check the warm-up
    for (double s : executor.timeReplays(0, repeat))
        r.latenciesMs.push_back(s * 1e3);
    r.arenaBytes = executor.arenaBytes();
    r.activationBytes = cpu::TensorLayout(graph, plan).activationBytes();
    r.weightBytes = executor.weightBytes();
    r.device = executor.deviceName();
    return r;
}

} // namespace opsched::engine
