// A mapping (DiviML) computed for the open model in the window: a ScheduleResult whose plan has
// one stream per device, whose timeline has one row per device with the transfers as flows, and
// whose DAG colours are the devices. Simulated devices (sim:NAME, sim:xeon) are mapped here, in the
// window's process; a list naming a measured device (cpu, cpu:N, cuda:N) is mapped by opsched-cli
// as a child process (map_process.h) and its file read back (mapping_file_result.h) into the
// same kind of result.
#pragma once

#include "engine/results/schedule_result.h"

#include "engine/device_ref.h"
#include "engine/limits.h"

#include "map/problem/mapping_problem.h"

namespace opsched {

inline constexpr const char* kMapperPrefix = "map:"; // scheduler names "map:milp-split", ...

bool isMapperRequest(const ScheduleRequest& request);

// Device lists are parsed by the engine, as `opsched-cli map --devices` parses them:
// engine::parseDeviceList, engine::isSimulatedDeviceList (mapped in the window's process).
using engine::isSimulatedDeviceList;

// What a mapping result carries beside its schedule (the result's params).
struct MappingSummary {
    std::string mapper;
    std::string status; // optimal, feasible, timeout, heuristic
    double lowerBoundMs = 0;
    double solveSeconds = 0;
};

// The ScheduleResult of `mapping` (over `graph`, at the graph's batch): plan, timeline, DAG
// colours and params, the same whether the window computed the mapping or read it from a file.
std::shared_ptr<ScheduleResult> mappingResult(const Graph& graph, const map::MappingProblem& problem,
    const map::Mapping& mapping, const map::MappingTimes& times, const ScheduleRequest& request,
    const MappingSummary& summary);

// The timeline of a mapping: one op row per device (named after it), spans at the predicted
// starts, under each device the results arriving there (a span per transfer, with its bytes), and
// a flow per transfer (from the producer's end to the result's arrival).
TimelineData timelineFromMapping(const Graph& graph, const map::MappingProblem& problem, const map::Mapping& mapping,
    const map::MappingTimes& times);

// What every mapping's result shares (the latency one above, the throughput one of
// throughput_mapping_result.h): request, batch, params (mapper, status, makespan_ms, lower_bound_ms),
// latency = makespan and the DAG's device per op; plan and timeline are the caller's.
std::shared_ptr<ScheduleResult> mappingResultBase(const Graph& graph, const std::vector<std::string>& devices,
    std::vector<int> deviceOf, double makespanSeconds, const ScheduleRequest& request, const MappingSummary& summary);

// A mapping's timeline rows: an op row per device and the row under it (spans added through
// `rows`, a StreamRowsBuilder over streams 0..devices-1). Names the op rows after the devices (and
// the rows under them `below`), keeps idle devices' rows, adds a flow per transfer and the makespan.
void finishDeviceTimeline(TimelineData& data, const StreamRowsBuilder& rows, const std::vector<std::string>& devices,
    const std::vector<map::Transfer>& transfers, double makespanSeconds, const std::string& below);
StreamRowsBuilder deviceRows(TimelineData& data, std::size_t devices);
std::vector<std::string> deviceNames(const map::MappingProblem& problem);

// request.scheduler "map:NAME", request.device "sim:A,sim:B,...". Throws Error (fewer than two
// devices, a device that is not simulated, an unknown mapper, no feasible mapping).
std::shared_ptr<const ScheduleResult> computeMappingResult(const Graph& graph, const ScheduleRequest& request);

} // namespace opsched
