#include "zoo/watts_strogatz.h"

#include "util/error.h"
#include "util/random.h"

#include <algorithm>
#include <set>

namespace opsched::zoo {

UndirectedGraph wattsStrogatz(int n, int k, double p, std::uint64_t seed)
{
    if (k < 2 || k % 2 != 0 || n <= k || !(p >= 0.0 && p <= 1.0))
        throw ModelRefError("Watts-Strogatz needs n > k >= 2 with k even and 0 <= p <= 1");
    std::vector<std::set<int>> adj(static_cast<std::size_t>(n));
    auto link = [&](int a, int b) {
        adj[static_cast<std::size_t>(a)].insert(b);
        adj[static_cast<std::size_t>(b)].insert(a);
    };
    auto unlink = [&](int a, int b) {
        adj[static_cast<std::size_t>(a)].erase(b);
        adj[static_cast<std::size_t>(b)].erase(a);
    };
    for (int u = 0; u < n; ++u)
        for (int j = 1; j <= k / 2; ++j)
            link(u, (u + j) % n);

    SplitMix64 rng(seed);
    for (int j = 1; j <= k / 2; ++j) {
        for (int u = 0; u < n; ++u) {
            const int v = (u + j) % n;
            if (!adj[static_cast<std::size_t>(u)].count(v) || rng.uniform() >= p)
                continue;
            const auto& mine = adj[static_cast<std::size_t>(u)];
            if (static_cast<int>(mine.size()) >= n - 1)
                continue; // u already reaches everyone
            std::vector<int> candidates;
            for (int w = 0; w < n; ++w)
                if (w != u && !mine.count(w))
                    candidates.push_back(w);
            const int w = candidates[static_cast<std::size_t>(rng.below(candidates.size()))];
            unlink(u, v);
            link(u, w);
        }
    }

    UndirectedGraph g;
    g.nodes = n;
    for (int u = 0; u < n; ++u)
        for (int v : adj[static_cast<std::size_t>(u)])
            if (u < v)
                g.edges.emplace_back(u, v);
    return g;
}

} // namespace opsched::zoo
