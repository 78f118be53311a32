// Options shared by schedule, evaluate and compare: the model, batch and device they work on, and
// the IOS pruning limits.
#pragma once

#include "plan/lowering.h"
#include "schedule/stage_cost.h"

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>
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
    std::string lowering = "barriers"; // barriers, events or best: how stage schedules become plans
};
// --r, --s, --lowering.
void addPruningOptions(CLI::App& cmd, PruningOptions& o);
// The lowering --lowering names; nullopt for `best`.
std::optional<Lowering> loweringOf(const PruningOptions& o);

// Where the measured cost model keeps its stage timings between runs.
struct CostCacheOptions {
    std::string file; // empty: $XDG_CACHE_HOME/opsched/stage-costs.db (or ~/.cache/...)
    bool disabled = false; // memory only
};
// --cost-cache-file FILE, --no-cost-cache.
void addCostCacheOptions(CLI::App& cmd, CostCacheOptions& o);

// sim:NAME or sim:FILE.json -> the simulated GPU. cuda:N -> the measured cost model on GPU N (a
// MeasuredStageCost over makeCudaStageTimer, with the persistent cache unless disabled); without a
// usable GPU an Error that suggests --device sim:NAME. Throws Error.
std::unique_ptr<StageCostModel> makeCostModel(
    const std::string& device, bool cudaGraph = false, const CostCacheOptions& cache = {});

// The simulated device behind a reference (sim:NAME, or sim:FILE.json as `calibrate` writes), for
// evaluating whole plans. cuda:N and cpu are refused here with a message. Throws Error.
const SimDevice& simDeviceFor(const std::string& device);

// The GPU index of "cuda:N" ("cuda" alone is 0), or nothing when `device` is not a cuda reference.
// Throws Error when N is not a number.
std::optional<int> cudaDeviceIndex(const std::string& device);

} // namespace opsched::cli
