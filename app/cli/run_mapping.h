// `run --mapping FILE`: a mapping (from `map -o`) executed for real (engine/run/mapping_run.h),
// one worker per device, reported with the measured makespan and per-op times next to the
// predicted ones. CPU-only mappings run as one partitioned plan on the CPU executor; mappings with
// a cuda:N device (or --segments) run as per-device segments (run_segments.h).
#pragma once

#include "common_options.h"

#include "engine/run/mapping_run.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace opsched::cli {

// The report of a mapping run (engine/run/mapping_run.h): JSON fields and text lines.
void addMappingJson(nlohmann::ordered_json& j, const Graph& graph, const MappingRun& run,
    const std::vector<cpu::LaunchTiming>& timings, double medianMs);
// `spread`: how far apart the measuring rounds' medians were, of their median (0: one round).
void printMappingText(
    const MappingRun& run, const std::vector<cpu::LaunchTiming>& timings, double medianMs, double spread = 0.0);

} // namespace opsched::cli
