// `map --objective pipeline`: the steady-state throughput of a stream of inputs (the GPT-3 case
// study, map/pipeline_mapper.h): summary or JSON, and the mapping written with -o.
#pragma once

#include "map/problem/map_result.h"
#include "map/problem/mapping_problem.h"

#include "graph/graph.h"

#include <string>

namespace opsched::cli {

int mapPipelineCommand(const Graph& graph, const map::MappingProblem& problem, const std::string& mapper,
    const map::MapperOptions& options, const std::string& output, bool json);

} // namespace opsched::cli
