// A merged launch of GEMMs (IOS operator merge on transformers): matmuls by constant [K, N_i]
// matrices that read the same input run as one matmul over the matrices side by side, [K, sum N_i];
// op i's output is the column block starting at the sum of the N before it (strided, so it is
// copied out).
#pragma once

#include "exec/cpu/merged_conv.h"
#include "graph/graph.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace opsched::cpu {

struct MergedGemmGeometry {
    std::vector<std::int64_t> outDims; // the stacked output: the ops' output dims with sum N last
    std::int64_t k = 0;
    std::vector<std::int64_t> columns; // N of each op, in the launch's order
};

// The one GEMM that computes all of `ops`, or nullopt when they cannot run as one.
std::optional<MergedGemmGeometry> mergedGemmGeometry(const Graph& graph, const std::vector<OpId>& ops);

// Weights [K, sum N] row by row, bias [sum N] (zeros for ops without one).
StackedWeights stackGemmWeights(const Graph& graph, const std::vector<OpId>& ops, const MergedGemmGeometry& geometry);

} // namespace opsched::cpu
