// Options shared by schedule, evaluate and compare: the model, batch and device they work on, and
// the IOS pruning limits. Their defaults and ranges are engine/limits.h's, their devices are
// resolved by the engine (engine/device_ref.h), as the window's are.
#pragma once

#include "engine/device_ref.h"
#include "engine/limits.h"
#include "engine/requests.h"

#include "plan/lowering.h"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <type_traits>

namespace opsched::cli {

// The commands parse options and print; the engine does the work (devices, costs, requests), under
// the same names as in the window.
using namespace opsched::engine;

struct TargetOptions : engine::TargetRequest {
    bool json = false;
};
// MODEL, --batch, --device, --cuda-graph, --json.
void addTargetOptions(CLI::App& cmd, TargetOptions& o);
// --batch,-b with the engine's range.
CLI::Option* addBatchOption(CLI::App& cmd, std::int64_t& batch);
// --shape NAME=DxDx... (repeatable): an ONNX model's free input dimensions.
CLI::Option* addShapeOption(CLI::App& cmd, InputShapes& shapes);

using PruningOptions = engine::PruningRequest;
// --r, --s, --lowering.
void addPruningOptions(CLI::App& cmd, PruningOptions& o);

// "sequential, greedy, ..." and "bd, met, ...": the registries' names, for --help.
std::string schedulerNameList();
std::string mapperNameList();

// --cost-cache-file FILE, --no-cost-cache.
void addCostCacheOptions(CLI::App& cmd, CostCacheOptions& o);

// CLI11's check of a value against one of the engine's limits (as INT or FLOAT in --help).
template <typename T> CLI::Range rangeOf(const engine::Limit<T>& limit)
{
    if constexpr (std::is_integral_v<T>)
        return CLI::Range(static_cast<int>(limit.min), static_cast<int>(limit.max));
    else
        return CLI::Range(static_cast<double>(limit.min), static_cast<double>(limit.max));
}

} // namespace opsched::cli
