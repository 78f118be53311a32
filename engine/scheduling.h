// A scheduler run as every front end asks for it: the IOS pruning and lowering of a request made
// into the scheduler's parameters in one place, and the plan it returns checked.
#pragma once

#include "engine/requests.h"

#include "schedule/schedulers.h"
#include "schedule/stage_cost.h"

#include <functional>
#include <string>

namespace opsched::engine {

// --r, --s and --lowering (`best`: both lowerings evaluated, the faster kept) as SchedulerParams.
SchedulerParams schedulerParams(const PruningRequest& pruning, std::function<bool(const IosProgress&)> progress = {});

// runScheduler with schedulerParams(pruning); throws Error for an unknown scheduler and, naming the
// scheduler, for a plan that does not validate against the graph (a bug, never the user's input).
SchedulerOutput runCheckedScheduler(const std::string& scheduler, const Graph& graph, StageCostModel& cost,
    const PruningRequest& pruning, std::function<bool(const IosProgress&)> progress = {});

} // namespace opsched::engine
