#include "commands.h"

#include "engine/catalog.h"

#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>

namespace opsched::cli {
namespace {

std::string version(int v)
{
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

} // namespace

Runner addDevicesCommand(CLI::App& app)
{
    auto json = std::make_shared<bool>(false);
    auto* cmd = app.add_subcommand("devices", "Show the CUDA devices, cuDNN and CUPTI this machine offers");
    cmd->add_flag("--json", *json, "Print JSON");
    return [json]() {
        const auto [cuda, cupti] = engine::machineSupport();
        if (*json) {
            nlohmann::ordered_json doc = { { "cuda_built", cuda.built }, { "cuda_available", cuda.available },
                { "reason", cuda.reason }, { "runtime_version", cuda.runtimeVersion },
                { "driver_version", cuda.driverVersion }, { "cudnn_version", cuda.cudnnVersion },
                { "cupti_built", cupti.built }, { "cupti_api_version", cupti.apiVersion } };
            auto& devs = doc["devices"] = nlohmann::ordered_json::array();
            for (const auto& d : cuda.devices)
                devs.push_back({ { "index", d.index }, { "name", d.name },
                    { "compute_capability", std::to_string(d.computeMajor) + "." + std::to_string(d.computeMinor) },
                    { "multiprocessors", d.multiprocessors }, { "memory_bytes", d.totalMemoryBytes },
                    { "l2_bytes", d.l2CacheBytes } });
            std::cout << doc.dump(2) << "\n";
            return kExitOk;
        }
        if (!cuda.built) {
            std::cout << "cuda: " << cuda.reason << "\n";
        } else {
            std::cout << "cuda runtime " << version(cuda.runtimeVersion) << ", driver "
                      << (cuda.driverVersion ? version(cuda.driverVersion) : std::string("none")) << "\n";
            if (cuda.cudnnVersion)
                std::cout << "cudnn " << cuda.cudnnVersion / 10000 << "." << (cuda.cudnnVersion % 10000) / 100 << "."
                          << cuda.cudnnVersion % 100 << "\n";
            std::cout << "cupti " << (cupti.built ? "api " + std::to_string(cupti.apiVersion) : cupti.reason) << "\n";
            if (!cuda.available)
                std::cout << "cuda:0  not available: " << cuda.reason << "\n";
            for (const auto& d : cuda.devices)
                std::cout << "cuda:" << d.index << "  " << d.name << ", sm_" << d.computeMajor << d.computeMinor << ", "
                          << d.multiprocessors << " SMs, " << d.totalMemoryBytes / (1024 * 1024) << " MiB\n";
        }
        return kExitOk;
    };
}

} // namespace opsched::cli
