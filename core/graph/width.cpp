#include "graph/width.h"

#include <algorithm>
#include <limits>
#include <queue>

namespace opsched {
namespace {

// Hopcroft-Karp on the bipartite graph left u -> right v when u reaches v.
class Matching {
public:
    explicit Matching(const std::vector<std::vector<std::uint32_t>>& adj)
        : adj_(adj), n_(adj.size()), matchLeft_(n_, kFree), matchRight_(n_, kFree), dist_(n_)
    {
        while (bfs())
            for (std::uint32_t u = 0; u < n_; ++u)
                if (matchLeft_[u] == kFree)
                    dfs(u);
    }

    std::uint32_t left(std::uint32_t u) const { return matchLeft_[u]; }
    std::uint32_t right(std::uint32_t v) const { return matchRight_[v]; }
    static constexpr std::uint32_t kFree = std::numeric_limits<std::uint32_t>::max();

private:
    bool bfs()
    {
        std::queue<std::uint32_t> q;
        bool foundFree = false;
        for (std::uint32_t u = 0; u < n_; ++u) {
            dist_[u] = matchLeft_[u] == kFree ? 0 : kInf;
            if (dist_[u] == 0)
                q.push(u);
        }
        while (!q.empty()) {
            const auto u = q.front();
            q.pop();
            for (auto v : adj_[u]) {
                const auto w = matchRight_[v];
                if (w == kFree)
                    foundFree = true;
                else if (dist_[w] == kInf) {
                    dist_[w] = dist_[u] + 1;
                    q.push(w);
                }
            }
        }
        return foundFree;
    }

    bool dfs(std::uint32_t u)
    {
        for (auto v : adj_[u]) {
            const auto w = matchRight_[v];
            if (w == kFree || (dist_[w] == dist_[u] + 1 && dfs(w))) {
                matchLeft_[u] = v;
                matchRight_[v] = u;
                return true;
            }
        }
        dist_[u] = kInf;
        return false;
    }

    static constexpr std::uint32_t kInf = std::numeric_limits<std::uint32_t>::max();
    const std::vector<std::vector<std::uint32_t>>& adj_;
    std::size_t n_;
    std::vector<std::uint32_t> matchLeft_, matchRight_, dist_;
};

} // namespace

WidthResult computeWidth(const Dag& dag, const Reachability& reach)
{
    const std::size_t n = dag.size();
    WidthResult result;
    if (n == 0)
        return result;

    std::vector<std::vector<std::uint32_t>> adj(n);
    for (std::uint32_t u = 0; u < n; ++u)
        reach.descendants(u).forEach([&](std::size_t v) { adj[u].push_back(static_cast<std::uint32_t>(v)); });
    const Matching m(adj);

    // Chains: follow matched edges from every node that nothing is matched into.
    for (std::uint32_t v = 0; v < n; ++v) {
        if (m.right(v) != Matching::kFree)
            continue;
        auto& chain = result.chains.emplace_back();
        for (auto u = v; u != Matching::kFree; u = m.left(u))
            chain.push_back(u);
    }
    result.width = result.chains.size();

    // Koenig: Z = nodes reachable from free left nodes by alternating paths. The minimum vertex
    // cover is (L \ Z) + (R & Z); nodes covered on neither side form a largest antichain.
    std::vector<bool> leftInZ(n, false), rightInZ(n, false);
    std::queue<std::uint32_t> q;
    for (std::uint32_t u = 0; u < n; ++u)
        if (m.left(u) == Matching::kFree) {
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
            if (w != Matching::kFree && !leftInZ[w]) {
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
