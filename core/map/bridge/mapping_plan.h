// A mapping as an executable plan: device u becomes stream u, each device's ops are launched in
// the mapping's order, and every edge between devices becomes an event wait (the fewest that
// order every dependency, plan/lowering.h). An executor that runs stream u on device u (the CPU
// executor with one core partition per stream) then runs the mapping.
#pragma once

#include "map/problem/mapping_problem.h"

#include "graph/graph.h"
#include "plan/plan.h"

#include <vector>

namespace opsched::map {

// Launches are issued in order of `startSeconds` (per op; the predicted schedule) where given,
// else in an order that follows the DAG and each device's order. Throws Error when the mapping's
// orders contradict the graph.
Plan planForMapping(const Graph& graph, const Mapping& mapping, const std::vector<double>& startSeconds = {});

} // namespace opsched::map
