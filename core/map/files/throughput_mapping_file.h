// The throughput mapping file (docs/formats.md, "objective": "throughput"): what
// `map --objective throughput -o` writes and the window reads. Like the latency file
// (mapping_file.h) it carries what re-evaluating it needs: each op's cost per device and batch
// size ("costs" {op: {device: {batch_size: ms}}}) and the links. `run --mapping` refuses it
// (mappingFromJson): a split op is not something the executors run.
#pragma once

#include "map/files/mapping_file.h"
#include "map/problem/map_result.h"
#include "map/problem/throughput_problem.h"

#include "graph/graph.h"

#include <nlohmann/json.hpp>

#include <string>

namespace opsched::map {

nlohmann::ordered_json throughputMappingToJson(
    const Graph& graph, const ThroughputProblem& problem, const ThroughputResult& result, double lowerBoundSeconds);

struct ThroughputMappingDocument {
    std::string model;
    std::string mapper;
    std::string status;
    ThroughputProblem problem; // from the file's inputs, batch sizes, costs and links (memory unlimited)
    ThroughputMapping mapping;
    double makespanMs = 0; // as the file says (0 when absent)
    double lowerBoundMs = 0;
    double solveSeconds = 0;
};

// Reads a throughput mapping for `graph` (at batch 1: the inputs are the batch). Throws
// MappingFileError naming the problem: another format, version, objective or model, an op not
// mapped or a split whose batches do not add up to the inputs or are not batch sizes, unknown
// ops or devices, an order that misses a batch or lists one that does not exist, a batch
// without a cost.
ThroughputMappingDocument throughputMappingFromJson(const Graph& graph, const nlohmann::json& json);

} // namespace opsched::map
