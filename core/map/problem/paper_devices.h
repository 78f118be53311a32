// Device presets at the DiviML paper's relative speeds (its Table II), for reproducing its setups:
// sim:paper-a100 is the simulated A100 (roofline per op); sim:paper-t4 and sim:paper-xeon cost
// every op exactly 1.26x and 7.10x that (the paper's RWNN row), and the -torchvision variants
// 1.6x and 29x (its Torchvision row). The simulated sim:t4 and sim:xeon keep their own rooflines
// (T4 1.78x slower than the A100 on RWNNs), which is not what the paper measured.
//
// Scaling one roofline makes every op prefer the same device. Measured costs do not: the local
// CPU's measured time over the simulated A100's, per op, spreads with a log standard deviation
// of 0.5-0.9 (RWNN, inception_v3, googlenet). sim:mixed-* keep the paper's mean factors and give
// each (op, device) a log-normal factor of that spread, fixed by the two names, so that ops differ
// in which device they prefer and the heuristics are tested where they are weak.
#pragma once

#include "map/problem/device_costs.h"

#include "graph/graph.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opsched::map {

struct PaperDevice {
    std::string name; // "paper-t4": referenced as sim:paper-t4
    double factor = 1; // every op's time is factor x sim:a100's
    double memoryBytes = 0;
    std::string description;
    // sim:mixed-*: each op's factor is times exp(spread z - spread^2 / 2), z standard normal drawn
    // from the op's and the device's names (mean 1, so the device's average speed is kept).
    double spread = 0;
};
const std::vector<PaperDevice>& paperDevices();

// The per-op factor of a spread preset: exp(spread z - spread^2 / 2), z a standard normal fixed
// by the op's and the device's names (the same on every platform).
double mixedCostFactor(std::string_view opName, std::string_view deviceName, double spread);

// Costs of "sim:paper-..." and "sim:mixed-..." names; nothing for other names.
std::optional<DeviceCosts> paperDeviceCosts(const Graph& graph, const std::string& name);

} // namespace opsched::map
