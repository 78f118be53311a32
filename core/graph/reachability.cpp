#include "graph/reachability.h"

#include "util/error.h"

namespace opsched {

Reachability::Reachability(const Dag& dag)
{
    const auto order = topologicalOrder(dag);
    if (!order)
        throw GraphError("reachability needs an acyclic graph");
    const std::size_t n = dag.size();
    descendants_.assign(n, DynamicBitset(n));
    ancestors_.assign(n, DynamicBitset(n));
    for (auto it = order->rbegin(); it != order->rend(); ++it) {
        for (auto s : dag.successors[*it]) {
            descendants_[*it].set(s);
            descendants_[*it] |= descendants_[s];
        }
    }
    for (auto v : *order) {
        for (auto p : dag.predecessors[v]) {
            ancestors_[v].set(p);
            ancestors_[v] |= ancestors_[p];
        }
    }
}

} // namespace opsched
