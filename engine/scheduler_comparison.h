// `compare MODEL`: every scheduler's plan for one model on one device, timed the same way, with the
// critical-path floor and, on a simulated device, why each is faster or slower than sequential
// (the speedup breakdown of the runs `profile` would record).
#pragma once

#include "engine/device_target.h"
#include "engine/requests.h"

#include "analysis/speedup_breakdown.h"
#include "schedule/schedulers.h"

#include <optional>
#include <string>
#include <vector>

namespace opsched::engine {

struct CompareRequest {
    TargetRequest target;
    PruningRequest pruning;
    CostCacheOptions cache;
    bool explain = false; // simulated devices only (a measured device records no kernels here)
};

struct SchedulerComparisonRow {
    std::string scheduler;
    SchedulerOutput output;
    PlanLatency latency;
    double speedup = 1.0; // sequential's median / this one's
    std::optional<analysis::SpeedupBreakdown> explanation; // with `explain`, against sequential
};

struct SchedulerComparison {
    std::string device; // "sim:v100", "cuda:0"
    std::string deviceDescription; // DeviceTarget::describe()
    bool simulated = true;
    double floorSeconds = 0; // the longest chain of ops, each timed alone
    std::vector<SchedulerComparisonRow> rows; // in engine::schedulerNames() order
};

// Throws Error for an unknown device, and for `explain` on a measured device (naming what to do).
SchedulerComparison compareSchedulers(const Graph& graph, const CompareRequest& request);

} // namespace opsched::engine
