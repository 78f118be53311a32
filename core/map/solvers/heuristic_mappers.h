// The baselines the DiviML paper compares against, each a complete mapper (device per task and
// order per device). All respect device memory and missing links; they throw Error when they find
// no feasible mapping.
#pragma once

#include "map/problem/map_result.h"
#include "util/random.h"

namespace opsched::map {

// bd: every task on the single device that runs the whole graph fastest (and holds it).
MapResult mapBestDevice(const MappingProblem& problem);
// met: each task on the device where it runs fastest, ignoring communication (Minimum Execution Time).
MapResult mapMinimumExecutionTime(const MappingProblem& problem);
// greedy: tasks in breadth-first order, each on the device that keeps the makespan so far lowest
// (then the earliest finish), appended to that device's order.
MapResult mapGreedy(const MappingProblem& problem);
// heft: upward ranks over mean costs, then each task on the device giving the earliest finish,
// inserted into the first idle gap that fits (Topcuoglu et al.).
MapResult mapHeft(const MappingProblem& problem);
// sa: simulated annealing over device strings, breadth-first order, from a seeded random string.
MapResult mapSimulatedAnnealing(const MappingProblem& problem, const MapperOptions& options);
// ea: the biased (1+1) EA: starts from every task on its fastest device, mutates each gene with
// probability 1/n, keeps the child when it is no worse.
MapResult mapEvolutionary(const MappingProblem& problem, const MapperOptions& options);

// The best of bd, met, greedy and heft: a quick upper bound (the MILP's big-M and start).
MapResult bestListHeuristic(const MappingProblem& problem);

// The EA's mutation (the paper's biased (1+1) EA): each of the n tasks moves to another of the k
// devices with probability 1/n, and one does when none did. k must be at least 2.
void mutateDevices(std::vector<std::uint32_t>& device, std::size_t k, SplitMix64& rng);

} // namespace opsched::map
