// A bare directed graph over nodes 0..n-1. The graph algorithms work on this so that they can be
// tested on any DAG, and the op graph hands one out (node i is OpId i).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace opsched {

struct Dag {
    std::vector<std::vector<std::uint32_t>> successors; // sorted, no duplicates
    std::vector<std::vector<std::uint32_t>> predecessors; // sorted, no duplicates

    std::size_t size() const { return successors.size(); }
    std::size_t edgeCount() const;

    // Duplicate edges are dropped; self loops are kept so that cycle checks see them.
    static Dag fromEdges(std::size_t n, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& edges);
};

// Kahn's algorithm; among ready nodes the smallest index goes first, so the order is stable.
// Returns nothing when the graph has a cycle.
std::optional<std::vector<std::uint32_t>> topologicalOrder(const Dag& dag);

// One cycle as a node sequence (first node not repeated), or empty when the graph is acyclic.
std::vector<std::uint32_t> findCycle(const Dag& dag);

} // namespace opsched

namespace opsched {

// The subgraph on `nodes` (renumbered 0..k-1 in the given order), keeping edges between them.
Dag inducedSubgraph(const Dag& dag, const std::vector<std::uint32_t>& nodes);

// Heaviest path by node weights; `path`, when given, receives its nodes in order.
double longestPath(const Dag& dag, const std::vector<double>& weights, std::vector<std::uint32_t>* path = nullptr);

} // namespace opsched
