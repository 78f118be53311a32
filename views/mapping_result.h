// A mapping (DiviML) computed for the open model in the window: a ScheduleResult whose plan has
// one stream per device, whose timeline has one row per device with the transfers as flows, and
// whose DAG colours are the devices. Simulated devices only (sim:NAME, sim:xeon); measured
// devices go through `opsched-cli map -o` and `profile --mapping`.
#pragma once

#include "schedule_result.h"

#include "map/mapping_problem.h"

namespace opsched {

inline constexpr const char* kMapperPrefix = "map:"; // scheduler names "map:milp-split", ...

bool isMapperRequest(const ScheduleRequest& request);

// The timeline of a mapping: one op row per device (named after it), spans at the predicted
// starts, a flow per transfer (from the producer's end to the result's arrival).
TimelineData timelineFromMapping(const Graph& graph, const map::MappingProblem& problem, const map::Mapping& mapping,
                                 const map::MappingTimes& times);

// request.scheduler "map:NAME", request.device "sim:A,sim:B,...". Throws Error (fewer than two
// devices, a device that is not simulated, an unknown mapper, no feasible mapping).
std::shared_ptr<const ScheduleResult> computeMappingResult(const Graph& graph, const ScheduleRequest& request);

} // namespace opsched
