#include "graph/bipartite_matching.h"

#include <queue>

namespace opsched {

BipartiteMatching::BipartiteMatching(const std::vector<std::vector<std::uint32_t>>& adj)
    : adj_(adj)
    , n_(adj.size())
    , matchLeft_(n_, kFree)
    , matchRight_(n_, kFree)
    , dist_(n_)
{
    while (bfs())
        for (std::uint32_t u = 0; u < n_; ++u)
            if (matchLeft_[u] == kFree && dfs(u))
                ++size_;
}

bool BipartiteMatching::bfs()
{
    std::queue<std::uint32_t> q;
    bool foundFree = false;
    for (std::uint32_t u = 0; u < n_; ++u) {
        dist_[u] = matchLeft_[u] == kFree ? 0 : kFree;
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
            else if (dist_[w] == kFree) {
                dist_[w] = dist_[u] + 1;
                q.push(w);
            }
        }
    }
    return foundFree;
}

bool BipartiteMatching::dfs(std::uint32_t u)
{
    for (auto v : adj_[u]) {
        const auto w = matchRight_[v];
        if (w == kFree || (dist_[w] == dist_[u] + 1 && dfs(w))) {
            matchLeft_[u] = v;
            matchRight_[v] = u;
            return true;
        }
    }
    dist_[u] = kFree;
    return false;
}

} // namespace opsched
