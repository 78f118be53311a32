// MILP-SPLIT's modules, as DiviML finds them: a task graph cut into a chain of blocks where every
// channel crosses. Separators (modules.h) always cut: one task carries everything across, the
// single-channel case. A stretch between separators larger than the module cap is cut again at
// its narrowest directed cuts: a set A closed under predecessors whose tasks with a successor
// outside A (the channel outputs, whose devices the next block sees) are as few as possible,
// found by a max-flow. On a stack of C-channel RWNN modules that is the C edges between modules:
// the boundaries of the (C+1)-edge-connected components the paper computes.
#pragma once

#include "graph/dag.h"

#include <cstdint>
#include <vector>

namespace opsched::map {

struct ModuleChain {
    // Blocks in order; each in topological order; every task in exactly one. Every edge goes
    // from a block to the same or a later one.
    std::vector<std::vector<std::uint32_t>> blocks;
    // boundary[j], j = 0..blocks.size(): the tasks of blocks 0..j-1 with a successor in block j or
    // later (the channel outputs crossing that boundary); boundary[0] and the last are empty.
    std::vector<std::vector<std::uint32_t>> boundary;
    // separatorJoin[j]: boundary j is a single separator, so nothing of blocks before it runs
    // after it starts; joining the blocks there loses nothing (the paper's exact case).
    std::vector<bool> separatorJoin;
};

// The chain for `dag`, blocks of at most maxTasks tasks where a narrow cut allows it (a stretch
// with no narrow cut within the cap is cut where the fewest channel outputs cross).
ModuleChain moduleChain(const Dag& dag, std::size_t maxTasks);

// Cuts `tasks` (in topological order, closed in the sense that no path leaves and re-enters them)
// into consecutive blocks of at most maxTasks, each ending at a cut with the fewest channel
// outputs among the down-sets holding at least the first maxTasks/2 tasks' ancestors; among those,
// the largest.
std::vector<std::vector<std::uint32_t>> narrowCutBlocks(
    const Dag& dag, const std::vector<std::uint32_t>& tasks, std::size_t maxTasks);

// The tasks of `blocks` (consecutive in that order) with a successor after block j, per j.
std::vector<std::vector<std::uint32_t>> chainBoundaries(
    const Dag& dag, const std::vector<std::vector<std::uint32_t>>& blocks);

} // namespace opsched::map
