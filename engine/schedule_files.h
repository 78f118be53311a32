// Schedule and plan files (docs/schedule-format.md) as every front end reads and writes them:
// `schedule -o`, `evaluate`, `run --schedule`, the window's File > Open Schedule and Export.
#pragma once

#include "engine/device_target.h"

#include "graph/graph.h"
#include "schedule/schedule_file.h"
#include "schedule/schedulers.h"

#include <nlohmann/json.hpp>

#include <string>

namespace opsched::engine {

// A schedule or plan for `graph`; throws ScheduleFileError naming the file and the problem (not
// JSON, another format, another model, unknown ops). Whether the schedule itself is valid is
// evaluation's question (engine/evaluation.h).
ScheduleDocument readScheduleDocument(const Graph& graph, const std::string& path);
ScheduleDocument scheduleDocumentFromJson(const Graph& graph, const nlohmann::json& json);

// A scheduler's result as a document: its stage schedule when it has one, else its plan.
ScheduleDocument documentOf(const Graph& graph, const SchedulerOutput& output, const std::string& scheduler);
ScheduleDocument planDocument(const Graph& graph, const Plan& plan, const std::string& scheduler);
// The document as written; with a latency, its spread and the critical-path floor right after
// "latency_ms" (p10_ms, p90_ms, replays, floor_ms).
nlohmann::ordered_json documentJson(const Graph& graph, const ScheduleDocument& doc);
nlohmann::ordered_json documentJson(
    const Graph& graph, const ScheduleDocument& doc, const PlanLatency& latency, double floorSeconds);

// Appends "p10_ms", "p90_ms", "replays" and "floor_ms" (the latency itself is "latency_ms").
void addLatencyFields(nlohmann::ordered_json& j, const PlanLatency& latency, double floorSeconds);

// Written through a temporary file and a rename: an existing file is never left half written.
// Also writes mapping files (engine/map_actions.h).
void writeDocument(const std::string& path, const nlohmann::ordered_json& json);

} // namespace opsched::engine
