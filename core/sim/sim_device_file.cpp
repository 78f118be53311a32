#include "sim/sim_device_file.h"

#include "util/error.h"

#include <cmath>
#include <fstream>
#include <sstream>
#include <utility>

namespace opsched {
namespace {

constexpr const char* kFormat = "opsched-sim-device";
constexpr int kVersion = 1;

// What a file may set each constant to: values a GPU can have, so every device a file describes
// gives every plan a finite latency (a launch that waits hours, or an efficiency of 5, is a
// damaged or mistyped file). Rates and sizes must be positive; penalties and costs may be 0.
struct Field {
    const char* name;
    double SimDevice::*member;
    bool fitted; // a fit may change it
    double lo, hi;
};
constexpr double kMaxSeconds = 1.0; // per launch, wait, barrier: a GPU's are microseconds

const std::vector<Field>& doubleFields()
{
    static const std::vector<Field> fields = {
        { "peak_flops", &SimDevice::peakFlops, false, 1e6, 1e18 },
        { "memory_bandwidth", &SimDevice::memoryBandwidth, false, 1e6, 1e15 },
        { "l2_bytes", &SimDevice::l2Bytes, false, 1, 1e12 },
        { "saturation_warps_per_sm", &SimDevice::saturationWarpsPerSm, true, 0.01, 4096 },
        { "compute_efficiency", &SimDevice::computeEfficiency, true, 1e-4, 1 },
        { "memory_efficiency", &SimDevice::memoryEfficiency, true, 1e-4, 1 },
        { "host_launch_seconds", &SimDevice::hostLaunchSeconds, true, 0, kMaxSeconds },
        { "launch_latency_seconds", &SimDevice::launchLatencySeconds, true, 0, kMaxSeconds },
        { "device_launch_seconds", &SimDevice::deviceLaunchSeconds, true, 0, kMaxSeconds },
        { "event_wait_seconds", &SimDevice::eventWaitSeconds, true, 0, kMaxSeconds },
        { "barrier_seconds", &SimDevice::barrierSeconds, true, 0, kMaxSeconds },
        { "stream_sync_seconds", &SimDevice::streamSyncSeconds, true, 0, kMaxSeconds },
        { "concurrency_penalty", &SimDevice::concurrencyPenalty, true, 0, 100 },
        { "contention", &SimDevice::contention, true, 0, 100 },
    };
    return fields;
}

const Field& fieldNamed(const std::string& name)
{
    for (const auto& f : doubleFields())
        if (name == f.name)
            return f;
    throw Error("internal: no simulator constant named '" + name + "'");
}

} // namespace

const std::vector<std::string>& fittedSimConstants()
{
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n;
        for (const auto& f : doubleFields())
            if (f.fitted)
                n.emplace_back(f.name);
        return n;
    }();
    return names;
}

double& simConstant(SimDevice& device, const std::string& name)
{
    return device.*(fieldNamed(name).member);
}

double simConstant(const SimDevice& device, const std::string& name)
{
    return device.*(fieldNamed(name).member);
}

nlohmann::ordered_json toJson(const SimDevice& device, const std::string& base)
{
    nlohmann::ordered_json j;
    j["format"] = kFormat;
    j["version"] = kVersion;
    j["name"] = device.name;
    if (!base.empty())
        j["base"] = base;
    j["description"] = device.description;
    j["multiprocessors"] = device.multiprocessors;
    j["max_warps_per_multiprocessor"] = device.maxWarpsPerMultiprocessor;
    for (const auto& f : doubleFields())
        j[f.name] = device.*(f.member);
    return j;
}

SimDevice simDeviceFromJson(const nlohmann::json& j, const std::string& where)
{
    // Checked by type first: a damaged file may hold a number where a string belongs.
    if (!j.is_object() || !j.contains("format") || !j["format"].is_string() || j["format"] != kFormat)
        throw Error(where + ": not a simulated device file (expected \"format\": \"" + kFormat + "\")");
    if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<int>() != kVersion)
        throw Error(where + ": unsupported version (this opsched reads version " + std::to_string(kVersion) + ")");
    SimDevice d;
    if (j.contains("base")) {
        if (!j["base"].is_string())
            throw Error(where + ": \"base\" must name a preset, e.g. \"h100\"");
        d = findSimDevice(j["base"].get<std::string>());
    }
    for (const auto& [key, value] : j.items()) {
        if (key == "format" || key == "version" || key == "base")
            continue;
        if (key == "name" || key == "description") {
            if (!value.is_string())
                throw Error(where + ": \"" + key + "\" must be a string");
            (key == "name" ? d.name : d.description) = value.get<std::string>();
            continue;
        }
        if (key == "multiprocessors" || key == "max_warps_per_multiprocessor") {
            if (!value.is_number_integer() || value.get<std::int64_t>() < 1 || value.get<std::int64_t>() > 100000)
                throw Error(where + ": \"" + key + "\" must be a positive integer");
            (key == "multiprocessors" ? d.multiprocessors : d.maxWarpsPerMultiprocessor) = value.get<int>();
            continue;
        }
        const Field* field = nullptr;
        for (const auto& f : doubleFields())
            if (key == f.name)
                field = &f;
        if (!field)
            throw Error(where + ": unknown field \"" + key + "\"");
        if (!value.is_number() || !(value.get<double>() >= field->lo && value.get<double>() <= field->hi)) {
            std::ostringstream range;
            range << field->lo << " to " << field->hi;
            throw Error(where + ": \"" + key + "\" must be a number from " + range.str() + ", not " + value.dump());
        }
        d.*(field->member) = value.get<double>();
    }
    if (d.name.empty())
        throw Error(where + ": \"name\" is empty");
    return d;
}

SimDevice readSimDeviceFile(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        throw Error("cannot read simulated device file '" + path + "'");
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        throw Error("'" + path + "' is not valid JSON: " + e.what());
    }
    return simDeviceFromJson(j, "'" + path + "'");
}

void writeSimDeviceFile(const std::string& path, const SimDevice& device, const std::string& base)
{
    std::ofstream out(path);
    out << toJson(device, base).dump(2) << "\n";
    if (!out)
        throw Error("cannot write '" + path + "'");
}

bool isSimDeviceFileRef(const std::string& ref)
{
    const std::string name = ref.starts_with("sim:") ? ref.substr(4) : ref;
    return name.ends_with(".json") || name.find('/') != std::string::npos;
}

} // namespace opsched
