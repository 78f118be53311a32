// DiviML's lower bound for the throughput objective (Section IV-B2, "extended to the batched
// throughput scenario ... with L - b + 1"): the recursion over consecutive modules of the latency
// bound, where each term bounds the time to push some number of the L inputs through a part of
// the graph.
//
// For a part S of the graph and x inputs, LB(S, x) = max(the chain one input passes through S:
// each op at its cheapest batch anywhere, transfers of at least its own result paid; x times the
// work bound per input: for device weights w summing to 1, sum over S of min_u w_u r(i,u), r the
// cheapest cost per input over the batch sizes). With modules M_1..M_q cut along a topological
// order and G_s = M_s and everything after, F_s(x) bounds the time x inputs take through G_s:
//
//   F_s(x) >= LB(M_s, b) + F'_{s+1}(x - b + 1)      for every b in 1..x
//   F_s(x) >= LB(P_s, x - b + 1) + F_{s+1}(b)        for every b in 1..x
//
// Why: order the inputs by when they finish M_s; the b-th finishes no earlier than LB(M_s, b)
// (b inputs have been through all of M_s), and the L - b + 1 inputs from it on each still pass
// through C_s after that, C_s being the ops of G_{s+1} reached from every op of M_s that ends a
// chain there (an input's last op in M_s is one of those). F'_{s+1} is F_{s+1} where C_s is all
// of G_{s+1} (a single channel), LB(C_s, .) otherwise. Symmetrically P_s, the ops of M_s that
// reach every first op of G_{s+1}, is done for an input before it starts G_{s+1}. The paper takes
// b among the batch sizes; the argument holds for every b, so opsched takes them all.
#pragma once

#include "map/problem/throughput_problem.h"

#include <cstdint>
#include <vector>

namespace opsched::map {

// F_1(L) over these modules (consecutive parts of a topological order covering every task once).
double throughputRecursiveBound(
    const ThroughputProblem& problem, const std::vector<std::vector<std::uint32_t>>& modules);

// The largest recursive bound over several cuts: the segments between separators, and chunks
// of a topological order of a few sizes.
double throughputRecursiveBound(const ThroughputProblem& problem);

} // namespace opsched::map
