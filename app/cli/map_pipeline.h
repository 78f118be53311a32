// `map --objective pipeline`: the steady-state throughput of a stream of inputs (the GPT-3 case
// study), and `--objective batch`: L inputs through that mapping in batches, fill and drain
// included; printed as a summary or as the mapping document (engine/map_actions.h).
#pragma once

#include "engine/map_actions.h"

#include "graph/graph.h"

#include <string>

namespace opsched::cli {

void printPipelineMapping(const Graph& graph, const engine::PipelineMapping& m, const std::string& output, bool json);
void printBatchedMapping(const Graph& graph, const engine::BatchedMapping& m, const std::string& output, bool json);

} // namespace opsched::cli
