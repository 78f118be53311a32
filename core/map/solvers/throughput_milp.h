// The throughput MILP (DiviML's batched formulation, over opsched's splits): binaries z[i][s]
// (op i uses split s), a start per op and device, the makespan; a batch waits for every
// overlapping batch of a predecessor (and its transfer) when both splits are chosen; one batch
// at a time per device (a binary order per pair of ops, big-M from the start's makespan);
// memory per device. Solved by CBC from the best batched heuristic. Small problems only: the
// dependency rows grow with splits^2 x devices^2 per edge (refused beyond 200,000).
#pragma once

#include "map/problem/map_result.h"

#include <cstdint>
#include <vector>

namespace opsched::map {

// fixedSplit: empty, or per task the split it must keep (-1: free); MILP-SPLIT fixes the
// separators of a piece this way. The start must respect it.
ThroughputResult mapThroughputMilp(const ThroughputProblem& problem, const MapperOptions& options,
    const ThroughputResult& start, const std::vector<std::int64_t>& fixedSplit = {});

// The dependency rows that MILP would have (it refuses more than kThroughputMilpMaxRows).
std::size_t throughputMilpRows(const ThroughputProblem& problem, const std::vector<std::int64_t>& fixedSplit = {});
inline constexpr std::size_t kThroughputMilpMaxRows = 200000;

} // namespace opsched::map
