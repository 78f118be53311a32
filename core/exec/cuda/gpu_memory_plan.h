// Where every value of a plan lives in the GPU executor's arena, safe under concurrency. The
// values, views and in-place slices are the CPU executor's (exec/cpu/tensor_layout.h: concat
// producers write into channel slices of the concat buffer, merged launches into one stack); only
// the placement of root blocks differs. On one CPU stream, time steps order everything; on several
// CUDA streams two launches far apart in launch order may still run together. So two root blocks
// share bytes only when every launch touching one is ordered before every launch touching the
// other by the plan's happens-before (stream order, waits, barriers): reuse only when ordered.
// Pure host logic: built and tested without a GPU.
#pragma once

#include "exec/cpu/tensor_layout.h"
#include "util/bitset.h"

#include <cstdint>
#include <string>
#include <vector>

namespace opsched::gpu {

enum class ArenaReuse : std::uint8_t {
    WhenOrdered, // the executor's plan: blocks share bytes when the plan orders their uses
    Never, // every root its own bytes (timing stages out of plan order)
};

// Launches that read or write a block. The graph inputs are written before the first launch and
// the outputs read after the last one (the copies around each replay).
struct Touches {
    DynamicBitset launches;
    bool beforeAll = false; // written by the input copy
    bool afterAll = false; // read by the output copy
};

class GpuMemoryPlan {
public:
    GpuMemoryPlan(const Graph& graph, const Plan& plan, const cpu::TensorLayout& layout,
        ArenaReuse reuse = ArenaReuse::WhenOrdered);

    // Bytes from the arena's start to the value's first byte (layout value index).
    std::int64_t offset(int value) const { return offsets_[static_cast<std::size_t>(value)]; }
    std::int64_t arenaBytes() const { return arenaBytes_; }
    std::size_t rootCount() const { return roots_.size(); }

    // Pairs of values that share bytes although they may be in use at the same time (neither
    // nested in the other, nor ordered), as messages; empty when the placement is safe. Checked
    // value by value, independently of how roots were placed.
    std::vector<std::string> conflicts() const;

private:
    bool ordered(const Touches& a, const Touches& b) const; // every use of a before every use of b

    const cpu::TensorLayout& layout_;
    std::vector<DynamicBitset> before_;
    std::vector<Touches> touches_; // per value
    std::vector<int> roots_; // root value indices
    std::vector<std::int64_t> offsets_; // per value
    std::int64_t arenaBytes_ = 0;
};

} // namespace opsched::gpu
