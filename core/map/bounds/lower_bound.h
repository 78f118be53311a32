// Lower bounds on the optimal makespan, so that any mapping's distance from the optimum can be
// bounded without solving the whole MILP.
#pragma once

#include "map/bounds/module_bound.h"
#include "map/bounds/simple_bound.h"
#include "map/problem/mapping_problem.h"
#include "map/problem/throughput_problem.h"

#include <vector>

namespace opsched::map {

// simpleLowerBound: simple_bound.h.

// DiviML's recursive bound over consecutive modules M_1..M_q of a topological order (G_s = M_s
// and everything after it): when every task of M_s reaches G_{s+1} and every task of G_{s+1} is
// reached from M_s,
//   LB(G_s) >= LB(M_s) + min over channel inputs I of LB(I and its descendants in G_{s+1})
//   LB(G_s) >= LB(G_{s+1}) + min over channel outputs O of LB(O and its ancestors in M_s)
// (the task of M_s that ends last feeds some channel, so everything after that channel's input
// waits for all of M_s; symmetrically for the first task of G_{s+1}). Each LB on the right is
// simpleLowerBound. Returns the largest bound found, at least simpleLowerBound of everything.
double lowerBound(const MappingProblem& problem, const std::vector<std::vector<std::uint32_t>>& modules);

// For the throughput objective: the largest of the longest chain one input passes (every op at
// its cheapest batch anywhere, transfers of at least that input's result paid), the least total
// batch time of every op's split over the devices, and the work bound weighted by device speed
// (each op's inputs at their cheapest cost per input), also after the largest heads and before
// the largest tails (as for latency). L / this bound bounds the throughput from above.
double throughputLowerBound(const ThroughputProblem& problem);

// The largest of simpleLowerBound, the recursive bound with modules cut along the topological
// order at narrow points (chunksAlongOrder, several module sizes), and a work bound weighted by
// device speed: for weights w on the devices summing to 1 the makespan is at least
// sum_i min_u w_u t(i,u), and for a set S of tasks at least the earliest start in S (or the least
// tail after S) plus S's weighted work, S being the tasks with the latest starts (longest tails);
// and the paper's recursion with the optimum of each module (moduleChainLowerBound, with
// `probeNodes` for its probes: ModuleBoundOptions').
double lowerBound(const MappingProblem& problem, std::uint64_t probeNodes = ModuleBoundOptions {}.probeNodes);

} // namespace opsched::map
