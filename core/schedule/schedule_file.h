// The schedule file format (JSON, versioned; README documents it):
// {"format":"opsched-schedule","version":1,"model":...,"model_sha256":...,"batch":...,
//  "device":...,"scheduler":...,"params":{...},"latency_ms":...,
//  "stages":[{"strategy":"concurrent","groups":[["op","op"],["op"]]},...]}
#pragma once

#include "schedule/schedule.h"
#include "util/error.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace opsched {

class ScheduleFileError : public Error {
public:
    using Error::Error;
};

struct ScheduleDocument {
    std::string model;
    std::string modelSha256;
    std::int64_t batch = 1;
    std::string device;
    std::string scheduler;
    nlohmann::ordered_json params = nlohmann::ordered_json::object();
    std::optional<double> latencyMs;
    Schedule schedule;
};

inline constexpr int kScheduleFormatVersion = 1;

// Fills model, model_sha256 and batch from the graph.
ScheduleDocument makeScheduleDocument(const Graph& graph, Schedule schedule, std::string scheduler);

nlohmann::ordered_json toJson(const Graph& graph, const ScheduleDocument& doc);

// Reads a schedule for `graph`. Throws ScheduleFileError naming the problem: not JSON, another
// format or version, another model (name or fingerprint), unknown op names, malformed stages.
// Validity of the schedule itself is checked separately (validate()).
ScheduleDocument scheduleFromJson(const Graph& graph, const nlohmann::json& json);
ScheduleDocument readScheduleFile(const Graph& graph, const std::string& path);
// Writes through a temporary file and a rename, so an existing file is never left half written.
void writeScheduleFile(const std::string& path, const nlohmann::ordered_json& json);

} // namespace opsched
