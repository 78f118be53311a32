// A local search over whole schedules: each task's device AND the order the devices run them in
// (a priority list, kept topological), evaluated whole by evaluate(). SA and the EA search device
// strings under one fixed breadth-first order, and MILP-SPLIT's polish keeps the order it is given;
// on modules of about 30 tasks, where the order decides which transfers overlap with work, this
// finds mappings several percent better than either in a fraction of a second. The exact search
// starts from it on problems too large to prove in milliseconds.
#pragma once

#include "map/problem/map_result.h"
#include "map/problem/throughput_problem.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace opsched::map {

// Simulated annealing from `start` (feasible) over three moves: the EA's mutation (each task to
// another device with probability 1/n), one task to another device, or one task to another place
// in the priority list between its last input and its first consumer. Runs
// `evaluations` evaluations (deterministic for a seed) and returns the best mapping met, never
// worse than `start`. With `seconds` > 0 it also stops when that much wall time has passed (the
// answer then depends on the machine's speed).
MapResult improveOrderAndDevices(const MappingProblem& problem, const MapResult& start, std::uint64_t evaluations,
    std::uint64_t seed, double seconds = 0);

// The same over throughput mappings: each task's split (pipelined ones included) and the priority
// list that orders the devices' batches by earliest start (throughputEarliestStart), judged by
// throughputMakespan, from `split` and `priority`. Returns the best mapping met when it is shorter
// than `startMakespan`, else nothing.
std::optional<ThroughputMapping> improveThroughputOrder(const ThroughputProblem& problem,
    std::vector<std::uint32_t> split, std::vector<std::uint32_t> priority, double startMakespan,
    std::uint64_t evaluations, std::uint64_t seed, double seconds = 0);

} // namespace opsched::map
