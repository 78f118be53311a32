#include "session/cuda_backend.h"

#include "cupti/cupti_collector.h"
#include "cupti/cupti_info.h"
#include "exec/cuda/cuda_executor.h"
#include "exec/cuda/cuda_runtime_info.h"
#include "session/kernel_attribution.h"
#include "util/error.h"

#include <cmath>

namespace opsched::profiler {

std::string cudaProfilingUnavailable(int device)
{
    if (!gpu::cudaBackendAvailable())
        return "this build of opsched has no CUDA backend (CUDA toolkit or cuDNN headers not found at build time)";
    if (!cupti::built())
        return "this build of opsched has no CUPTI (not found in the CUDA toolkit at build time)";
    const CuptiInfo info = queryCupti();
    if (!info.reason.empty())
        return info.reason;
    const CudaRuntimeStatus cuda = queryCudaRuntime();
    if (!cuda.available)
        return cuda.reason.empty() ? std::string("no CUDA device") : cuda.reason;
    for (const auto& d : cuda.devices)
        if (d.index == device)
            return {};
    return "there is no GPU " + std::to_string(device) + " (this machine has " + std::to_string(cuda.devices.size())
        + ")";
}

CudaBackend::CudaBackend(const CudaBackendOptions& options, StageCostModel& cost)
    : options_(options)
    , cost_(cost)
{
    const std::string why = cudaProfilingUnavailable(options.device);
    if (!why.empty())
        throw Error("--device cuda:" + std::to_string(options.device) + ": " + why
            + "; profile on a simulated GPU instead, e.g. --device sim:h100");
    const CudaRuntimeStatus cuda = queryCudaRuntime();
    for (const auto& d : cuda.devices) {
        if (d.index != options.device)
            continue;
        // The GPU model, not its index: runs on two identical GPUs are the same device.
        device_.key = "cuda:" + d.name;
        device_.name = d.name;
        device_.simulated = false;
        device_.computeMajor = d.computeMajor;
        device_.computeMinor = d.computeMinor;
        device_.smCount = d.multiprocessors;
        if (d.maxThreadsPerMultiprocessor > 0)
            device_.maxWarpsPerSm = d.maxThreadsPerMultiprocessor / 32;
        device_.l2CacheSize = d.l2CacheBytes;
        device_.totalMemory = d.totalMemoryBytes;
        device_.driverVersion = cuda.driverVersion;
        device_.runtimeVersion = cuda.runtimeVersion;
    }
}

void CudaBackend::run(
    store::RunRecord& run, const Graph& graph, const SchedulerOutput& out, const ProfileSettings& settings)
{
    gpu::CudaOptions cudaOptions;
    cudaOptions.device = options_.device;
    gpu::CudaExecutor executor(graph, out.plan, cudaOptions);

    // The plan as it ships: one CUDA graph, replayed (inputs are whatever the buffers hold).
    run.simulated = false;
    run.cudaGraph = true;
    run.latenciesNs.clear();
    for (double s : executor.timeReplays(options_.warmup, std::max(1, settings.repeats)))
        run.latenciesNs.push_back(s * 1e9);

    // One profiled run, eager so each launch's kernels carry its external id.
    const std::size_t launches = out.plan.launches.size();
    cupti::PmSamplingConfig pm;
    pm.deviceIndex = options_.device;
    const cupti::Collection collection = cupti::collect(
        [&] {
            executor.runEagerly([](std::size_t launch, const std::function<void()>& issue) {
                const cupti::ExternalIdScope id(externalIdOfLaunch(launch));
                issue();
            });
        },
        settings.warps, pm);
    run.kernels.clear();
    run.warps.clear();
    run.hostCalls.clear();
    cupti::fillRun(
        run, collection, [&](const cupti::CollectedKernel& k) { return launchOfExternalId(k.externalId, launches); },
        [&](std::optional<std::uint64_t> external) { return launchOfExternalId(external, launches); });
    const std::size_t unattributed = attributeKernels(run.kernels, out.plan);
    if (unattributed)
        run.notes += (run.notes.empty() ? "" : "; ") + std::to_string(unattributed)
            + " kernels could not be tied to a plan launch";
    if (out.schedule)
        run.stages = stageSpans(run.kernels, out.plan, *out.schedule);
    run.warpsCollected = collection.warpsCollected;
    if (!run.kernels.empty())
        run.notes += std::string(run.notes.empty() ? "" : "; ")
            + "kernel timeline from one eager run (latencies: CUDA graph replays)";
}

} // namespace opsched::profiler
