// The throughput objective's heuristics (DiviML's batched baselines): each chooses a split of the
// L inputs per op (throughput_problem.h) and an order per device. They throw Error when they find
// no feasible mapping; the registry (registry/mappers.h) validates the problem first.
#pragma once

#include "map/problem/map_result.h"

#include <optional>
#include <vector>

namespace opsched::map {

// bd: all L inputs on the single best device.
ThroughputResult mapThroughputBestDevice(const ThroughputProblem& problem, const MapperOptions& options);
// met: each op's split with the smallest longest batch, ignoring transfers.
ThroughputResult mapThroughputMinimumExecutionTime(const ThroughputProblem& problem, const MapperOptions& options);
// greedy: breadth-first, each op's split that keeps the makespan so far lowest.
ThroughputResult mapThroughputGreedy(const ThroughputProblem& problem, const MapperOptions& options);
// heft: ops by upward rank (mean cost of all L inputs), each with the split that finishes earliest.
ThroughputResult mapThroughputHeft(const ThroughputProblem& problem, const MapperOptions& options);
// sa, ea: over split strings, breadth-first order (ea from met's splits).
ThroughputResult mapThroughputAnnealing(const ThroughputProblem& problem, const MapperOptions& options);
ThroughputResult mapThroughputEvolutionary(const ThroughputProblem& problem, const MapperOptions& options);

// The best of the list heuristics bd, met, greedy and heft (those that find a mapping), or none:
// where the MILPs start from and what milp-split must beat.
std::optional<ThroughputResult> bestListHeuristic(const ThroughputProblem& problem, const MapperOptions& options);

// The biased (1+1) EA of `ea` started from `from` (splits per task; breadth-first device orders),
// within options' iterations and time limit: how MILP-SPLIT polishes its joined pieces.
ThroughputResult improveThroughputSplits(
    const ThroughputProblem& problem, const MapperOptions& options, const std::vector<std::uint32_t>& from);

} // namespace opsched::map
