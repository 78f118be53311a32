// A profiling job (one model x scheduler x batch on one device) and what identifies it in the
// store, so a resumed batch skips the jobs that are already complete.
#pragma once

#include "schedule/schedulers.h"
#include "sim/sim_device.h"

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

// Latency measurements per stored run when none are asked for (engine/limits.h's kProfileRepeat
// starts from it).
inline constexpr int kDefaultProfileRepeats = 10;

// Settings shared by every job of a batch, from the defaults defined once below the engine.
struct ProfileSettings {
    std::string deviceRef = kDefaultDeviceRef;
    std::size_t r = kDefaultIosR;
    std::size_t s = kDefaultIosS;
    std::size_t maxPartOps = kDefaultMaxPartOps;
    std::optional<Lowering> lowering = Lowering::Barriers; // stage schedules -> plans; nullopt: best
    bool cudaGraph = false;
    bool warps = false; // record active-warp samples (and their average)
    int repeats = kDefaultProfileRepeats; // latency measurements per run
    bool costCache = false; // keep the IOS search's stage costs in the database
    InputShapes shapes; // free input dimensions of the models (--shape)

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
