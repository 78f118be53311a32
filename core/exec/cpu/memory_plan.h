// Offline placement of buffers in one arena: each block is live over an interval of time steps
// (inclusive), and blocks whose intervals overlap get disjoint byte ranges. Greedy by size with a
// best-fit gap search (TFLite's "greedy by size"): large blocks first, each in the smallest gap
// left among the blocks already placed that are live at the same time.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace opsched::cpu {

inline constexpr std::int64_t kArenaAlignment = 64; // a cache line, and oneDNN's preferred alignment

struct Block {
    std::int64_t bytes = 0;
    std::uint32_t first = 0; // first time step it is live
    std::uint32_t last = 0; // last time step it is live (inclusive)
};

struct Placement {
    std::vector<std::int64_t> offsets; // per block, multiples of kArenaAlignment
    std::int64_t peakBytes = 0; // arena size
};

Placement placeBlocks(const std::vector<Block>& blocks);

// The same greedy placement for any relation that says which blocks must not share bytes (the GPU
// executor's: may run at the same time on different streams). Largest first, ties by index.
Placement placeBlocks(
    const std::vector<std::int64_t>& bytes, const std::function<bool(std::size_t, std::size_t)>& conflict);

// Every pair of blocks that are live at the same time and share bytes, as messages; empty when the
// placement is valid.
std::vector<std::string> placementConflicts(const std::vector<Block>& blocks, const Placement& placement);

} // namespace opsched::cpu
