// How schedule, evaluate and compare print a latency: the median with its spread (p10/p90 of the
// replays on a measured device) and the critical-path floor next to it, in text and JSON alike.
#pragma once

#include "common_options.h"
#include "engine/device_target.h"
#include "engine/schedule_files.h"

#include <nlohmann/json.hpp>

#include <optional>

namespace opsched::cli {

nlohmann::ordered_json optionalJson(const std::optional<double>& v);

// engine::addLatencyFields (engine/schedule_files.h) writes the same in JSON.
// "latency      0.856 ms[ (median of 100 replays, p10 0.850, p90 0.870)]"
// "floor        0.512 ms (critical path, each op alone; latency 1.67x)"
void printLatencyLines(const PlanLatency& latency, double floorSeconds);

} // namespace opsched::cli
