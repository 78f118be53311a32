// One scheduler run on the open model, as the GUI keeps it: the schedule or plan, its simulated
// timeline and the numbers the results table shows. Computed off the GUI thread by
// computeScheduleResult, through the same core calls as `opsched-cli schedule`.
#pragma once

#include "timeline/timeline_data.h"

#include "schedule/schedulers.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace opsched::store {
struct RunRecord;
}

namespace opsched {

struct ScheduleRequest {
    std::string scheduler = "ios";
    std::string device = "sim:v100";
    std::size_t r = 3;
    std::size_t s = 8;
    bool cudaGraph = false;
    std::string lowering = "barriers"; // barriers, events or best (plan/lowering.h, schedulers.h)
    std::int64_t batch = 0; // 0: the open model's batch; else the model rebuilt at this batch
};

// For a mapping (mapping_result.h): which device each op runs on.
struct MappingView {
    std::vector<std::string> devices;
    std::vector<int> deviceOf; // per op id
    std::string status; // optimal, feasible, timeout, heuristic
    std::string colouring; // what deviceOf means, the DAG legend's title; empty: "device"
};

struct ScheduleResult {
    ScheduleRequest request;
    std::int64_t batch = 1;
    SchedulerOutput output;
    double latency = 0; // seconds, simulated
    double averageActiveWarps = 0;
    std::shared_ptr<const TimelineData> timeline;
    std::shared_ptr<const store::RunRecord> stored; // set for a run read from a results database
    std::optional<MappingView> mapping; // set for a mapper's result (stream u = device u)
};

// A hand-edited (valid) schedule evaluated like a scheduler's result; request.scheduler names it.
std::shared_ptr<const ScheduleResult> evaluateSchedule(
    const Graph& graph, const Schedule& schedule, const ScheduleRequest& request);

// Throws opsched::Error (unknown scheduler or device, cancelled search).
std::shared_ptr<const ScheduleResult> computeScheduleResult(
    const Graph& graph, const ScheduleRequest& request, const std::function<bool(const IosProgress&)>& progress = {});

} // namespace opsched
