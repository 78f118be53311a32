// Options shared by schedule, evaluate and compare: the model, batch and device they work on, and
// the IOS pruning limits.
#pragma once

#include "schedule/stage_cost.h"

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

namespace opsched::cli {

inline constexpr const char* kDefaultDevice = "sim:v100";

struct TargetOptions {
    std::string model;
    std::int64_t batch = 1;
    std::string device = kDefaultDevice;
    bool cudaGraph = false;
    bool json = false;
};
// MODEL, --batch, --device, --cuda-graph, --json.
void addTargetOptions(CLI::App& cmd, TargetOptions& o);

struct PruningOptions {
    std::size_t r = 3;
    std::size_t s = 8;
};
// --r, --s.
void addPruningOptions(CLI::App& cmd, PruningOptions& o);

// sim:NAME -> the simulated GPU. cuda:N is refused with a message until the measured cost model
// exists, and always when there is no device. Throws Error.
std::unique_ptr<StageCostModel> makeCostModel(const std::string& device);

// The simulated device behind a reference (sim:NAME), for evaluating whole plans.
const SimDevice& simDeviceFor(const std::string& device);

} // namespace opsched::cli
