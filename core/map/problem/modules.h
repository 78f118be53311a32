// How MILP-SPLIT and the lower bound cut a task graph into modules.
//
// A separator is a task every other task either precedes or follows, with no edge jumping from
// its ancestors to its descendants (the endpoints of a bridge, an articulation point every path
// crosses). Between two consecutive separators lies a segment:
// it starts once the first separator has finished, with every device idle, and ends before the
// second starts, so segments can be solved one by one and joined exactly (single channel).
// Segments larger than a module are cut again at narrow directed cuts (module_chain.h);
// chunksAlongOrder cuts along a topological order instead (the relaxation-based bound uses it).
#pragma once

#include "map/problem/mapping_problem.h"

#include <cstdint>
#include <vector>

namespace opsched::map {

struct Segment {
    std::int64_t entry = -1; // the separator before it (-1: the graph's start)
    std::int64_t exit = -1; // the separator after it, part of the segment (-1: the end)
    std::vector<std::uint32_t> inner; // tasks strictly between the two, topological order
};

// Separators in topological order.
std::vector<std::uint32_t> separators(const Dag& dag);

// The segments between consecutive separators, in order; every task is in exactly one segment
// (as an inner task or as a segment's exit).
std::vector<Segment> segmentsBetweenSeparators(const Dag& dag);

// Cuts `tasks` (given in topological order) into consecutive chunks of at most `maxTasks`
// (at least half of it where possible), each cut where the fewest edges cross it.
std::vector<std::vector<std::uint32_t>> chunksAlongOrder(
    const Dag& dag, const std::vector<std::uint32_t>& tasks, std::size_t maxTasks);

// The problem restricted to `tasks` (renumbered 0..k-1 in that order), with release times.
MappingProblem subproblem(
    const MappingProblem& problem, const std::vector<std::uint32_t>& tasks, std::vector<std::vector<double>> release);

} // namespace opsched::map
