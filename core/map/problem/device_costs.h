// One device's cost of every op of a graph, and its memory: what a mapping problem is built from; a
// simulated GPU's costs.
#pragma once

#include "map/problem/mapping_problem.h"

#include "graph/graph.h"
#include "sim/sim_device.h"

#include <string>
#include <vector>

namespace opsched::map {

struct DeviceCosts {
    std::string name; // as the user wrote it: "sim:a100", "cpu:0"
    std::vector<double> opSeconds; // per op id; kUnsupported where it cannot run
    double memoryBytes = kUnsupported; // infinity: no limit
};

// Each op alone on a simulated GPU (launch and completion included), as simulateStage times it.
std::vector<double> simulatedOpSeconds(const Graph& graph, const SimDevice& device);

} // namespace opsched::map
