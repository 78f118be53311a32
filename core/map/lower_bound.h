// Lower bounds on the optimal makespan, so that any mapping's distance from the optimum can be
// bounded without solving the whole MILP.
#pragma once

#include "map/batched_problem.h"
#include "map/mapping_problem.h"

#include <vector>

namespace opsched::map {

// max(the longest path with every task on its fastest device and free transfers (release times
// included), the least total work divided by the number of devices), for the tasks in `subset`
// (all when empty) scheduled on their own.
double simpleLowerBound(const MappingProblem& problem, const std::vector<std::uint32_t>& subset = {});

// DiviML's recursive bound over consecutive modules M_1..M_q of a topological order (G_s = M_s
// and everything after it): when every task of M_s reaches G_{s+1} and every task of G_{s+1} is
// reached from M_s,
//   LB(G_s) >= LB(M_s) + min over channel inputs I of LB(I and its descendants in G_{s+1})
//   LB(G_s) >= LB(G_{s+1}) + min over channel outputs O of LB(O and its ancestors in M_s)
// (the task of M_s that ends last feeds some channel, so everything after that channel's input
// waits for all of M_s; symmetrically for the first task of G_{s+1}). Each LB on the right is
// simpleLowerBound. Returns the largest bound found, at least simpleLowerBound of everything.
double lowerBound(const MappingProblem& problem, const std::vector<std::vector<std::uint32_t>>& modules);

// For the throughput objective: the larger of the longest chain with every op at its cheapest
// batch anywhere (each input passes every op of a path in some batch) and the least total batch
// time of every op's split over the devices, and the work bound weighted by device speed
// (speedWeightedWork in the .cpp). L / this bound bounds the throughput from above.
double batchedLowerBound(const BatchedProblem& problem);

// The same with modules cut along the topological order at narrow points (chunksAlongOrder,
// several module sizes, the best bound kept).
double lowerBound(const MappingProblem& problem);

} // namespace opsched::map
