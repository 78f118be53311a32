// `run --mapping FILE`: a mapping (from `map -o`) executed for real, one worker per device (CPU
// core partitions), with the measured makespan and per-op times next to the predicted ones.
#pragma once

#include "exec/cpu/cpu_executor.h"
#include "map/mapping_file.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace opsched::cli {

struct MappingRun {
    map::MappingDocument doc;
    Plan plan;                                // stream u = device u
    std::vector<std::vector<int>> partitions; // per device; empty: one device using every core
    std::vector<double> predictedStart, predictedFinish; // seconds, per op (empty without costs)
    double predictedMs = 0;
};

// Reads and checks the file and lowers the mapping to a plan. Throws Error when a device is not
// one this machine can run (sim devices only predict; cuda mappings are not executed yet).
MappingRun prepareMappingRun(const Graph& graph, const std::string& file);

// The measured makespan of the last run: from the first launch's start to the last one's end.
double measuredSpanMs(const std::vector<cpu::LaunchTiming>& timings);

void addMappingJson(nlohmann::ordered_json& j, const Graph& graph, const MappingRun& run,
                    const std::vector<cpu::LaunchTiming>& timings, double medianMs);
void printMappingText(const MappingRun& run, const std::vector<cpu::LaunchTiming>& timings, double medianMs);

} // namespace opsched::cli
