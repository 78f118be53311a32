// Width of a DAG (the largest set of nodes no path joins, IOS's d) by Dilworth's theorem: the
// minimum number of chains covering the reachability order equals the largest antichain. Both come
// from one maximum bipartite matching (Hopcroft-Karp) on the transitive closure.
#pragma once

#include "graph/dag.h"
#include "graph/reachability.h"

#include <cstdint>
#include <vector>

namespace opsched {

struct WidthResult {
    std::size_t width = 0;
    std::vector<std::uint32_t> antichain; // a largest antichain, sorted
    std::vector<std::vector<std::uint32_t>> chains; // a minimum chain decomposition, each in path order
};

WidthResult computeWidth(const Dag& dag, const Reachability& reach);
WidthResult computeWidth(const Dag& dag);

} // namespace opsched
