// Simulated devices as JSON files: what `calibrate` writes after fitting the constants to
// measurements, and what `--device sim:FILE.json` loads.
//
//   { "format": "opsched-sim-device", "version": 1, "name": "h100-fitted", "base": "h100",
//     "description": "...", "multiprocessors": 132, ..., "contention": 0.3 }
//
// Fields left out keep the base preset's value (no base: v100's defaults).
#pragma once

#include "sim/sim_device.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace opsched {

// The constants a fit may change (the public specs stay as the data sheet says), by JSON name.
const std::vector<std::string>& fittedSimConstants();
double& simConstant(SimDevice& device, const std::string& name);
double simConstant(const SimDevice& device, const std::string& name);

nlohmann::ordered_json toJson(const SimDevice& device, const std::string& base);
// Throws Error naming the field when one is unknown, not a number, or out of range.
SimDevice simDeviceFromJson(const nlohmann::json& j, const std::string& where);

// Throws Error naming the file when it cannot be read or is not a device file.
SimDevice readSimDeviceFile(const std::string& path);
void writeSimDeviceFile(const std::string& path, const SimDevice& device, const std::string& base);

// True when a --device reference names a file ("sim:path/to/dev.json") rather than a preset.
bool isSimDeviceFileRef(const std::string& ref);

} // namespace opsched
