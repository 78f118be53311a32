#include "engine/device_ref.h"

#include "exec/cuda/cuda_runtime_info.h"
#include "exec/cuda/cuda_stage_timer.h"
#include "schedule/measured_stage_cost.h"
#include "session/stage_cost_store.h"
#include "sim/sim_device_file.h"
#include "util/error.h"

#include <cstdio>
#include <deque>
#include <mutex>
#include <sstream>

namespace opsched::engine {
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

// "0" .. "9999": a GPU's index or a CPU partition's number.
std::optional<int> smallNumber(const std::string& text)
{
    if (text.empty() || text.size() > 4 || text.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    return std::stoi(text);
}

std::string trimmed(const std::string& text)
{
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string::npos)
        return {};
    return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

std::unique_ptr<StageCostModel> measuredCostModel(int gpu, const CostCacheOptions& cache)
{
    CudaTimerOptions options;
    options.device = gpu;
    MeasuredParts parts;
    parts.timer = makeCudaStageTimer(options); // no GPU or no CUDA executor: Error suggesting sim:NAME
    // The analytical model Opara reasons with: the preset closest to this GPU.
    std::string gpuName;
    int sms = 0;
    for (const auto& d : queryCudaRuntime().devices)
        if (d.index == gpu) {
            gpuName = d.name;
            sms = d.multiprocessors;
        }
    if (!cache.disabled)
        parts.store = std::make_unique<profiler::SqliteStageCostStore>(
            cache.file.empty() ? profiler::defaultStageCostCachePath() : cache.file);
    return std::make_unique<OwningMeasuredCost>(
        std::move(parts), "cuda:" + std::to_string(gpu), closestSimDevice(gpuName, sms));
}

} // namespace

namespace messages {

std::string malformedCuda(const std::string& text)
{
    return "--device " + text + ": expected cuda:N with N the GPU's index, e.g. cuda:0";
}

std::string malformedCpuPartition(const std::string& text)
{
    return "device " + text + ": cpu:N needs a partition number";
}

std::string cpuNotForSchedules(const std::string& text)
{
    return "--device " + text
        + ": schedules are searched for a GPU (sim:NAME, sim:FILE.json or cuda:N); to run a plan on the CPU give "
          "`run --backend cpu`, to spread ops over CPU cores `map --devices cpu:0,cpu:1`";
}

std::string unknownMapDevice(const std::string& text)
{
    return "unknown device '" + text + "' (use sim:NAME, sim:FILE.json, cpu, cpu:N or cuda:N)";
}

std::string cudaUnavailable(const std::string& text, const std::string& reason, const std::string& what)
{
    return "--device " + text + ": " + reason + "; " + what + ", e.g. --device sim:h100";
}

} // namespace messages

DeviceRef parseDeviceRef(const std::string& text)
{
    DeviceRef ref;
    ref.text = text;
    if (text == "cuda" || text.starts_with("cuda:")) {
        const auto n = text == "cuda" ? std::optional<int>(0) : smallNumber(text.substr(5));
        if (!n)
            throw Error(messages::malformedCuda(text));
        ref.kind = DeviceKind::Cuda;
        ref.index = *n;
    } else if (text == "cpu") {
        ref.kind = DeviceKind::Cpu;
    } else if (text.starts_with("cpu:")) {
        const auto n = smallNumber(text.substr(4));
        if (!n)
            throw Error(messages::malformedCpuPartition(text));
        ref.kind = DeviceKind::CpuPartition;
        ref.index = *n;
    } else if (isSimDeviceFileRef(text)) {
        ref.kind = DeviceKind::SimFile;
        ref.path = text.starts_with("sim:") ? text.substr(4) : text;
    } else {
        ref.kind = DeviceKind::SimPreset;
        ref.preset = text.starts_with("sim:") ? text.substr(4) : text;
    }
    return ref;
}

std::vector<DeviceRef> parseDeviceList(const std::string& list)
{
    std::vector<DeviceRef> out;
    std::stringstream in(list);
    std::string item;
    while (std::getline(in, item, ',')) {
        item = trimmed(item);
        if (item.empty())
            throw Error("--devices: an empty device name in '" + list + "'");
        for (const auto& seen : out)
            if (seen.text == item)
                throw Error("--devices: " + item + " is listed twice");
        out.push_back(parseDeviceRef(item));
    }
    if (out.empty())
        throw Error("--devices: no devices given");
    return out;
}

std::vector<std::string> deviceNames(const std::vector<DeviceRef>& refs)
{
    std::vector<std::string> names;
    for (const auto& r : refs)
        names.push_back(r.text);
    return names;
}

std::vector<std::string> parseDeviceNames(const std::string& list)
{
    return deviceNames(parseDeviceList(list));
}

bool isSimulatedDeviceList(const std::string& list)
{
    try {
        for (const auto& ref : parseDeviceList(list))
            if (!ref.simulated())
                return false;
        return true;
    } catch (const Error&) {
        return false;
    }
}

std::optional<int> cudaDeviceIndex(const std::string& device)
{
    const DeviceRef ref = parseDeviceRef(device);
    if (ref.kind != DeviceKind::Cuda)
        return std::nullopt;
    return ref.index;
}

const SimDevice& simDeviceFor(const DeviceRef& device)
{
    switch (device.kind) {
    case DeviceKind::Cuda: {
        const auto status = queryCudaRuntime();
        if (!status.available)
            throw Error(messages::cudaUnavailable(device.text, status.reason, "use a simulated GPU instead"));
        throw Error(messages::cudaUnavailable(
            device.text, "this command does not measure on the GPU yet", "use a simulated GPU"));
    }
    case DeviceKind::Cpu:
    case DeviceKind::CpuPartition:
        throw Error(messages::cpuNotForSchedules(device.text));
    case DeviceKind::SimFile: {
        // Loaded once per process and kept: callers hold references, as they do to presets.
        static std::mutex mutex;
        static std::deque<std::pair<std::string, SimDevice>> loaded;
        const std::scoped_lock lock(mutex);
        for (const auto& [p, d] : loaded)
            if (p == device.path)
                return d;
        return loaded.emplace_back(device.path, readSimDeviceFile(device.path)).second;
    }
    case DeviceKind::SimPreset:
        break;
    }
    return findSimDevice(device.text);
}

const SimDevice& simDeviceFor(const std::string& device)
{
    return simDeviceFor(parseDeviceRef(device));
}

std::unique_ptr<StageCostModel> costModelFor(const DeviceRef& device, bool cudaGraph, const CostCacheOptions& cache)
{
    if (device.kind == DeviceKind::Cuda)
        return measuredCostModel(device.index, cache);
    return std::make_unique<SimulatedStageCost>(simDeviceFor(device), SimOptions { cudaGraph });
}

std::unique_ptr<StageCostModel> makeCostModel(const std::string& device, bool cudaGraph, const CostCacheOptions& cache)
{
    return costModelFor(parseDeviceRef(device), cudaGraph, cache);
}

} // namespace opsched::engine
