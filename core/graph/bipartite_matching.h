// Maximum bipartite matching (Hopcroft-Karp, O(E sqrt(V))). Left and right sides are both
// 0..n-1; adj[u] lists the right nodes left node u may be matched to. Width (Dilworth) and
// Nimble's stream assignment both reduce to it.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace opsched {

class BipartiteMatching {
public:
    static constexpr std::uint32_t kFree = std::numeric_limits<std::uint32_t>::max();

    explicit BipartiteMatching(const std::vector<std::vector<std::uint32_t>>& adj);

    std::uint32_t left(std::uint32_t u) const { return matchLeft_[u]; } // right partner of u, or kFree
    std::uint32_t right(std::uint32_t v) const { return matchRight_[v]; } // left partner of v, or kFree
    std::size_t size() const { return size_; }

private:
    bool bfs();
    bool dfs(std::uint32_t u);

    const std::vector<std::vector<std::uint32_t>>& adj_;
    std::size_t n_;
    std::size_t size_ = 0;
    std::vector<std::uint32_t> matchLeft_, matchRight_, dist_;
};

} // namespace opsched
