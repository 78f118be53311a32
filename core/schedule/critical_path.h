// The physical floor of a model's latency: no schedule can finish before its heaviest chain of
// dependent ops, each taking at least the time it takes alone on the device.
#pragma once

#include "graph/graph.h"

#include <vector>

namespace opsched {

struct CriticalPath {
    double seconds = 0; // sum of the op times along the path
    std::vector<OpId> ops; // the path, in dependency order
};

// Longest path through the op DAG with `opSeconds[i]` as the weight of op i. Throws Error when the
// weights do not cover every op or one is negative or not finite.
CriticalPath criticalPath(const Graph& graph, const std::vector<double>& opSeconds);

} // namespace opsched
