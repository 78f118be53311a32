// What `info` reports about a model: sizes, work, width, blocks, critical path. Computed once here
// so the CLI and the GUI say the same thing.
#pragma once

#include "graph/blocks.h"
#include "graph/graph.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace opsched {

struct ModelSummary {
    std::string model;
    std::int64_t batch = 1;
    std::size_t ops = 0;
    std::int64_t parameters = 0;
    double flops = 0;
    double bytes = 0;
    std::size_t width = 0;
    std::vector<OpId> antichain; // a largest set of mutually independent ops
    BlockPartition blocks;
    double criticalPathFlops = 0;
    std::vector<OpId> criticalPath; // heaviest chain by FLOPs
    std::map<std::string, int> opKinds; // op type -> count
};

ModelSummary summarize(const Graph& graph);

// The `info --json` document (docs/cli.md documents its fields).
nlohmann::ordered_json modelInfoJson(const Graph& graph, const ModelSummary& summary);

// A short human summary for the terminal.
std::string modelInfoText(const Graph& graph, const ModelSummary& summary);

} // namespace opsched
