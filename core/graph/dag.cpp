#include "graph/dag.h"

#include <algorithm>
#include <limits>
#include <queue>

namespace opsched {

std::size_t Dag::edgeCount() const
{
    std::size_t n = 0;
    for (const auto& s : successors)
        n += s.size();
    return n;
}

Dag Dag::fromEdges(std::size_t n, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& edges)
{
    Dag dag;
    dag.successors.resize(n);
    dag.predecessors.resize(n);
    for (auto [u, v] : edges) {
        dag.successors[u].push_back(v);
        dag.predecessors[v].push_back(u);
    }
    auto normalise = [](std::vector<std::uint32_t>& list) {
        std::sort(list.begin(), list.end());
        list.erase(std::unique(list.begin(), list.end()), list.end());
    };
    for (auto& s : dag.successors)
        normalise(s);
    for (auto& p : dag.predecessors)
        normalise(p);
    return dag;
}

std::optional<std::vector<std::uint32_t>> topologicalOrder(const Dag& dag)
{
    const std::size_t n = dag.size();
    std::vector<std::size_t> indegree(n);
    for (std::size_t v = 0; v < n; ++v)
        indegree[v] = dag.predecessors[v].size();
    std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> ready;
    for (std::uint32_t v = 0; v < n; ++v)
        if (indegree[v] == 0)
            ready.push(v);
    std::vector<std::uint32_t> order;
    order.reserve(n);
    while (!ready.empty()) {
        const auto u = ready.top();
        ready.pop();
        order.push_back(u);
        for (auto v : dag.successors[u])
            if (--indegree[v] == 0)
                ready.push(v);
    }
    if (order.size() != n)
        return std::nullopt;
    return order;
}

std::vector<std::uint32_t> findCycle(const Dag& dag)
{
    // Iterative DFS with colours; a back edge closes a cycle that we read off the parent chain.
    const std::size_t n = dag.size();
    enum : std::uint8_t { White, Grey, Black };
    std::vector<std::uint8_t> colour(n, White);
    std::vector<std::uint32_t> parent(n, 0);
    for (std::uint32_t root = 0; root < n; ++root) {
        if (colour[root] != White)
            continue;
        std::vector<std::pair<std::uint32_t, std::size_t>> stack { { root, 0 } };
        colour[root] = Grey;
        while (!stack.empty()) {
            auto& [u, next] = stack.back();
            if (next < dag.successors[u].size()) {
                const auto v = dag.successors[u][next++];
                if (colour[v] == Grey) {
                    std::vector<std::uint32_t> cycle { u };
                    for (auto w = u; w != v;) {
                        w = parent[w];
                        cycle.push_back(w);
                    }
                    std::reverse(cycle.begin(), cycle.end());
                    return cycle;
                }
                if (colour[v] == White) {
                    colour[v] = Grey;
                    parent[v] = u;
                    stack.emplace_back(v, 0);
                }
            } else {
                colour[u] = Black;
                stack.pop_back();
            }
        }
    }
    return {};
}

} // namespace opsched

namespace opsched {

Dag inducedSubgraph(const Dag& dag, const std::vector<std::uint32_t>& nodes)
{
    std::vector<std::uint32_t> local(dag.size(), std::numeric_limits<std::uint32_t>::max());
    for (std::uint32_t i = 0; i < nodes.size(); ++i)
        local[nodes[i]] = i;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    for (std::uint32_t i = 0; i < nodes.size(); ++i)
        for (auto s : dag.successors[nodes[i]])
            if (local[s] != std::numeric_limits<std::uint32_t>::max())
                edges.emplace_back(i, local[s]);
    return Dag::fromEdges(nodes.size(), edges);
}

double longestPath(const Dag& dag, const std::vector<double>& weights, std::vector<std::uint32_t>* path)
{
    const auto order = topologicalOrder(dag);
    if (!order || dag.size() == 0)
        return 0.0;
    const auto none = std::numeric_limits<std::uint32_t>::max();
    std::vector<double> best(dag.size(), 0.0);
    std::vector<std::uint32_t> from(dag.size(), none);
    std::uint32_t end = order->front();
    for (auto v : *order) {
        double incoming = 0.0;
        for (auto p : dag.predecessors[v])
            if (from[v] == none || best[p] > incoming) {
                incoming = best[p];
                from[v] = p;
            }
        best[v] = incoming + weights[v];
        if (best[v] > best[end])
            end = v;
    }
    if (path) {
        path->clear();
        for (auto v = end; v != none; v = from[v])
            path->push_back(v);
        std::reverse(path->begin(), path->end());
    }
    return best[end];
}

} // namespace opsched
