// The throughput mapping file (docs/formats.md, "objective": "throughput"): what
// `map --objective throughput -o` writes and the window reads. Like the latency file
// (mapping_file.h) it carries what re-evaluating it needs: each op's cost per device and batch
// size ("costs" {op: {device: {batch_size: ms}}}) and the links. `run --mapping` refuses it
// (mappingFromJson): a split op is not something the executors run.
#pragma once

#include "map/batched_mappers.h"
#include "map/batched_problem.h"
#include "map/mapping_file.h"

#include "graph/graph.h"

#include <nlohmann/json.hpp>

#include <string>

namespace opsched::map {

nlohmann::ordered_json batchedMappingToJson(const Graph& graph, const BatchedProblem& problem,
                                            const BatchedResult& result, double lowerBoundSeconds);

struct BatchedMappingDocument {
    std::string model;
    std::string mapper;
    std::string status;
    BatchedProblem problem;   // from the file's inputs, batch sizes, costs and links (memory unlimited)
    BatchedMapping mapping;
    double makespanMs = 0;    // as the file says (0 when absent)
    double lowerBoundMs = 0;
    double solveSeconds = 0;
};

// Reads a throughput mapping for `graph` (at batch 1: the inputs are the batch). Throws
// MappingFileError naming the problem: another format, version, objective or model, an op not
// mapped or a split whose batches do not add up to the inputs or are not batch sizes, unknown
// ops or devices, an order that misses a batch or lists one that does not exist, a batch
// without a cost.
BatchedMappingDocument batchedMappingFromJson(const Graph& graph, const nlohmann::json& json);

} // namespace opsched::map
