// `run --mapping FILE`: a mapping (from `map -o`) executed for real, one worker per device, with
// the measured makespan and per-op times next to the predicted ones. CPU-only mappings run as one
// partitioned plan on the CPU executor; mappings with a cuda:N device (or --segments) run as
// per-device segments (run_segments.h).
#pragma once

#include "exec/cpu/cpu_executor.h"
#include "map/files/mapping_file.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace opsched::cli {

struct MappingRun {
    map::MappingDocument doc;
    Plan plan; // stream u = device u
    std::vector<std::vector<int>> partitions; // per device; empty: one device using every core
    std::vector<std::vector<int>> cores; // per device: a CPU device's cores (empty: all, or not a CPU)
    std::vector<int> cudaIndex; // per device: N for cuda:N, -1 for a CPU device
    bool segmented = false; // run through the segment runner (any cuda device, or --segments)
    std::vector<double> predictedStart, predictedFinish; // seconds, per op (empty without costs)
    double predictedMs = 0;
};

// Reads and checks the file and lowers the mapping to a plan. Throws Error when a device is not
// one that runs (sim devices only predict). `segments`: run through the segment runner even when
// every device is a CPU (mappings with a cuda device always are).
MappingRun prepareMappingRun(const Graph& graph, const std::string& file, bool segments = false);

// The measured makespan of the last run: from the first launch's start to the last one's end.
double measuredSpanMs(const std::vector<cpu::LaunchTiming>& timings);

void addMappingJson(nlohmann::ordered_json& j, const Graph& graph, const MappingRun& run,
    const std::vector<cpu::LaunchTiming>& timings, double medianMs);
void printMappingText(const MappingRun& run, const std::vector<cpu::LaunchTiming>& timings, double medianMs);

} // namespace opsched::cli
