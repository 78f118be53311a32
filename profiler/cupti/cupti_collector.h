// The CUPTI collector: kernels from the Activity API (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) and
// active warps from PM sampling (cupti_pmsampling.h; CUDA 13 has no Event API any more). Built
// with CUPTI only; without it every call reports why nothing was collected. A GPU that cannot be
// profiled (no device, no permission, another profiler attached, an unsupported chip) is an
// ordinary outcome: the collector says why, and the run goes on with latencies only.
#pragma once

#include "store/records.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace opsched::profiler::cupti {

// The metrics sampled, in this order (one pass; the sampler checks the pass count).
inline constexpr const char* kActiveWarpsMetric = "sm__warps_active_realtime.sum.per_cycle_elapsed";
inline constexpr const char* kSmActiveMetric = "sm__cycles_active.avg.pct_of_peak_sustained_elapsed";

// One kernel as CUPTI reports it (CUpti_ActivityKernel10), timestamps in CUPTI's ns clock.
struct CollectedKernel {
    std::uint64_t start = 0, end = 0;
    std::uint32_t deviceId = 0, contextId = 0, streamId = 0, correlationId = 0;
    std::uint64_t graphNodeId = 0; // 0: not launched from a CUDA graph
    std::int64_t gridId = 0;
    std::int32_t gridX = 0, gridY = 0, gridZ = 0, blockX = 0, blockY = 0, blockZ = 0;
    std::uint16_t registersPerThread = 0;
    std::int32_t staticSharedMemory = 0, dynamicSharedMemory = 0;
    std::uint32_t localMemoryPerThread = 0;
    std::string mangledName, demangledName, shortName;
    std::optional<std::uint64_t> externalId; // the plan launch pushed with ExternalIdScope
};

// One CUDA runtime or driver API call (CUpti_ActivityAPI): Nsight's CUDA API row, what the host
// thread spends issuing, recording, waiting.
struct CollectedApiCall {
    std::uint64_t start = 0, end = 0; // CUPTI's ns clock
    std::uint32_t threadId = 0, correlationId = 0;
    bool driver = false; // a driver call (cuLaunchKernel), else a runtime one
    std::string name; // "cudaLaunchKernel", "cuLaunchKernel", ...
    std::optional<std::uint64_t> externalId; // the plan launch pushed with ExternalIdScope
};

// One PM sample: the whole GPU's active warps (per cycle, summed over SMs) and the SM-active %.
struct ActiveWarpSample {
    std::uint64_t start = 0, end = 0; // GPU ns
    double activeWarps = 0;
    double smActivePct = 0;
};

struct PmSamplingConfig {
    int deviceIndex = 0;
    std::uint64_t intervalNs = 100'000; // 0.1 ms (IOS sampled every 2.1 ms)
    std::size_t hardwareBufferBytes = 256u << 20;
    std::uint32_t maxSamples = 20'000; // per counter-data image; a full image is decoded and reused
};

// What one collection produced; `messages` say what could not be collected and why.
struct Collection {
    bool kernelsCollected = false;
    bool warpsCollected = false;
    std::vector<CollectedKernel> kernels;
    std::vector<CollectedApiCall> apiCalls; // with the kernels, in no particular order
    std::vector<ActiveWarpSample> warps;
    std::vector<std::string> messages;
    std::uint64_t startNs = 0; // CUPTI timestamp taken just before the workload
};

// Whether this build has CUPTI (and which version), or why not.
bool built();

// While alive, kernels launched from this thread carry `id` as their external correlation id, so
// they map back to the plan launch (non-graph launches; graph replays map by graphNodeId).
class ExternalIdScope {
public:
    explicit ExternalIdScope(std::uint64_t id);
    ~ExternalIdScope();
    ExternalIdScope(const ExternalIdScope&) = delete;
    ExternalIdScope& operator=(const ExternalIdScope&) = delete;

private:
    bool pushed_ = false;
};

// Runs `workload` (which must synchronise the device before returning) with kernel tracing and,
// with `warps`, PM sampling. Never throws for CUPTI problems; it reports them in `messages` and
// returns what it could collect.
Collection collect(const std::function<void()>& workload, bool warps, const PmSamplingConfig& config = {});

// Kernel, host-call and warp records for the store, times relative to `collection.startNs`.
// `launchOf` maps a kernel to its plan launch (external id or graph node id), or nullopt;
// `launchOfCall` an API call's external id to the launch it issues (kernel launches only).
void fillRun(store::RunRecord& run, const Collection& collection,
    const std::function<std::optional<std::int64_t>(const CollectedKernel&)>& launchOf,
    const std::function<std::optional<std::int64_t>(std::optional<std::uint64_t>)>& launchOfCall = {});

// The host row of a measured run: the API calls of the thread that issued most kernel launches
// (the workload's; CUPTI also reports other threads), sorted by start, without driver calls made
// inside one of its runtime calls (cudaLaunchKernel's own cuLaunchKernel), so calls do not
// overlap; a driver call on its own (cuDNN launches some kernels that way) is kept.
std::vector<CollectedApiCall> hostRow(std::vector<CollectedApiCall> calls);

} // namespace opsched::profiler::cupti
