// The two baselines of the IOS paper: one op per stage, and all ready ops in one stage.
#pragma once

#include "plan/schedule.h"
#include "schedule/scheduler_defaults.h"

namespace opsched {

// One op per stage, in topological order.
Schedule sequentialSchedule(const Graph& graph);

// IOS's greedy baseline: each stage takes every op whose inputs are ready, one op per group, at
// most `maxGroups` of them (the rest wait for the next stage).
Schedule greedySchedule(const Graph& graph, std::size_t maxGroups = kDefaultIosS);

} // namespace opsched
