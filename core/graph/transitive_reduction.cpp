#include "graph/transitive_reduction.h"

namespace opsched {

Dag transitiveReduction(const Dag& dag, const Reachability& reach)
{
    // Edge u->v is redundant exactly when another successor w of u already reaches v.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> kept;
    for (std::uint32_t u = 0; u < dag.size(); ++u) {
        const auto& succ = dag.successors[u];
        DynamicBitset viaOthers(dag.size());
        for (auto w : succ)
            viaOthers |= reach.descendants(w);
        for (auto v : succ)
            if (!viaOthers.test(v))
                kept.emplace_back(u, v);
    }
    return Dag::fromEdges(dag.size(), kept);
}

Dag transitiveReduction(const Dag& dag)
{
    return transitiveReduction(dag, Reachability(dag));
}

} // namespace opsched
