#include "sim/sim_device_file.h"

#include "util/error.h"

#include <cmath>
#include <fstream>
#include <utility>

namespace opsched {
namespace {

constexpr const char* kFormat = "opsched-sim-device";
constexpr int kVersion = 1;

struct Field {
    const char* name;
    double SimDevice::* member;
    bool fitted;       // a fit may change it
    bool zeroAllowed;  // penalties may be 0; rates and sizes may not
};

const std::vector<Field>& doubleFields()
{
    static const std::vector<Field> fields = {
        { "peak_flops", &SimDevice::peakFlops, false, false },
        { "memory_bandwidth", &SimDevice::memoryBandwidth, false, false },
        { "l2_bytes", &SimDevice::l2Bytes, false, false },
        { "saturation_warps_per_sm", &SimDevice::saturationWarpsPerSm, true, false },
        { "compute_efficiency", &SimDevice::computeEfficiency, true, false },
        { "memory_efficiency", &SimDevice::memoryEfficiency, true, false },
        { "host_launch_seconds", &SimDevice::hostLaunchSeconds, true, true },
        { "launch_latency_seconds", &SimDevice::launchLatencySeconds, true, true },
        { "device_launch_seconds", &SimDevice::deviceLaunchSeconds, true, true },
        { "event_wait_seconds", &SimDevice::eventWaitSeconds, true, true },
        { "barrier_seconds", &SimDevice::barrierSeconds, true, true },
        { "stream_sync_seconds", &SimDevice::streamSyncSeconds, true, true },
        { "concurrency_penalty", &SimDevice::concurrencyPenalty, true, true },
        { "contention", &SimDevice::contention, true, true },
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
    if (!j.is_object() || j.value("format", "") != kFormat)
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
        if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0 ||
            (!field->zeroAllowed && value.get<double>() == 0))
            throw Error(where + ": \"" + key + "\" must be a " + (field->zeroAllowed ? "non-negative" : "positive") +
                        " number");
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
