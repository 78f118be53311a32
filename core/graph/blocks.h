// Blocks: the graph cut at ops that every path passes through (each such op is comparable with all
// others). The cut op must run after everything before it and before everything after it, so
// scheduling block by block only gives up stages that chain ops across the cut; the IOS search
// runs per block, as the IOS paper does.
#pragma once

#include "graph/dag.h"
#include "graph/reachability.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace opsched {

struct Block {
    std::vector<std::uint32_t> nodes; // in topological order
    std::optional<std::uint32_t> exit; // the cut node that closes the block (its last node)
    std::size_t width = 0; // width of the block's own subgraph
};

struct BlockPartition {
    std::vector<std::uint32_t> cutNodes; // in topological order
    std::vector<Block> blocks; // cover every node exactly once, in order

    const Block* largest() const; // most nodes
};

// A run of consecutive single-node segments (a plain chain such as a network's stem) is kept as
// one block, so the block count reads like the paper's.
BlockPartition findBlocks(const Dag& dag, const Reachability& reach);
BlockPartition findBlocks(const Dag& dag);

} // namespace opsched

namespace opsched {

// Splits a block (nodes in topological order) into consecutive parts of at most `maxNodes`,
// cutting where the fewest nodes before the cut still feed nodes after it (a NASNet cell output,
// say). Running the parts one after another is always legal; it gives up concurrency across a cut
// only, and keeps the IOS search tractable on graphs with no single-op cut points.
std::vector<std::vector<std::uint32_t>> splitIntoParts(
    const Dag& dag, const std::vector<std::uint32_t>& nodes, std::size_t maxNodes);

} // namespace opsched
