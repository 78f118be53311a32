// `run --mapping FILE` for mappings with a cuda:N device (and CPU mappings with --segments), run as
// segments by the engine (engine/run/mapping_run.h): reports what the partitioned CPU path reports,
// per op with times split from the measured segment spans.
#pragma once

#include "run_mapping.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace opsched::cli {

// The report of a segmented mapping run (engine/run/mapping_run.h): JSON fields and text lines.
void addSegmentsJson(
    nlohmann::ordered_json& j, const Graph& graph, const MappingRun& run, const SegmentRunResult& r, double medianMs);
void printSegmentsText(const Graph& graph, const MappingRun& run, const SegmentRunResult& r, double medianMs);

} // namespace opsched::cli
