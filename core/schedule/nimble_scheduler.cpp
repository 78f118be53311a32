#include "schedule/nimble_scheduler.h"

#include "graph/bipartite_matching.h"
#include "graph/transitive_reduction.h"

#include <algorithm>
#include <chrono>

namespace opsched {

Plan nimblePlan(const Graph& graph, NimbleStats* stats)
{
    const auto started = std::chrono::steady_clock::now();
    const std::size_t n = graph.opCount();

    // Steps 1-3: the MEG's successor lists are exactly the bipartite adjacency (left u -> right v).
    const Dag meg = transitiveReduction(graph.dag());
    const BipartiteMatching matching(meg.successors);

    const auto order = graph.topologicalOrder();
    constexpr std::uint32_t kNone = ~0U;
    std::vector<std::uint32_t> launchOf(n, kNone);
    std::vector<std::uint32_t> streamOf(n, kNone);

    // Steps 4-5: a matched edge p -> v puts v on p's stream, so every stream is one chain of
    // matched edges. Walking in topological order, a chain's head (no matched predecessor) opens a
    // new stream, which numbers streams in order of first launch.
    Plan plan;
    plan.launches.reserve(n);
    std::uint32_t streams = 0;
    std::size_t syncs = 0;
    for (const OpId id : order) {
        const std::uint32_t v = id.value();
        const std::uint32_t p = matching.right(v);
        streamOf[v] = p == BipartiteMatching::kFree ? streams++ : streamOf[p];

        Launch launch { { id }, StreamId(streamOf[v]), {} };
        // Only MEG edges need enforcing: a G edge not in the MEG is implied by a path of MEG edges,
        // and a MEG edge within a stream joins consecutive launches (stream order covers it).
        for (const auto u : meg.predecessors[v])
            if (streamOf[u] != streamOf[v])
                launch.waitFor.push_back(launchOf[u]);
        std::sort(launch.waitFor.begin(), launch.waitFor.end());
        syncs += launch.waitFor.size();

        launchOf[v] = static_cast<std::uint32_t>(plan.launches.size());
        plan.launches.push_back(std::move(launch));
    }
    plan.streams = std::max<std::uint32_t>(streams, 1); // an empty graph still gets a stream

    if (stats) {
        stats->streams = streams;
        stats->syncs = syncs;
        stats->megEdges = meg.edgeCount();
        stats->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    }
    return plan;
}

} // namespace opsched
