// `map` and `compare --devices`: a model's ops mapped across devices under the latency, throughput
// or pipeline objective, each result with the document `map -o` writes (the mapping file `run
// --mapping` and the window read back), and every mapper side by side on one problem.
#pragma once

#include "engine/child_protocol.h"
#include "engine/map_inputs.h"
#include "engine/requests.h"

#include "map/problem/map_result.h"
#include "map/problem/mapping_problem.h"
#include "map/problem/throughput_problem.h"
#include "map/solvers/batched_pipeline.h"
#include "map/solvers/pipeline_mapper.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>

namespace opsched::engine {

// Where the problem comes from besides the request: the measured-cost cache and the input files
// (--costs, --topology, --links, --write-costs, --symmetry). A mapping file is written to `output`
// when it is not empty.
struct MapSources {
    CostCacheOptions cache;
    MapInputOptions files;
    std::string output;
    std::function<void(const child::MapProgressEvent&)> progress; // each phase as it starts and ends
};

struct LatencyMapping {
    map::MappingProblem problem;
    map::MapResult result;
    double lowerBound = 0; // seconds
    nlohmann::ordered_json document;
};
struct ThroughputMapping {
    map::ThroughputProblem problem;
    map::ThroughputResult result;
    double lowerBound = 0; // seconds for all the inputs
    nlohmann::ordered_json document;
};
struct PipelineMapping {
    map::MappingProblem problem;
    map::PipelineResult result;
    nlohmann::ordered_json document;
};

// The batch objective (DiviML's Table V as measured): `inputs` inputs in batches of `batchSize`
// through a pipeline mapping, fill and drain included (map/solvers/batched_pipeline.h).
struct BatchedMapping {
    map::MappingProblem perInput; // what the pipeline mappers optimise
    map::ThroughputProblem batched; // what the mapping is timed on
    map::PipelineResult result;
    map::BatchedRun run;
    nlohmann::ordered_json document;
};

// request.objective picks the one that applies; each throws Error naming the problem (no device,
// nothing fits, an unknown mapper).
LatencyMapping mapForLatency(const Graph& graph, const MapRequest& request, const MapSources& sources);
ThroughputMapping mapForThroughput(const Graph& graph, const MapRequest& request, const MapSources& sources);
PipelineMapping mapForPipeline(const Graph& graph, const MapRequest& request, const MapSources& sources);
BatchedMapping mapForBatch(const Graph& graph, const MapRequest& request, const MapSources& sources);

// `compare --devices`: every mapper of the objective on one problem (request.mapper unused). With
// `equalTime` (latency, throughput), sa and ea run as long as milp-split took. The document has
// one row per mapper, a row with "error" where one cannot map; docs/cli.md lists its fields.
nlohmann::ordered_json compareMappers(
    const Graph& graph, const MapRequest& request, const MapSources& sources, bool equalTime);

} // namespace opsched::engine
