// One scheduler run on the open model, as the GUI keeps it: the schedule or plan, its simulated
// timeline and the numbers the results table shows. Computed off the GUI thread by
// computeScheduleResult, through the same core calls as `opsched-cli schedule`.
#pragma once

#include "engine/timeline/timeline_data.h"

#include "engine/requests.h"

#include "schedule/schedulers.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace opsched::store {
struct RunRecord;
}

namespace opsched {

// Scheduler, device (a reference, engine/device_ref.h), batch, pruning, lowering: as the CLI takes them.
using engine::ScheduleRequest;

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
    double latency = 0; // seconds: simulated, or measured on a cuda:N device
    double averageActiveWarps = 0;
    std::shared_ptr<const TimelineData> timeline;
    std::shared_ptr<const store::RunRecord> stored; // set for a run read from a results database
    // The window's own numbering of the results it lists (1, 2, ...), so that two runs of the same
    // scheduler, device and batch stay apart; 0: not numbered (a stored run has its database id).
    std::int64_t sequence = 0;
    std::optional<MappingView> mapping; // set for a mapper's result (stream u = device u)
    // A latency mapping's file as `opsched-cli map -o` writes it: what File > Export > Schedule
    // writes for a mapping (File > Open Mapping and `run --mapping` read it back).
    std::shared_ptr<const nlohmann::ordered_json> mappingFile;
};

// A hand-edited (valid) schedule evaluated like a scheduler's result; request.scheduler names it.
std::shared_ptr<const ScheduleResult> evaluateSchedule(
    const Graph& graph, const Schedule& schedule, const ScheduleRequest& request);

// The device is resolved by the engine, as `opsched-cli schedule --device` resolves it: sim:NAME,
// sim:FILE.json, cuda:N (measured; the timeline is simulated on the closest preset); cpu, cpu:N and
// unknown names are refused with the CLI's message. Throws opsched::Error (unknown scheduler or
// device, cancelled search).
std::shared_ptr<const ScheduleResult> computeScheduleResult(
    const Graph& graph, const ScheduleRequest& request, const std::function<bool(const IosProgress&)>& progress = {});

} // namespace opsched
