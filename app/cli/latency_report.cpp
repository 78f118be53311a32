#include "latency_report.h"

#include <cstdio>

namespace opsched::cli {

nlohmann::ordered_json optionalJson(const std::optional<double>& v)
{
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json();
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
