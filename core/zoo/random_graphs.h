// Erdos-Renyi and Barabasi-Albert graphs for RandWire-style modules (the DiviML paper's ER(0.2)
// and BA(5); Watts-Strogatz is in watts_strogatz.h). Deterministic for a seed; edges u < v.
#pragma once

#include "zoo/watts_strogatz.h"

#include <cstdint>

namespace opsched::zoo {

// Every pair joined with probability p. Requires n >= 1, 0 <= p <= 1.
UndirectedGraph erdosRenyi(int n, double p, std::uint64_t seed);

// m isolated nodes, then each new node joins m distinct earlier nodes, picked with probability
// proportional to their degree (uniformly while all degrees are 0). Requires n > m >= 1.
UndirectedGraph barabasiAlbert(int n, int m, std::uint64_t seed);

} // namespace opsched::zoo
