// The measured backend of the batch runner: each job's plan runs on a local GPU through the CUDA
// executor (the whole plan as one CUDA graph). Latencies are graph replays timed with CUDA events;
// then one eager, profiled run under CUPTI records the kernels (attributed to the plan's launches,
// session/kernel_attribution.h) and, with warps, the PM sampler's active-warps series. Lives in
// opsched_cupti, which links CUPTI; builds without CUPTI or CUDA refuse in the constructor.
#pragma once

#include "session/batch_runner.h"

namespace opsched::profiler {

struct CudaBackendOptions {
    int device = 0;
    int warmup = 10; // graph replays before the timed ones
};

class CudaBackend : public RunBackend {
public:
    // `cost` is the measured cost model the searches use on this GPU (owned by the caller). Throws
    // Error naming the cause (no CUDA build, no CUPTI, no such device) and suggesting sim:NAME.
    CudaBackend(const CudaBackendOptions& options, StageCostModel& cost);
    store::DeviceRecord device() const override { return device_; }
    StageCostModel& costModel() override { return cost_; }
    void run(store::RunRecord& run, const Graph& graph, const SchedulerOutput& out,
        const ProfileSettings& settings) override;

private:
    CudaBackendOptions options_;
    StageCostModel& cost_;
    store::DeviceRecord device_;
};

// Why `profile --device cuda:N` cannot run here, or empty: no CUDA build, no CUPTI in this build
// or on this machine, no usable GPU, no GPU N.
std::string cudaProfilingUnavailable(int device);

} // namespace opsched::profiler
