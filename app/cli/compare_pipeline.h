// `compare MODEL --objective pipeline`: every pipeline mapper (the GPT-3 case study's objective,
// map/solvers/pipeline_mapper.h) on one problem, side by side, each against the paper's "single
// node, replicated" baseline (Table V's ratios).
#pragma once

#include "map/problem/map_result.h"
#include "map/problem/mapping_problem.h"

#include "graph/graph.h"

namespace opsched::cli {

int comparePipelineMappers(
    const Graph& graph, const map::MappingProblem& problem, const map::MapperOptions& options, bool json);

} // namespace opsched::cli
