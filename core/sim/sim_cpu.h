// Simulated CPUs for mapping studies (the DiviML paper's Xeon): a roofline per op plus a fixed
// dispatch cost. Not a GPU model: ops run one at a time, each using every core. Referenced as
// sim:NAME in a mapper's device list, like the GPU presets (sim_device.h).
#pragma once

#include "graph/graph.h"

#include <string>
#include <vector>

namespace opsched {

struct SimCpu {
    std::string name; // "xeon": referenced as sim:xeon
    std::string description;
    double peakFlops = 0; // FP32, all cores
    double memoryBandwidth = 0;
    double efficiency = 0.5; // share of the roofline a library kernel reaches
    double dispatchSeconds = 0;
    double memoryBytes = 0;
};
const std::vector<SimCpu>& simCpus();

// Each op alone on the simulated CPU: its dispatch plus the roofline time of its layers.
std::vector<double> simulatedOpSeconds(const Graph& graph, const SimCpu& cpu);

} // namespace opsched
