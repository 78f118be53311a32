#include "compare_pipeline.h"

#include "commands.h"

#include "map/solvers/pipeline_mapper.h"
#include "map/solvers/symmetry_cuts.h"
#include "util/error.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>

namespace opsched::cli {

namespace {

// The row every other is measured against: the replicated single-node MILP where the problem is
// N equal parts on N equal nodes (the paper's baseline), else the greedy mapper.
std::string baselineOf(const nlohmann::ordered_json& rows)
{
    for (const char* name : { "replicated-milp", "greedy" })
        for (const auto& r : rows)
            if (r["mapper"] == name && !r.contains("error"))
                return name;
    return {};
}

nlohmann::ordered_json pipelineRow(const map::PipelineResult& r)
{
    nlohmann::ordered_json row;
    row["mapper"] = r.mapper;
    row["throughput_per_s"] = r.times.throughput;
    row["period_ms"] = r.times.period * 1e3;
    row["bottleneck"] = r.times.bottleneck;
    row["latency_ms"] = std::isfinite(r.latency) ? nlohmann::ordered_json(r.latency * 1e3) : nlohmann::ordered_json();
    row["status"] = map::toString(r.status);
    row["solve_s"] = r.solveSeconds;
    row["milps"] = r.milps;
    row["note"] = r.note;
    return row;
}

void printPipelineTable(const Graph& graph, const map::MappingProblem& problem, const nlohmann::ordered_json& doc)
{
    std::printf("%s, batch %lld, pipelined over %zu devices (steady-state inputs/s; symmetry %s; baseline %s)\n",
        graph.name().c_str(), static_cast<long long>(graph.batch()), problem.deviceCount(),
        doc["symmetry"].get<std::string>().c_str(), doc["baseline"].get<std::string>().c_str());
    std::printf("%-22s %10s %10s %12s %11s %10s %9s\n", "mapper", "inputs/s", "period_ms", "vs_baseline", "latency_ms",
        "status", "solve_s");
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
            r["period_ms"].get<double>(), ratio, latency, r["status"].get<std::string>().c_str(),
            r["solve_s"].get<double>());
    }
}

} // namespace

int comparePipelineMappers(
    const Graph& graph, const map::MappingProblem& problem, const map::MapperOptions& options, bool json)
{
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const auto& info : map::pipelineMappers()) {
        try {
            rows.push_back(pipelineRow(map::mapPipeline(info.name, problem, options)));
        } catch (const Error& e) {
            // e.g. replicated mappers on a problem that is not N equal parts on N equal nodes
            rows.push_back(nlohmann::ordered_json { { "mapper", info.name }, { "error", e.what() } });
        }
    }
    const std::string baseline = baselineOf(rows);
    double base = 0;
    for (const auto& r : rows)
        if (r["mapper"] == baseline)
            base = r["throughput_per_s"].get<double>();
    for (auto& r : rows)
        if (!r.contains("error"))
            r["vs_baseline"] = base > 0 ? nlohmann::ordered_json(r["throughput_per_s"].get<double>() / base)
                                        : nlohmann::ordered_json();
    nlohmann::ordered_json doc;
    doc["model"] = graph.name();
    doc["batch"] = graph.batch();
    doc["devices"] = nlohmann::ordered_json::array();
    for (const auto& d : problem.devices)
        doc["devices"].push_back(d.name);
    doc["objective"] = "pipeline";
    doc["symmetry"] = map::toString(options.symmetry);
    doc["baseline"] = baseline;
    doc["results"] = std::move(rows);
    if (json)
        std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    else
        printPipelineTable(graph, problem, doc);
    return kExitOk;
}

} // namespace opsched::cli
