#include "schedule/critical_path.h"

#include "graph/dag.h"
#include "util/error.h"

#include <cmath>

namespace opsched {

CriticalPath criticalPath(const Graph& graph, const std::vector<double>& opSeconds)
{
    if (opSeconds.size() != graph.opCount())
        throw Error("critical path of " + graph.name() + ": " + std::to_string(opSeconds.size()) + " op times for "
            + std::to_string(graph.opCount()) + " ops");
    for (std::size_t i = 0; i < opSeconds.size(); ++i)
        if (!std::isfinite(opSeconds[i]) || opSeconds[i] < 0)
            throw Error("critical path of " + graph.name() + ": op '"
                + graph.op(OpId(static_cast<std::uint32_t>(i))).name + "' has no valid time ("
                + std::to_string(opSeconds[i]) + " s)");
    CriticalPath result;
    std::vector<std::uint32_t> nodes;
    result.seconds = longestPath(graph.dag(), opSeconds, &nodes);
    result.ops.reserve(nodes.size());
    for (auto n : nodes)
        result.ops.push_back(OpId(n));
    return result;
}

} // namespace opsched
