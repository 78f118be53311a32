#include "run_mapping.h"

#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

namespace opsched::cli {

void addMappingJson(nlohmann::ordered_json& j, const Graph& graph, const MappingRun& run,
    const std::vector<cpu::LaunchTiming>& timings, double medianMs)
{
    nlohmann::ordered_json m;
    m["file_mapper"] = run.doc.mapper;
    m["devices"] = run.doc.devices;
    m["predicted_ms"] = run.predictedMs > 0 ? nlohmann::ordered_json(run.predictedMs) : nlohmann::ordered_json(nullptr);
    m["measured_ms"] = medianMs;
    m["measured_span_ms"] = measuredSpanMs(timings);
    m["measured_over_predicted"]
        = run.predictedMs > 0 ? nlohmann::ordered_json(medianMs / run.predictedMs) : nlohmann::ordered_json(nullptr);
    std::int64_t origin = std::numeric_limits<std::int64_t>::max();
    for (const auto& t : timings)
        origin = std::min(origin, t.startNs);
    auto ops = nlohmann::ordered_json::array();
    for (const auto& t : timings) {
        for (OpId op : run.plan.launches[t.launch].ops) {
            nlohmann::ordered_json o { { "op", graph.op(op).name },
                { "device", run.doc.devices[run.doc.mapping.device[op.value()]] },
                { "start_ms", static_cast<double>(t.startNs - origin) * 1e-6 },
                { "end_ms", static_cast<double>(t.endNs - origin) * 1e-6 } };
            if (!run.predictedStart.empty()) {
                o["predicted_start_ms"] = run.predictedStart[op.value()] * 1e3;
                o["predicted_end_ms"] = run.predictedFinish[op.value()] * 1e3;
            }
            ops.push_back(std::move(o));
        }
    }
    m["ops"] = ops;
    j["mapping"] = m;
}

void printMappingText(
    const MappingRun& run, const std::vector<cpu::LaunchTiming>& timings, double medianMs, double spread)
{
    std::string devices;
    for (std::size_t u = 0; u < run.doc.devices.size(); ++u) {
        devices += (u ? ", " : "") + run.doc.devices[u] + " (cores";
        if (run.partitions.empty())
            devices += " all";
        for (int c : u < run.partitions.size() ? run.partitions[u] : std::vector<int> {})
            devices += " " + std::to_string(c);
        devices += ")";
    }
    std::printf(
        "mapping      %s over %s\n", run.doc.mapper.empty() ? "hand-made" : run.doc.mapper.c_str(), devices.c_str());
    if (run.predictedMs > 0) {
        std::printf("makespan     %.3f ms measured (median), %.3f ms predicted: %.2fx (error %+.1f%%); last run's span "
                    "%.3f ms\n",
            medianMs, run.predictedMs, medianMs / run.predictedMs, 100.0 * (medianMs / run.predictedMs - 1.0),
            measuredSpanMs(timings));
        // An error smaller than the rounds' own spread says nothing about the prediction.
        if (spread > 0.10)
            std::printf("             the rounds were %.0f%% apart: too unsteady to judge the prediction by "
                        "(a busy machine; --rounds for more)\n",
                100.0 * spread);
    } else
        std::printf("makespan     %.3f ms measured (median; the file has no costs to predict it from)\n", medianMs);
}

} // namespace opsched::cli
