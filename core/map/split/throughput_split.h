// MILP-SPLIT for the throughput objective (DiviML section V-C): the graph is cut at its
// separators (modules.h) and a dynamic program over them joins pieces, as for latency, but the
// state at a separator is its split of the L inputs over the devices (throughput_problem.h) instead
// of one device:
//   dp(sep_k+1, b) = min over a of dp(sep_k, a) + piece(segment k+1 | entry split a, exit split b).
// Only the four cheapest splits of a separator (or one per device, if more) are carried into the
// next segment. A piece is priced as if its entry separator's batches had all finished when it
// starts (a barrier), by single-op split moves from two starts, each split assignment evaluated
// with the better of two device orders (breadth-first, earliest start). The chosen pieces are
// joined (each device's order is theirs one after the other) and evaluated without barriers
// (never slower than the DP's sum: the same orders, each batch as early as it can), polished by
// single-op moves and the (1+1) EA, and windows of consecutive pieces are solved again by the
// batched MILP (throughput_milp.h; entry split fixed, exit split fixed where a later piece builds
// on it), each kept when the whole mapping gets no slower; the best of that, the list heuristics,
// SA and EA (run first, as they run on their own) is the result. Pieces are priced over whole
// splits; the polish may also pick pipelined ones (throughput_problem.h). All of it but the bound
// stops at 70% of the time limit.
//
// Where optimality is lost, unlike latency: a barrier is exact only where the separator runs all L
// inputs on one device (then every later batch needs it and it needs every earlier one); pieces
// are priced by local search, not proven; multi-channel graphs have few separators, so their
// segments are long and are searched, not solved (the MILP only takes pieces under its row limit).
// The status is therefore feasible, with the gap to the throughput lower bound.
#pragma once

#include "map/problem/map_result.h"

namespace opsched::map {

ThroughputResult mapThroughputMilpSplit(const ThroughputProblem& problem, const MapperOptions& options);

} // namespace opsched::map
