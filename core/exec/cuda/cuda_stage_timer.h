// The GPU behind a measured cost model: a StageTimer that runs stages, ops and whole plans on a
// local CUDA device with the CUDA executor.
#pragma once

#include "plan/stage_timer.h"

#include <memory>

namespace opsched {

struct CudaTimerOptions {
    int device = 0;
    bool tf32 = true; // TF32 tensor cores for FP32 convolutions and GEMMs (PyTorch's default for convs)
    int warmup = 2; // replays before timing
    int repeats = 7; // timed replays, back to back; the median is reported
};

// Throws Error with a message a person can act on when the build has no CUDA, there is no device
// or driver, or the device index is out of range (suggesting --device sim:NAME).
std::unique_ptr<StageTimer> makeCudaStageTimer(const CudaTimerOptions& options);

} // namespace opsched
