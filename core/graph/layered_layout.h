// A Sugiyama-style layered drawing of a DAG, top to bottom, for the DAG view (no Graphviz):
//   1. layers by longest path from the sources (a source with successors then moves down to just
//      above its first successor, so inputs and constants do not drag long edges from the top);
//   2. edges spanning several layers get one virtual point per layer in between;
//   3. crossings are reduced by barycenter sweeps (down, then up), keeping the best order seen, so
//      the result never has more crossings than the initial (depth-first) order;
//   4. x coordinates: per layer, every point moves towards the median of its neighbours in the
//      adjacent layer, weighted by priority (virtual points highest, to keep long edges straight),
//      under the order and minimum spacing constraints (solved exactly by pool-adjacent-violators).
// Deterministic: the same DAG and options give the same layout.
#pragma once

#include "graph/dag.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace opsched {

struct LayeredLayoutOptions {
    double nodeWidth = 160; // every node is a nodeWidth x nodeHeight box
    double nodeHeight = 36;
    double nodeGap = 28; // horizontal space between boxes of a layer
    double edgeGap = 12; // horizontal space reserved around a virtual point
    double layerGap = 56; // vertical space between layers
    int crossingSweeps = 12; // down+up barycenter sweep pairs (stops early when nothing improves)
    int placementSweeps = 8; // down+up x placement sweep pairs
};

struct LayoutPoint {
    double x = 0;
    double y = 0;
    friend bool operator==(const LayoutPoint&, const LayoutPoint&) = default;
};

struct LayoutNode {
    std::uint32_t layer = 0;
    std::uint32_t order = 0; // position in its layer, left to right (virtual points counted)
    double x = 0; // centre of the box
    double y = 0;
    friend bool operator==(const LayoutNode&, const LayoutNode&) = default;
};

struct LayoutEdge {
    std::uint32_t from = 0;
    std::uint32_t to = 0;
    // From the middle of the source's bottom side, through one point per layer crossed, to the
    // middle of the target's top side.
    std::vector<LayoutPoint> points;
    friend bool operator==(const LayoutEdge&, const LayoutEdge&) = default;
};

struct LayeredLayout {
    LayeredLayoutOptions options;
    std::vector<LayoutNode> nodes; // indexed by DAG node
    std::vector<LayoutEdge> edges; // one per DAG edge, by source then target
    std::size_t layerCount = 0;
    std::size_t virtualPoints = 0; // points added for edges that span several layers
    std::size_t initialCrossings = 0; // edge crossings of the initial order
    std::size_t crossings = 0; // after reduction (never more than initialCrossings)
    double width = 0; // bounding box of all boxes and edges, from (0, 0)
    double height = 0;

    // The box of node `v`: left, top, right, bottom.
    double left(std::uint32_t v) const { return nodes[v].x - options.nodeWidth / 2; }
    double right(std::uint32_t v) const { return nodes[v].x + options.nodeWidth / 2; }
    double top(std::uint32_t v) const { return nodes[v].y - options.nodeHeight / 2; }
    double bottom(std::uint32_t v) const { return nodes[v].y + options.nodeHeight / 2; }
};

// Throws std::invalid_argument when the graph has a cycle.
LayeredLayout layeredLayout(const Dag& dag, const LayeredLayoutOptions& options = {});

// Crossings between the straight segments of consecutive layers, counted from the layout's
// geometry (every segment of every polyline joins two adjacent layers). Independent of the
// bookkeeping inside layeredLayout, for tests.
std::size_t countCrossings(const LayeredLayout& layout);

} // namespace opsched
