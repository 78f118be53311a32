// The mapping file (JSON, versioned; docs/formats.md): what `map -o` writes, `map --json` prints
// and `run --mapping` reads. Everything needed to recompute the makespan is in it:
// {"format":"opsched-mapping","version":1,"model":..,"model_sha256":..,"batch":..,
//  "objective":"latency","mapper":..,"devices":[..],"makespan_ms":..,"lower_bound_ms":..,
//  "status":"optimal|feasible|timeout|heuristic","gap":..,"solve_s":..,
//  "mapping":{op:device},"order":{device:[op,..]},"start_ms":{op:ms},"finish_ms":{op:ms},
//  "transfers":[{"from":op,"to":op,"from_device":..,"to_device":..,"start_ms":..,"end_ms":..,"bytes":..}],
//  "costs":{op:{device:ms}},"links":{"u->v":{"bandwidth_gbps":..,"latency_us":..}}}
#pragma once

#include "map/files/mapping_json.h"
#include "map/problem/map_result.h"

#include "graph/graph.h"
#include "util/error.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace opsched::map {

nlohmann::ordered_json mappingToJson(
    const Graph& graph, const MappingProblem& problem, const MapResult& result, double lowerBoundSeconds);

struct MappingDocument {
    std::string model;
    std::int64_t batch = 1;
    std::string mapper;
    std::vector<std::string> devices;
    Mapping mapping; // device indices into `devices`; tasks are op ids
    double makespanMs = 0; // predicted
    std::string status; // optimal, feasible, timeout, heuristic; empty when the file says none
    double lowerBoundMs = 0; // 0 when the file gives none
    double solveSeconds = 0; // the mapper's time, 0 when the file gives none
    std::vector<double> costsMs; // [op * devices + device], as the mapper saw them
    std::vector<std::vector<Link>> links;
};

// Reads a mapping for `graph`. Throws MappingFileError naming the problem: not JSON, another
// format or version, another model, unknown ops or devices, an op mapped twice or not at all, an
// order that lists an op on a device it is not mapped to.
MappingDocument mappingFromJson(const Graph& graph, const nlohmann::json& json);
MappingDocument readMappingFile(const Graph& graph, const std::string& path);

// The problem the document describes (its costs and links), to re-evaluate the mapping.
MappingProblem problemFromDocument(const Graph& graph, const MappingDocument& doc);

} // namespace opsched::map
