#include "common_options.h"

#include "exec/cuda/cuda_runtime_info.h"
#include "exec/cuda/cuda_stage_timer.h"
#include "schedule/measured_stage_cost.h"
#include "session/stage_cost_store.h"
#include "sim/sim_device_file.h"
#include "util/error.h"

#include <deque>
#include <mutex>

namespace opsched::cli {
namespace {

// A measured cost model that owns its timer and persistent cache (members of a base listed first,
// so they outlive the model's final flush).
struct MeasuredParts {
    std::unique_ptr<StageTimer> timer;
    std::unique_ptr<StageCostStore> store;
};

class OwningMeasuredCost : private MeasuredParts, public MeasuredStageCost {
public:
    OwningMeasuredCost(MeasuredParts parts, std::string name, const SimDevice& model)
        : MeasuredParts(std::move(parts))
        , MeasuredStageCost(*MeasuredParts::timer, std::move(name), model, MeasuredParts::store.get())
    {
    }
    ~OwningMeasuredCost() override
    {
        try {
            flush();
        } catch (const std::exception& e) {
            std::fprintf(stderr, "opsched-cli: warning: the cost cache was not updated: %s\n", e.what());
        }
    }
};

} // namespace

void addTargetOptions(CLI::App& cmd, TargetOptions& o)
{
    cmd.add_option("MODEL", o.model, "zoo:NAME[?key=value&...] or a model file")->required();
    cmd.add_option("--batch,-b", o.batch, "Batch size")->check(CLI::Range(1, 65536));
    cmd.add_option("--device,-d", o.device,
           "Device: sim:NAME (sim:v100, sim:a100, sim:h100, sim:t4, ...), sim:FILE.json (from `calibrate`), "
           "or cuda:N (measured on the local GPU)")
        ->capture_default_str();
    cmd.add_flag("--cuda-graph", o.cudaGraph, "Estimate plans as one CUDA graph replay (no host launches)");
    cmd.add_flag("--json", o.json, "Print JSON");
}

void addPruningOptions(CLI::App& cmd, PruningOptions& o)
{
    cmd.add_option("--r", o.r, "IOS pruning: most ops per group")->check(CLI::Range(1, 64))->capture_default_str();
    cmd.add_option("--s", o.s, "IOS pruning: most groups per stage (greedy: most ops per stage)")
        ->check(CLI::Range(1, 64))
        ->capture_default_str();
    cmd.add_option("--lowering", o.lowering,
           "How stage schedules become plans: barriers (every stage boundary joins all streams, as the IOS "
           "search assumes), events (only the waits a dependency needs), or best (both evaluated whole on "
           "the device, the faster kept)")
        ->check(CLI::IsMember({ "barriers", "events", "best" }))
        ->capture_default_str();
}

std::optional<Lowering> loweringOf(const PruningOptions& o)
{
    return parseLowering(o.lowering); // `best` (the only other value CLI::IsMember lets through): nullopt
}

void addCostCacheOptions(CLI::App& cmd, CostCacheOptions& o)
{
    auto* file = cmd.add_option("--cost-cache-file", o.file,
        "With --device cuda:N: where measured stage costs are kept between runs (default "
        "$XDG_CACHE_HOME/opsched/stage-costs.db, else ~/.cache/opsched/stage-costs.db)");
    cmd.add_flag("--no-cost-cache", o.disabled, "With --device cuda:N: keep measured stage costs in memory only")
        ->excludes(file);
}

std::optional<int> cudaDeviceIndex(const std::string& device)
{
    if (device == "cuda")
        return 0;
    if (!device.starts_with("cuda:"))
        return std::nullopt;
    const std::string n = device.substr(5);
    if (n.empty() || n.size() > 4 || n.find_first_not_of("0123456789") != std::string::npos)
        throw Error("--device " + device + ": expected cuda:N with N the GPU's index, e.g. cuda:0");
    return std::stoi(n);
}

const SimDevice& simDeviceFor(const std::string& device)
{
    if (device.starts_with("cuda")) {
        const auto status = queryCudaRuntime();
        if (!status.available)
            throw Error(
                "--device " + device + ": " + status.reason + "; use a simulated GPU instead, e.g. --device sim:h100");
        throw Error("--device " + device
            + ": this command does not measure on the GPU yet; "
              "use a simulated GPU, e.g. --device sim:h100");
    }
    if (device == "cpu")
        throw Error(
            "--device cpu: schedules are searched for a GPU (sim:NAME, sim:FILE.json or cuda:N); to run a "
            "plan on the CPU give `run --backend cpu`, to spread ops over CPU cores `map --devices cpu:0,cpu:1`");
    if (isSimDeviceFileRef(device)) {
        // Loaded once per process and kept: callers hold references, as they do to presets.
        static std::mutex mutex;
        static std::deque<std::pair<std::string, SimDevice>> loaded;
        const std::scoped_lock lock(mutex);
        const std::string path = device.starts_with("sim:") ? device.substr(4) : device;
        for (const auto& [p, d] : loaded)
            if (p == path)
                return d;
        return loaded.emplace_back(path, readSimDeviceFile(path)).second;
    }
    return findSimDevice(device);
}

std::unique_ptr<StageCostModel> makeCostModel(const std::string& device, bool cudaGraph, const CostCacheOptions& cache)
{
    const std::optional<int> gpu = cudaDeviceIndex(device);
    if (!gpu)
        return std::make_unique<SimulatedStageCost>(simDeviceFor(device), SimOptions { cudaGraph });

    CudaTimerOptions options;
    options.device = *gpu;
    MeasuredParts parts;
    parts.timer = makeCudaStageTimer(options); // no GPU or no CUDA executor: Error suggesting sim:NAME
    // The analytical model Opara reasons with: the preset closest to this GPU.
    std::string gpuName;
    int sms = 0;
    for (const auto& d : queryCudaRuntime().devices)
        if (d.index == *gpu) {
            gpuName = d.name;
            sms = d.multiprocessors;
        }
    if (!cache.disabled)
        parts.store = std::make_unique<profiler::SqliteStageCostStore>(
            cache.file.empty() ? profiler::defaultStageCostCachePath() : cache.file);
    return std::make_unique<OwningMeasuredCost>(
        std::move(parts), "cuda:" + std::to_string(*gpu), closestSimDevice(gpuName, sms));
}

} // namespace opsched::cli
