// A set of a graph's ops as a standalone Graph, so any executor can run part of a model: the
// values the ops read but do not produce become the subgraph's inputs, the values they produce
// that something outside reads (or that are graph outputs) become its outputs. Used to run a
// mapping's per-device segments on different executors (exec/segment_runner.h).
#pragma once

#include "graph/graph.h"

#include <string>
#include <vector>

namespace opsched {

struct Subgraph {
    Graph graph;
    std::vector<OpId> ops; // the original ops, in the subgraph's op order (its op i is ops[i])
    std::vector<TensorId> inputs; // the original tensor of each subgraph input, in Graph::inputs() order
    std::vector<TensorId> outputs; // the original tensor of each subgraph output, in Graph::outputs() order
};

// Builds the subgraph of `ops`, which must list each op once in an order where an op comes after
// the ops of the set it reads (ascending ids always are). Weights and constants are shared with
// `graph` (same data, same names); tensor and op names are kept. Throws GraphError for an empty
// set, an op out of range or listed twice, or an order that reads a value before its producer.
Subgraph extractSubgraph(const Graph& graph, const std::vector<OpId>& ops, const std::string& name);

} // namespace opsched
