// The --device option shared by schedule, evaluate and compare.
#pragma once

#include "schedule/stage_cost.h"

#include <memory>
#include <string>

namespace opsched::cli {

inline constexpr const char* kDefaultDevice = "sim:v100";

// sim:NAME -> the simulated GPU. cuda:N is refused with a message until the measured cost model
// exists, and always when there is no device. Throws Error.
std::unique_ptr<StageCostModel> makeCostModel(const std::string& device);

// The simulated device behind a reference (sim:NAME), for evaluating whole plans.
const SimDevice& simDeviceFor(const std::string& device);

} // namespace opsched::cli
