// MILP-SPLIT: DiviML's divide and conquer. The graph is cut into a chain of modules where every
// channel crosses (module_chain.h: separators, then narrow directed cuts); each module is solved
// exactly (exact search up to kExactSearchLimit tasks, CBC beyond) for every state of the
// boundary before it (the devices of the channel outputs that feed it) and every state of the
// boundary after it (the devices of its own channel outputs), and a dynamic program joins them:
//   dp(j+1, b) = min over a of dp(j, a) + OPT(module j | entry state a, exit state b),
// each module starting once the one before has ended (its inputs arriving from the entry state's
// devices, all devices idle). The joined mapping is then evaluated whole, so modules overlap
// where their per-device orders allow.
//
// Exact, status optimal, where the paper's is: every boundary a single separator (one channel),
// every module solved to proven optimality, every state kept. Optimality can be lost (status
// feasible, with the gap to the lower bound) at a multi-channel boundary (the next module may in
// truth start before the previous ends), where a boundary has more states than are kept, or
// where a module solve stops on the time limit. In those cases the joined mapping, the best list
// heuristic, the EA's and SA's mappings are each polished by a local search and the best is kept.
#pragma once

#include "map/problem/map_result.h"

namespace opsched::map {

MapResult mapMilpSplit(const MappingProblem& problem, const MapperOptions& options);

} // namespace opsched::map
