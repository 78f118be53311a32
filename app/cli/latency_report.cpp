#include "latency_report.h"

#include <cstdio>

namespace opsched::cli {

nlohmann::ordered_json optionalJson(const std::optional<double>& v)
{
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json();
}

void addLatencyFields(nlohmann::ordered_json& j, const PlanLatency& latency, double floorSeconds)
{
    j["p10_ms"] = latency.p10 * 1e3;
    j["p90_ms"] = latency.p90 * 1e3;
    j["replays"] = latency.replays;
    j["floor_ms"] = floorSeconds * 1e3;
}

nlohmann::ordered_json withLatencyFields(
    const nlohmann::ordered_json& doc, const PlanLatency& latency, double floorSeconds)
{
    nlohmann::ordered_json fields;
    addLatencyFields(fields, latency, floorSeconds);
    nlohmann::ordered_json out;
    bool placed = false;
    for (const auto& [key, value] : doc.items()) {
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

void printLatencyLines(const PlanLatency& latency, double floorSeconds)
{
    if (latency.replays > 1)
        std::printf("latency      %.3f ms (median of %d replays, p10 %.3f, p90 %.3f)\n", latency.median * 1e3,
            latency.replays, latency.p10 * 1e3, latency.p90 * 1e3);
    else
        std::printf("latency      %.3f ms\n", latency.median * 1e3);
    if (floorSeconds > 0)
        std::printf("ops alone    %.3f ms (critical path of ops timed alone; latency %.2fx)\n", floorSeconds * 1e3,
            latency.median / floorSeconds);
    else
        std::printf("ops alone    %.3f ms (critical path of ops timed alone)\n", floorSeconds * 1e3);
}

} // namespace opsched::cli
