#include "engine/schedule_files.h"

namespace opsched::engine {

ScheduleDocument readScheduleDocument(const Graph& graph, const std::string& path)
{
    return readScheduleFile(graph, path);
}

ScheduleDocument scheduleDocumentFromJson(const Graph& graph, const nlohmann::json& json)
{
    return scheduleFromJson(graph, json);
}

ScheduleDocument documentOf(const Graph& graph, const SchedulerOutput& output, const std::string& scheduler)
{
    return output.schedule ? makeScheduleDocument(graph, *output.schedule, scheduler)
                           : makePlanDocument(graph, output.plan, scheduler);
}

ScheduleDocument planDocument(const Graph& graph, const Plan& plan, const std::string& scheduler)
{
    return makePlanDocument(graph, plan, scheduler);
}

nlohmann::ordered_json documentJson(const Graph& graph, const ScheduleDocument& doc)
{
    return toJson(graph, doc);
}

void addLatencyFields(nlohmann::ordered_json& j, const PlanLatency& latency, double floorSeconds)
{
    j["p10_ms"] = latency.p10 * 1e3;
    j["p90_ms"] = latency.p90 * 1e3;
    j["replays"] = latency.replays;
    j["floor_ms"] = floorSeconds * 1e3;
}

nlohmann::ordered_json documentJson(
    const Graph& graph, const ScheduleDocument& doc, const PlanLatency& latency, double floorSeconds)
{
    nlohmann::ordered_json fields;
    addLatencyFields(fields, latency, floorSeconds);
    const nlohmann::ordered_json plain = toJson(graph, doc);
    nlohmann::ordered_json out;
    bool placed = false;
    for (const auto& [key, value] : plain.items()) {
        out[key] = value;
        if (key == "latency_ms") {
            for (const auto& [k, v] : fields.items())
                out[k] = v;
            placed = true;
        }
    }
    if (!placed)
        for (const auto& [k, v] : fields.items())
            out[k] = v;
    return out;
}

void writeDocument(const std::string& path, const nlohmann::ordered_json& json)
{
    writeScheduleFile(path, json);
}

} // namespace opsched::engine
