#include "zoo/random_graphs.h"

#include "util/error.h"
#include "util/random.h"

#include <algorithm>

namespace opsched::zoo {

UndirectedGraph erdosRenyi(int n, double p, std::uint64_t seed)
{
    if (n < 1 || !(p >= 0 && p <= 1))
        throw ModelRefError("Erdos-Renyi graph needs n >= 1 and 0 <= p <= 1");
    SplitMix64 rng(seed);
    UndirectedGraph g;
    g.nodes = n;
    for (int u = 0; u < n; ++u)
        for (int v = u + 1; v < n; ++v)
            if (rng.uniform() < p)
                g.edges.emplace_back(u, v);
    return g;
}

UndirectedGraph barabasiAlbert(int n, int m, std::uint64_t seed)
{
    if (m < 1 || n <= m)
        throw ModelRefError(
            "Barabasi-Albert graph needs n > m >= 1 (got n=" + std::to_string(n) + ", m=" + std::to_string(m) + ")");
    SplitMix64 rng(seed);
    UndirectedGraph g;
    g.nodes = n;
    std::vector<int> degree(static_cast<std::size_t>(n), 0);
    for (int v = m; v < n; ++v) {
        std::vector<int> chosen;
        while (static_cast<int>(chosen.size()) < m) {
            auto taken = [&](int u) { return std::find(chosen.begin(), chosen.end(), u) != chosen.end(); };
            // Proportional to degree; uniform while every candidate still has degree 0.
            bool anyDegree = false;
            for (int u = 0; u < v; ++u)
                anyDegree = anyDegree || (!taken(u) && degree[static_cast<std::size_t>(u)] > 0);
            auto weight
                = [&](int u) -> long { return taken(u) ? 0 : (anyDegree ? degree[static_cast<std::size_t>(u)] : 1); };
            long weightSum = 0;
            for (int u = 0; u < v; ++u)
                weightSum += weight(u);
            long pick = static_cast<long>(rng.below(static_cast<std::uint64_t>(weightSum)));
            for (int u = 0; u < v; ++u) {
                pick -= weight(u);
                if (pick < 0) {
                    chosen.push_back(u);
                    break;
                }
            }
        }
        for (int u : chosen) {
            g.edges.emplace_back(u, v);
            ++degree[static_cast<std::size_t>(u)];
            ++degree[static_cast<std::size_t>(v)];
        }
    }
    std::sort(g.edges.begin(), g.edges.end());
    return g;
}

} // namespace opsched::zoo
