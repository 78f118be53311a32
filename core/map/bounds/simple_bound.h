// The simplest lower bounds on a makespan, which every other bound builds on: the longest path with
// transfers paid and the least total work per device.
#pragma once

#include "map/problem/mapping_problem.h"

#include <cstdint>
#include <vector>

namespace opsched::map {

// finish[t][u]: the earliest task t can finish on device u, each device with room for every task
// (capacity relaxed) but every transfer paid: a predecessor q on v hands over at
// finish[q][v] + comm(q, v, u), and q's best v is taken. In any mapping t's finish is at least
// finish[t][its device]. Only tasks with in[t] count; the others are not there.
std::vector<std::vector<double>> earliestFinish(const MappingProblem& problem, const std::vector<char>& in);

// max(the longest path with transfers paid (each task's finish on each device, taking each
// predecessor's best device and its transfer; release times included, capacity ignored), the least
// total work divided by the number of devices), for the tasks in `subset` (all when empty)
// scheduled on their own.
double simpleLowerBound(const MappingProblem& problem, const std::vector<std::uint32_t>& subset = {});

} // namespace opsched::map
