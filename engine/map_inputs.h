// Where `map` and `compare --devices` take their problem from besides --devices:
// a cost table (--costs), a multi-node topology (--topology), per-pair links (--links), the
// symmetry breaking of the MILPs (--symmetry), and `--write-costs FILE` to write the costs used.
// The options themselves are app/cli/map_inputs.h's.
#pragma once

#include "engine/device_ref.h"

#include "map/problem/map_result.h"
#include "map/problem/mapping_problem.h"
#include "map/problem/throughput_problem.h"

#include <string>

namespace opsched::engine {

struct MapInputOptions {
    std::string costs; // cost table (CSV or JSON)
    std::string topology; // topology JSON
    std::string links; // per-pair links (CSV or JSON)
    std::string writeCosts; // write the costs used here
    std::string symmetry = "none";
};

// Whether the device list may come from elsewhere than --devices (a topology or a cost table).
bool devicesFromFiles(const MapInputOptions& o);

// The latency problem. Devices: --devices, else the topology's, else the cost table's. Each
// device's costs: the cost table's where it lists the device (by name, then by the topology's
// type), else measured or simulated as `map --devices` does. Links: --link (or the defaults),
// then the topology's, then the cost table's, then --links. Throws Error naming the problem.
map::MappingProblem latencyProblem(const Graph& graph, const std::string& devices, const std::string& link,
    const std::string& memory, const CostCacheOptions& cache, const MapInputOptions& o);

// The throughput problem over the same devices and links, costs at every batch size.
map::ThroughputProblem throughputProblem(const Graph& graph, const std::string& devices, const std::string& link,
    const std::string& memory, const CostCacheOptions& cache, const MapInputOptions& o, std::int64_t inputs);

// --write-costs: the table of the costs (and memory, links) these problems use.
void writeCostsIfAsked(const MapInputOptions& o, const map::MappingProblem& problem, std::int64_t batch);
void writeCostsIfAsked(const MapInputOptions& o, const map::ThroughputProblem& problem);

map::MapperOptions::Symmetry symmetryOf(const MapInputOptions& o);

} // namespace opsched::engine
