// A mapping cut into segments for the segment runner (exec/segment_runner.h): each device's ops,
// in the mapping's order, cut into maximal runs in which only the first op waits for values from
// other devices. A segment is one subgraph on one executor, so a CUDA segment is one CUDA graph.
#pragma once

#include "graph/graph.h"

#include <cstdint>
#include <vector>

namespace opsched::exec {

struct Segment {
    std::uint32_t device = 0;
    std::vector<OpId> ops; // in run order
};

// `deviceOf[op]` is each op's device and `order[device]` that device's ops in run order (every op
// exactly once, on its own device's list). A cut goes before every op that reads a value made on
// another device which is not yet available to the device: having waited for op q of device w
// (at the start of this segment or an earlier one) makes every value w produced up to q available.
// A segment waits for its inputs once, before its first op. Segments come grouped by
// device, each device's in run order. Throws Error when an op is missing, listed twice or on
// another device's list.
std::vector<Segment> cutSegments(const Graph& graph, const std::vector<std::uint32_t>& deviceOf,
    const std::vector<std::vector<std::uint32_t>>& order);

} // namespace opsched::exec
