#include "graph/width.h"

#include "graph/bipartite_matching.h"

#include <algorithm>
#include <limits>
#include <queue>

namespace opsched {

WidthResult computeWidth(const Dag& dag, const Reachability& reach)
{
    const std::size_t n = dag.size();
    WidthResult result;
    if (n == 0)
        return result;

    std::vector<std::vector<std::uint32_t>> adj(n);
    for (std::uint32_t u = 0; u < n; ++u)
        reach.descendants(u).forEach([&](std::size_t v) { adj[u].push_back(static_cast<std::uint32_t>(v)); });
    const BipartiteMatching m(adj);

    // Chains: follow matched edges from every node that nothing is matched into.
    for (std::uint32_t v = 0; v < n; ++v) {
        if (m.right(v) != BipartiteMatching::kFree)
            continue;
        auto& chain = result.chains.emplace_back();
        for (auto u = v; u != BipartiteMatching::kFree; u = m.left(u))
            chain.push_back(u);
    }
    result.width = result.chains.size();

    // Koenig: Z = nodes reachable from free left nodes by alternating paths. The minimum vertex
    // cover is (L \ Z) + (R & Z); nodes covered on neither side form a largest antichain.
    std::vector<bool> leftInZ(n, false), rightInZ(n, false);
    std::queue<std::uint32_t> q;
    for (std::uint32_t u = 0; u < n; ++u)
        if (m.left(u) == BipartiteMatching::kFree) {
            leftInZ[u] = true;
            q.push(u);
        }
    while (!q.empty()) {
        const auto u = q.front();
        q.pop();
        for (auto v : adj[u]) {
            if (rightInZ[v] || m.left(u) == v)
                continue;
            rightInZ[v] = true;
            const auto w = m.right(v);
            if (w != BipartiteMatching::kFree && !leftInZ[w]) {
                leftInZ[w] = true;
                q.push(w);
            }
        }
    }
    for (std::uint32_t v = 0; v < n; ++v)
        if (leftInZ[v] && !rightInZ[v])
            result.antichain.push_back(v);
    return result;
}

WidthResult computeWidth(const Dag& dag)
{
    return computeWidth(dag, Reachability(dag));
}

} // namespace opsched
