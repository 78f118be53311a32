#include "compare_mappers.h"

#include "commands.h"
#include "compare_pipeline.h"

#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

namespace opsched::cli {

namespace {

void printMapperRows(const nlohmann::ordered_json& results, bool throughput)
{
    std::printf("%-11s %12s %s%8s %10s %8s %9s %9s\n", "mapper", "makespan_ms", throughput ? "  inputs/s " : "",
        "vs_bd", "status", "gap", "solve_s", "transfers");
    for (const auto& r : results) {
        if (r.contains("error")) {
            std::printf("%-11s %s\n", r["mapper"].get<std::string>().c_str(), r["error"].get<std::string>().c_str());
            continue;
        }
        char gap[16] = "-", rate[32] = "";
        if (r["gap"].is_number())
            std::snprintf(gap, sizeof gap, "%.1f%%", r["gap"].get<double>() * 100);
        if (throughput)
            std::snprintf(rate, sizeof rate, "%10.1f ", r["throughput_per_s"].get<double>());
        std::printf("%-11s %12.4f %s%7.2fx %10s %8s %9.3f %9zu\n", r["mapper"].get<std::string>().c_str(),
            r["makespan_ms"].get<double>(), rate, r["speedup_over_bd"].get<double>(),
            r["status"].get<std::string>().c_str(), gap, r["solve_s"].get<double>(), r["transfers"].get<std::size_t>());
    }
}

} // namespace

int compareMappers(const Graph& graph, const CompareMappersOptions& o, const CostCacheOptions& cache, bool json)
{
    if ((o.objective == "pipeline" || o.objective == "batch") && o.equalTime) {
        std::cerr << "opsched-cli: compare: --equal-time applies to latency and throughput (sa and ea are not "
                     "pipeline mappers)\n";
        return kExitUsage;
    }
    nlohmann::ordered_json doc = engine::compareMappers(graph, o, { cache, o.files, {}, {} }, o.equalTime);
    if (json) {
        std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        return kExitOk;
    }
    if (o.objective == "pipeline" || o.objective == "batch") {
        printPipelineTable(doc);
        return kExitOk;
    }
    const bool throughput = o.objective == "throughput";
    const double bound = doc["lower_bound_ms"].get<double>() * 1e-3;
    std::string deviceList;
    for (const auto& d : doc["devices"])
        deviceList += (deviceList.empty() ? "" : ",") + d.get<std::string>();
    if (throughput)
        std::printf("%s, %lld inputs split over %s (throughput; lower bound %.4f ms, at most %.1f inputs/s)\n",
            graph.name().c_str(), static_cast<long long>(o.inputs), deviceList.c_str(), bound * 1e3,
            static_cast<double>(o.inputs) / bound);
    else
        std::printf("%s, batch %lld, mapped over %s (latency; lower bound %.4f ms)\n", graph.name().c_str(),
            static_cast<long long>(graph.batch()), deviceList.c_str(), bound * 1e3);
    printMapperRows(doc["results"], throughput);
    return kExitOk;
}

} // namespace opsched::cli
