// Nimble's stream assignment (Kwon et al., NeurIPS 2020, Section 4.2, Algorithm 1): take the
// minimum equivalent graph (MEG) of the op DAG, find a maximum matching of the bipartite graph
// with an edge (u_left, v_right) per MEG edge, and run each chain of matched edges on one stream.
// Ops no path joins never share a stream (maximum logical concurrency), and among all such
// assignments this one needs the fewest cross-stream waits: |MEG edges| - |matching| (Theorems
// 1-4). Nimble replays the result as one CUDA graph, so the plan has no barriers.
#pragma once

#include "plan/plan.h"

#include <cstddef>

namespace opsched {

struct NimbleStats {
    std::size_t streams = 0; // n - |maximum matching|
    std::size_t syncs = 0; // cross-stream waits: MEG edges whose ends are on different streams
    std::size_t megEdges = 0; // edges of the minimum equivalent graph
    double seconds = 0; // time nimblePlan took
};

// Launches in the graph's topological order; streams are numbered in order of first launch; a
// launch waits only for its MEG predecessors on other streams.
Plan nimblePlan(const Graph& graph, NimbleStats* stats = nullptr);

} // namespace opsched
