// An exact branch and bound for small mapping problems (MILP-SPLIT's modules): it builds every
// schedule in which each task starts as early as its device and inputs allow, appending tasks in
// order of start time (ties by index, so each schedule is built once), and prunes with chain
// bounds taken device by device (a task's earliest completion on each device, its inputs'
// transfers there and its successors' chain from there included) and load bounds (convex
// combinations of the devices' next free moments plus remaining loads, a few weightings). It
// answers the same question as the MILP, on the same model, and is checked against it and
// against exhaustive search; on modules of a dozen tasks it takes milliseconds where CBC takes
// seconds.
#pragma once

#include "map/problem/map_result.h"

namespace opsched::map {

// Tasks above which the search is not offered by default (MILP-SPLIT uses the MILP beyond), and
// the most it takes at all.
inline constexpr std::size_t kExactSearchMaxTasks = 16;
inline constexpr std::size_t kExactSearchLimit = 64;

// Status optimal when the search finished (the result is then optimal, or, with a cutoff, proven
// not to beat it: cutoffProven), timeout when the time limit or MapperOptions::maxNodes stopped it
// (best found so far; the node limit gives the same answer however loaded the machine is).
// Throws Error when the problem has more than kExactSearchLimit tasks or no feasible mapping.
MapResult mapExactSearch(const MappingProblem& problem, const MapperOptions& options);

// The search's lower bound on the makespan before it branches (chain, load and device-window
// bounds): what a module's proven optimum is replaced by where its search did not finish.
double exactSearchRootBound(const MappingProblem& problem);

// A proven lower bound at least the root's: the largest target (bisecting between the root bound
// and `upTo`, infinity: the list heuristics' makespan) that searches with it as their cutoff, at
// most `nodesPerProbe` nodes each, prove no schedule beats; the optimum when a probe finishes with
// one below its target. Up to `probes` searches, while `nodeBudget` (when given) lasts, less the
// nodes they visit; the same answer on any machine.
double exactSearchProvenBound(const MappingProblem& problem, double upTo, std::uint64_t nodesPerProbe, int probes,
    std::uint64_t* nodeBudget = nullptr);

} // namespace opsched::map
