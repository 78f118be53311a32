// A profiling job (one model x scheduler x batch on one device) and what identifies it in the
// store, so a resumed batch skips the jobs that are already complete.
#pragma once

#include "schedule/schedulers.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace opsched::profiler {

struct ProfileJob {
    std::string modelRef; // zoo:NAME[?...] or a file
    std::string scheduler;
    std::int64_t batch = 1;
};

// Settings shared by every job of a batch. The defaults are engine/limits.h's (the profiler is below
// the engine and cannot include it; tests/engine's Limits test checks that they agree).
struct ProfileSettings {
    std::string deviceRef = "sim:v100";
    std::size_t r = 3;
    std::size_t s = 8;
    std::size_t maxPartOps = 24;
    std::optional<Lowering> lowering = Lowering::Barriers; // stage schedules -> plans; nullopt: best
    bool cudaGraph = false;
    bool warps = false; // record active-warp samples (and their average)
    int repeats = 10; // latency measurements per run
    bool costCache = false; // keep the IOS search's stage costs in the database

    SchedulerParams schedulerParams() const;
};

// Every model x batch x scheduler, in that nesting (a model is loaded once per batch).
std::vector<ProfileJob> expandJobs(const std::vector<std::string>& models, const std::vector<std::string>& schedulers,
    const std::vector<std::int64_t>& batches);

// The job's identity: model fingerprint, scheduler and its parameters, batch, device, and whether
// warps are recorded. --repeat is not part of it: a job done with other repeats still counts.
std::string jobKey(const std::string& modelSha256, const ProfileJob& job, const ProfileSettings& settings,
    const std::string& deviceKey);

// A file-name-safe label: squeezenet_ios_b1_sim-h100.
std::string jobLabel(const std::string& modelName, const ProfileJob& job, const std::string& deviceKey);

} // namespace opsched::profiler
