#include "compare_pipeline.h"

#include <cstdio>
#include <string>

namespace opsched::cli {

void printPipelineTable(const nlohmann::ordered_json& doc)
{
    const bool batched = doc["objective"] == "batch";
    if (batched)
        std::printf("%s, %lld inputs in batches of %lld, pipelined over %zu devices (inputs/s with fill and drain; "
                    "symmetry %s; baseline %s)\n",
            doc["model"].get<std::string>().c_str(), static_cast<long long>(doc["inputs"].get<std::int64_t>()),
            static_cast<long long>(doc["batch_size"].get<std::int64_t>()), doc["devices"].size(),
            doc["symmetry"].get<std::string>().c_str(), doc["baseline"].get<std::string>().c_str());
    else
        std::printf("%s, batch %lld, pipelined over %zu devices (steady-state inputs/s; symmetry %s; baseline %s)\n",
            doc["model"].get<std::string>().c_str(), static_cast<long long>(doc["batch"].get<std::int64_t>()),
            doc["devices"].size(), doc["symmetry"].get<std::string>().c_str(),
            doc["baseline"].get<std::string>().c_str());
    std::printf("%-22s %10s %10s %12s %11s %10s %9s\n", "mapper", "inputs/s", batched ? "makespan_ms" : "period_ms",
        "vs_baseline", "latency_ms", "status", "solve_s");
    for (const auto& r : doc["results"]) {
        const std::string name = r["mapper"].get<std::string>();
        if (r.contains("error")) {
            std::printf("%-22s %s\n", name.c_str(), r["error"].get<std::string>().c_str());
            continue;
        }
        char ratio[16] = "-", latency[16] = "-";
        if (r["vs_baseline"].is_number())
            std::snprintf(ratio, sizeof ratio, "%.4fx", r["vs_baseline"].get<double>());
        if (r["latency_ms"].is_number())
            std::snprintf(latency, sizeof latency, "%.4f", r["latency_ms"].get<double>());
        std::printf("%-22s %10.3f %10.4f %12s %11s %10s %9.3f\n", name.c_str(), r["throughput_per_s"].get<double>(),
            r[batched ? "makespan_ms" : "period_ms"].get<double>(), ratio, latency,
            r["status"].get<std::string>().c_str(), r["solve_s"].get<double>());
    }
}

} // namespace opsched::cli
