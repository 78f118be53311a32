// The schedule and plan file formats (JSON, versioned; docs/formats.md documents them). Both share a header:
// {"format":"opsched-schedule"|"opsched-plan","version":1,"model":...,"model_sha256":...,
//  "batch":...,"device":...,"scheduler":...,"params":{...},"latency_ms":..., ...}
// then a schedule has "stages":[{"strategy":"concurrent","groups":[["op","op"],["op"]]},...]
// and a plan has "streams":N,"launches":[{"ops":["op"],"stream":0,"wait_for":[launch index]}],
// "barriers":[launch index].
#pragma once

#include "plan/plan.h"
#include "plan/schedule.h"
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
    // Exactly one of the two: stage schedulers write a schedule, Nimble and Opara a plan.
    std::optional<Schedule> schedule;
    std::optional<Plan> plan;

    // The plan to run: the plan itself, or the compiled schedule.
    Plan executablePlan(const Graph& graph) const;
};

inline constexpr int kScheduleFormatVersion = 1;

// Fills model, model_sha256 and batch from the graph.
ScheduleDocument makeScheduleDocument(const Graph& graph, Schedule schedule, std::string scheduler);
ScheduleDocument makePlanDocument(const Graph& graph, Plan plan, std::string scheduler);

nlohmann::ordered_json toJson(const Graph& graph, const ScheduleDocument& doc);

// Reads a schedule or plan for `graph`. Throws ScheduleFileError naming the problem: not JSON,
// another format or version, another model (name or fingerprint), unknown op names, malformed
// stages or launches. Validity of the schedule or plan itself is checked separately (validate()).
ScheduleDocument scheduleFromJson(const Graph& graph, const nlohmann::json& json);
ScheduleDocument readScheduleFile(const Graph& graph, const std::string& path);
// Writes through a temporary file and a rename, so an existing file is never left half written.
void writeScheduleFile(const std::string& path, const nlohmann::ordered_json& json);

} // namespace opsched
