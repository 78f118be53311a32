// What one profiling run puts into the results store, as plain values: the store writes a
// RunRecord in one transaction and reads it back whole (export, merge).
#pragma once

#include "store/ids.h"
#include "store/latency_stats.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace opsched::store {

struct DeviceRecord {
    std::string key; // identity across databases: sim:h100, cuda:<uuid>
    std::string name; // what a person reads
    bool simulated = true;
    std::optional<int> computeMajor, computeMinor;
    std::optional<int> smCount, maxWarpsPerSm;
    std::optional<std::int64_t> clockRate; // kHz
    std::optional<double> memoryBandwidth; // bytes/s
    std::optional<std::int64_t> l2CacheSize, totalMemory;
    std::optional<int> driverVersion, runtimeVersion;
};

struct ModelRecord {
    std::string name;
    std::string ref; // as given to the profiler
    std::string sha256; // modelFingerprint: batch-independent
    std::size_t opCount = 0;
    nlohmann::json ops = nlohmann::json::array(); // [{"name","type","inputs"}], index = op id
};

struct ScheduleRecord {
    std::string scheduler;
    std::string format; // "opsched-schedule" or "opsched-plan"
    nlohmann::ordered_json document; // the schedule or plan file, as `schedule -o` writes it
    nlohmann::ordered_json plan; // the plan that ran (opsched-plan file JSON)
    nlohmann::ordered_json params = nlohmann::ordered_json::object();
    double searchSeconds = 0;
    std::int64_t states = 0;
    std::int64_t transitions = 0;
};

struct StageLatencyRecord {
    std::uint32_t stage = 0;
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
};

// One kernel execution; fields named and typed as Nsight Systems' CUPTI_ACTIVITY_KIND_KERNEL.
struct KernelRecord {
    std::int64_t start = 0; // ns from run start
    std::int64_t end = 0;
    std::optional<std::int64_t> deviceId, contextId;
    std::int64_t streamId = 0;
    std::optional<std::int64_t> correlationId, graphNodeId, gridId;
    std::optional<std::int64_t> opId, launchId;
    std::int64_t part = 0;
    std::optional<std::int64_t> gridX, gridY, gridZ, blockX, blockY, blockZ;
    std::optional<std::int64_t> registersPerThread, staticSharedMemory, dynamicSharedMemory, localMemoryPerThread;
    std::string shortName;
    std::string demangledName;
    std::optional<double> warps;
};

struct WarpSampleRecord {
    std::int64_t timeNs = 0; // from run start
    std::int64_t durationNs = 0;
    double activeWarps = 0; // whole GPU
    std::optional<double> smActivePct;
};

// One call of the host thread during the run (a kernel launch, a graph launch, a wait for the
// device, a stage barrier): Nsight's CUDA API row. `name` is the call ("cudaLaunchKernel", ...).
struct HostCallRecord {
    std::int64_t startNs = 0, endNs = 0; // from run start
    std::string name;
    std::optional<std::int64_t> launchId; // the plan launch a kernel launch issues
};

enum class RunStatus { Ok, Failed };
const char* toString(RunStatus s);

struct RunRecord {
    RunId id; // set when read back
    std::string uid; // empty: writeRun makes one
    std::string jobKey;
    DeviceRecord device;
    ModelRecord model;
    std::optional<ScheduleRecord> schedule; // absent for a run that failed before it had one
    std::int64_t batch = 1;
    std::string startedAt, finishedAt; // ISO 8601 UTC
    RunStatus status = RunStatus::Ok;
    std::string error;
    bool simulated = true;
    bool cudaGraph = false;
    bool warpsCollected = false;
    std::optional<double> averageActiveWarps;
    std::vector<double> latenciesNs; // every repeat, in order
    std::vector<StageLatencyRecord> stages;
    std::vector<KernelRecord> kernels;
    std::vector<WarpSampleRecord> warps;
    std::vector<HostCallRecord> hostCalls; // in time order; empty for runs recorded without them
    std::string host;
    std::string opschedVersion;
    std::string notes; // e.g. why active warps are missing
};

// A run as `compare` and run lists see it (no timelines).
struct RunSummary {
    RunId id;
    std::string uid;
    std::string jobKey;
    std::string modelName, modelRef, modelSha256;
    std::string scheduler; // empty without a schedule
    std::string deviceKey, deviceName;
    bool simulated = true;
    std::int64_t batch = 1;
    RunStatus status = RunStatus::Ok;
    std::string error;
    std::string startedAt, finishedAt;
    std::optional<LatencyStats> latency;
    std::optional<double> averageActiveWarps;
    std::size_t kernelCount = 0;
    std::size_t warpSampleCount = 0;
};

// Current UTC time as ISO 8601 with milliseconds (2024-05-01T12:34:56.789Z).
std::string utcNow();

} // namespace opsched::store
