// A throughput mapping (DiviML's batched objective, core/map/problem/throughput_problem.h) as a
// ScheduleResult: one timeline row per device with a span per batch ("op ×n"), the transfers
// between overlapping batches as flows, and the DAG coloured by the device that takes most of
// each op's inputs. Read from a file (mapping_file_result.h); the window does not map throughput.
#pragma once

#include "engine/results/mapping_result.h"

#include "map/problem/throughput_problem.h"

namespace opsched {

// Per op, the device with most of its inputs (the first such device on a tie).
std::vector<int> majorityDevices(const map::ThroughputProblem& problem, const map::ThroughputMapping& mapping);

// Op rows per device (span id = op id, so selecting one selects the op) and under each a
// "batches" row whose spans say "op ×n" with the batch's inputs; a flow per transfer.
TimelineData timelineFromThroughputMapping(const Graph& graph, const map::ThroughputProblem& problem,
    const map::ThroughputMapping& mapping, const map::ThroughputTimes& times,
    const std::vector<map::Transfer>& transfers);

// `graph` at batch 1 (the inputs are the batch). Params beside the shared ones: objective,
// inputs, throughput_per_s. The plan runs each op on its majority device (what an export keeps).
std::shared_ptr<ScheduleResult> throughputMappingResult(const Graph& graph, const map::ThroughputProblem& problem,
    const map::ThroughputMapping& mapping, const map::ThroughputTimes& times,
    const std::vector<map::Transfer>& transfers, const ScheduleRequest& request, const MappingSummary& summary);

} // namespace opsched
