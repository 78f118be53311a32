// Mappers for the throughput objective (DiviML's batched baselines and its MILP): the same names
// as the latency mappers, each choosing a split of the L inputs per op (throughput_problem.h) and an
// order per device.
#pragma once

#include "map/problem/map_result.h"
#include "map/problem/throughput_problem.h"

#include <limits>
#include <optional>
#include <string_view>

namespace opsched::map {

struct ThroughputResult {
    std::string mapper;
    ThroughputMapping mapping;
    ThroughputTimes times;
    double solveSeconds = 0;
    SolveStatus status = SolveStatus::Heuristic;
    double gap
        = std::numeric_limits<double>::quiet_NaN(); // milp: to the solver's bound; milp-split: to the lower bound
    std::string note; // milp-split: what the pieces and the polish did
};

// bd: all L inputs on the single best device. met: each op's split with the smallest longest
// batch, ignoring transfers. greedy: breadth-first, each op's split that keeps the makespan so
// far lowest. heft: ops by upward rank (mean cost of all L inputs), each with the split that
// finishes earliest. sa, ea: over split strings, breadth-first order (ea from met's splits).
// milp: the batched MILP (throughput_milp.h) from the best of bd, met, greedy and heft. milp-split:
// throughput_split.h. Throws Error for unknown names and when no feasible mapping is found.
ThroughputResult runThroughputMapper(
    std::string_view name, const ThroughputProblem& problem, const MapperOptions& options);

// The best of the list heuristics bd, met, greedy and heft (those that find a mapping), or none:
// where the MILPs start from and what milp-split must beat.
std::optional<ThroughputResult> bestListHeuristic(const ThroughputProblem& problem, const MapperOptions& options);

// The biased (1+1) EA of `ea` started from `from` (splits per task; breadth-first device orders),
// within options' iterations and time limit: how MILP-SPLIT polishes its joined pieces.
ThroughputResult improveThroughputSplits(
    const ThroughputProblem& problem, const MapperOptions& options, const std::vector<std::uint32_t>& from);

} // namespace opsched::map
