// Watts-Strogatz small-world graphs, turned into DAGs the way RandWire does (edges point from the
// lower to the higher node index).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace opsched::zoo {

struct UndirectedGraph {
    int nodes = 0;
    std::vector<std::pair<int, int>> edges; // u < v, no duplicates
};

// Ring of n nodes, each joined to its k/2 nearest neighbours on either side; then every edge
// (u, u+j) is rewired with probability p to a random node u is not yet joined to.
// Deterministic for a given seed. Requires n > k >= 2, k even, 0 <= p <= 1.
UndirectedGraph wattsStrogatz(int n, int k, double p, std::uint64_t seed);

} // namespace opsched::zoo
