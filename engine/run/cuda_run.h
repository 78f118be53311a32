// `run --backend cuda`: the plan on the local GPU with the CUDA executor, one CUDA graph per plan.
// Kept apart from model_run.cpp so the GPU path is one call there.
#pragma once

#include "exec/cuda/conv_variant.h"
#include "graph/graph.h"
#include "plan/plan.h"

#include <cstdint>
#include <string>
#include <vector>

namespace opsched::engine {

struct CudaRunResult {
    std::vector<double> latenciesMs; // graph replays timed with CUDA events, after one warm-up run
    std::int64_t arenaBytes = 0;
    std::int64_t activationBytes = 0;
    std::int64_t weightBytes = 0;
    std::vector<std::vector<float>> outputs;
    std::string device;
    std::string notes; // the executor's warnings (an algorithm it fell back from), once per run
};

// Throws Error (exit 1) when there is no CUDA build, device or cuDNN, suggesting --backend cpu.
// `checks.check`: the warm-up runs other inputs and the arena is poisoned before the run whose
// outputs are returned (engine/run/run_check.h); `checks.skipWaits`: the fault injection that
// drops the waits between streams.
struct CudaRunChecks {
    bool check = false;
    bool skipWaits = false;
};
CudaRunResult runOnCuda(const Graph& graph, const Plan& plan, const std::vector<std::vector<float>>& inputs, int repeat,
    bool tf32, const gpu::ConvVariant& conv = {}, CudaRunChecks checks = {});

} // namespace opsched::engine
