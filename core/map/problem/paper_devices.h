// Device presets at the DiviML paper's relative speeds (its Table II), for reproducing its setups:
// sim:paper-a100 is the simulated A100 (roofline per op); sim:paper-t4 and sim:paper-xeon cost
// every op exactly 1.26x and 7.10x that (the paper's RWNN row), and the -torchvision variants
// 1.6x and 29x (its Torchvision row). The simulated sim:t4 and sim:xeon keep their own rooflines
// (T4 1.78x slower than the A100 on RWNNs), which is not what the paper measured.
#pragma once

#include "map/problem/device_costs.h"

#include "graph/graph.h"

#include <optional>
#include <string>
#include <vector>

namespace opsched::map {

struct PaperDevice {
    std::string name; // "paper-t4": referenced as sim:paper-t4
    double factor = 1; // every op's time is factor x sim:a100's
    double memoryBytes = 0;
    std::string description;
};
const std::vector<PaperDevice>& paperDevices();

// Costs of "sim:paper-..." names; nothing for other names.
std::optional<DeviceCosts> paperDeviceCosts(const Graph& graph, const std::string& name);

} // namespace opsched::map
