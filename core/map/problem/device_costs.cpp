#include "map/problem/device_costs.h"

#include "sim/simulator.h"

namespace opsched::map {

std::vector<double> simulatedOpSeconds(const Graph& graph, const SimDevice& device)
{
    const KernelTable kernels(graph);
    std::vector<double> out(graph.opCount());
    for (const Op& op : graph.ops()) {
        Stage stage;
        stage.groups = { { op.id } };
        out[op.id.value()] = simulateStage(graph, stage, device, {}, &kernels);
    }
    return out;
}

} // namespace opsched::map
