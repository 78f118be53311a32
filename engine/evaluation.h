// A schedule or plan checked against its graph and timed on a device: what `evaluate` does for a
// file and what the schedule editor does after every edit, in one place.
#pragma once

#include "engine/device_target.h"

#include "plan/plan.h"
#include "plan/schedule.h"
#include "schedule/schedule_file.h"

#include <string>
#include <vector>

namespace opsched::engine {

struct Evaluation {
    std::vector<std::string> problems; // why the schedule is not valid for the graph; empty: valid
    Plan plan; // what was timed (valid only)
    PlanLatency latency; // valid only

    bool valid() const { return problems.empty(); }
};

// A schedule or plan document (schedule files lowered as their "lowering" says, else barriers).
Evaluation evaluateDocument(const Graph& graph, const ScheduleDocument& doc, DeviceTarget& target);

// A stage schedule as it is being edited: lowered with barriers between stages. A device that cannot
// time it (an error while simulating) is a problem, not an exception.
Evaluation evaluateSchedule(const Graph& graph, const Schedule& schedule, DeviceTarget& target);

} // namespace opsched::engine
