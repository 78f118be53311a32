// The device a command schedules for and reports on: a simulated GPU (sim:NAME, sim:FILE.json) or
// the local GPU (cuda:N, measured through the CUDA executor's StageTimer with the stage-cost
// cache). Gives the cost model for the search, the latency of a plan with its spread, and the
// critical-path floor, the same way for both.
#pragma once

#include "engine/device_ref.h"

#include "schedule/measured_stage_cost.h"
#include "sim/sim_stage_timer.h"

#include <memory>
#include <optional>
#include <string>

namespace opsched::engine {

// Whole-plan replays timed on a measured device.
inline constexpr int kPlanReplays = 100;

struct PlanLatency {
    double median = 0; // seconds
    double p10 = 0;
    double p90 = 0;
    int replays = 1;
    std::optional<double> averageActiveWarps; // simulated devices only
};

class DeviceTarget {
public:
    // Throws Error (exit 1) for an unknown preset, an unreadable device file, or cuda:N without a
    // usable GPU (suggesting --device sim:NAME).
    DeviceTarget(const std::string& device, bool cudaGraph, const CostCacheOptions& cache = {});
    ~DeviceTarget();
    DeviceTarget(const DeviceTarget&) = delete;
    DeviceTarget& operator=(const DeviceTarget&) = delete;

    StageCostModel& cost() { return *cost_; }
    const std::string& name() const { return name_; } // "sim:h100", "cuda:0"
    bool simulated() const { return measured_ == nullptr; }
    // "sim:h100 (simulated)", "cuda:0 NVIDIA H100 80GB HBM3 (measured)".
    std::string describe() const;

    PlanLatency latency(const Graph& graph, const Plan& plan);
    // The longest chain of ops, each timed alone; computed once per graph.
    double floor(const Graph& graph);
    // Writes new measurements to the persistent cache (measured devices).
    void flush();
    MeasuredStageCost* measured() { return measured_; }

private:
    std::string name_;
    bool cudaGraph_ = false;
    std::unique_ptr<StageCostModel> cost_;
    MeasuredStageCost* measured_ = nullptr; // cost_, when measured
    std::unique_ptr<SimStageTimer> simTimer_; // simulated devices: ops alone for the floor
    std::uint64_t floorGraph_ = 0;
    double floor_ = 0;
};

} // namespace opsched::engine
