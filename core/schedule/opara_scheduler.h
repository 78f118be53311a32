// Opara (Chen et al., "Opara: Exploiting Operator Parallelism for Expediting DNN Inference on
// GPUs", Section 3): streams from Algorithm 1, launch order from Algorithm 2, replayed as one CUDA
// graph (Section 3.4), so the plan has no barriers.
//
// Algorithm 1 walks the ops in topological order; an op joins the stream of the first of its
// predecessors that has not yet handed its stream to another successor (the paper's "v is the
// first successor of p", as the authors' StreamAllocator implements it), else it opens a new
// stream. Every stream is therefore a path of graph edges: ops no path joins never share one.
//
// Algorithm 2 keeps the ready ops in two lists, memory-intensive and compute-intensive, takes the
// lists in turn (skipping an empty one) and launches the op of the chosen list that asks for the
// fewest GPU resources. Opara reads both from profiles; here they come from the device model:
// an op is memory-intensive when its memory-bound kernels take most of its solo time, and its
// demand is the most warps one of its kernels occupies at once.
#pragma once

#include "plan/plan.h"
#include "sim/sim_device.h"

#include <cstddef>
#include <vector>

namespace opsched {

struct OparaStats {
    std::size_t streams = 0; // streams Algorithm 1 launched
    std::size_t syncs = 0; // cross-stream waits in the plan
    double seconds = 0; // time oparaPlan took
};

// What Algorithm 2 needs to know about one op.
struct OparaOpProfile {
    bool launchesKernels = true; // false for views (a plain concat): no resources, no interference
    bool memoryIntensive = false;
    double demand = 0; // warps of the device its largest kernel occupies
};

// Algorithm 1: the stream of every op (indexed by op id), numbered in order of first use.
std::vector<StreamId> oparaStreams(const Graph& graph);

// The device model's view of every op (indexed by op id).
std::vector<OparaOpProfile> oparaProfile(const Graph& graph, const SimDevice& device);

// Algorithm 2: the launch order, a topological order. The first turn goes to the memory-intensive
// list; ties in demand go to the lower op id. Ops that launch no kernel go as soon as they are
// ready and take no turn.
std::vector<OpId> oparaLaunchOrder(const Graph& graph, const std::vector<OparaOpProfile>& profile);

// Launches `order` (a topological order) with op v on streamOf[v]. A dependency becomes a wait
// only across streams, and only when earlier waits and stream order do not already imply it.
Plan planOnStreams(const Graph& graph, const std::vector<StreamId>& streamOf, const std::vector<OpId>& order);

// The whole of Opara: Algorithm 1's streams, Algorithm 2's order on `device`.
Plan oparaPlan(const Graph& graph, const SimDevice& device, OparaStats* stats = nullptr);

} // namespace opsched
