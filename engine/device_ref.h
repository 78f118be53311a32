// A device as the user names it, parsed once: a simulated GPU preset (sim:NAME), a simulated device
// file (sim:FILE.json, as `calibrate` writes), the CPU (cpu: every core), a CPU partition (cpu:N)
// or a local GPU (cuda:N). Its kind decides what it gives: a cost model for the schedulers
// (costModelFor), op costs for the mappers (map_devices.h). opsched-cli and the window both
// resolve devices here, so they accept the same names and refuse the same ones, in the same words.
#pragma once

#include "schedule/stage_cost.h"
#include "sim/sim_device.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace opsched::engine {

enum class DeviceKind {
    SimPreset, // sim:NAME (or a bare NAME): a preset, a simulated CPU, the paper's devices
    SimFile, // sim:FILE.json (or a path): a simulated GPU read from a file
    Cpu, // cpu: every core
    CpuPartition, // cpu:N: one of the parts the cores are split into
    Cuda, // cuda:N (cuda: GPU 0): measured on a local GPU
};

struct DeviceRef {
    std::string text; // as written: "sim:h100", "sim:dev.json", "cpu:1", "cuda:0"
    DeviceKind kind = DeviceKind::SimPreset;
    std::string preset; // SimPreset: the name without "sim:"
    std::string path; // SimFile
    int index = 0; // CpuPartition, Cuda

    bool simulated() const { return kind == DeviceKind::SimPreset || kind == DeviceKind::SimFile; }
    bool cpu() const { return kind == DeviceKind::Cpu || kind == DeviceKind::CpuPartition; }
    // "sim:NAME" written with its prefix (the mappers' lists want it; the schedulers take "h100" too).
    bool prefixed() const { return text.starts_with("sim:"); }
};

// What the user wrote -> its reference. Throws Error for a malformed number (cuda:x, cpu:x); a
// preset or file that does not exist is found out when it is used.
DeviceRef parseDeviceRef(const std::string& text);

// "sim:xeon, sim:t4,sim:a100" -> the references (blanks around names trimmed). Throws Error for an
// empty name, a name listed twice, or no name at all.
std::vector<DeviceRef> parseDeviceList(const std::string& list);
// The names of parseDeviceList, as written.
std::vector<std::string> deviceNames(const std::vector<DeviceRef>& refs);
std::vector<std::string> parseDeviceNames(const std::string& list);
// Whether every device of the list is simulated (mapped in the window's process); false for a
// list that does not parse.
bool isSimulatedDeviceList(const std::string& list);

// The messages devices are refused with, defined once.
namespace messages {
std::string malformedCuda(const std::string& text); // cuda:x
std::string malformedCpuPartition(const std::string& text); // cpu:x
std::string cpuNotForSchedules(const std::string& text); // cpu, cpu:N given to a scheduler
std::string unknownMapDevice(const std::string& text); // a mapper's list naming no known kind
std::string cudaUnavailable(const std::string& text, const std::string& reason, const std::string& what);
} // namespace messages

// Where the measured cost model keeps its stage timings between runs.
struct CostCacheOptions {
    std::string file; // empty: $XDG_CACHE_HOME/opsched/stage-costs.db (or ~/.cache/...)
    bool disabled = false; // memory only
};

// The schedulers' cost model on a device: sim:NAME or sim:FILE.json -> the simulated GPU; cuda:N ->
// the measured cost model on GPU N (a MeasuredStageCost over makeCudaStageTimer, with the
// persistent cache unless disabled), without a usable GPU an Error that suggests --device sim:NAME;
// cpu and cpu:N are refused (schedules are searched for a GPU). Throws Error.
std::unique_ptr<StageCostModel> costModelFor(
    const DeviceRef& device, bool cudaGraph = false, const CostCacheOptions& cache = {});
std::unique_ptr<StageCostModel> makeCostModel(
    const std::string& device, bool cudaGraph = false, const CostCacheOptions& cache = {});

// The simulated device behind a reference (sim:NAME, or sim:FILE.json as `calibrate` writes, loaded
// once per process), for evaluating whole plans. cuda:N and cpu are refused here with a message.
// Throws Error.
const SimDevice& simDeviceFor(const DeviceRef& device);
const SimDevice& simDeviceFor(const std::string& device);

// The GPU index of "cuda:N" ("cuda" alone is 0), or nothing when `device` is not a cuda reference.
// Throws Error when N is not a number.
std::optional<int> cudaDeviceIndex(const std::string& device);

} // namespace opsched::engine
