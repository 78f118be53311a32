#include "compare_mappers.h"

#include "commands.h"
#include "compare_pipeline.h"
#include "engine/map_devices.h"

#include "map/bounds/lower_bound.h"
#include "map/registry/mappers.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

namespace opsched::cli {

namespace {

// One mapper's row: makespan, status, gap, solve time, transfers (and throughput for L inputs).
struct Row {
    double makespan = 0, gap = 0, solveSeconds = 0;
    std::string status;
    std::size_t transfers = 0;
};

nlohmann::ordered_json rowJson(const std::string& mapper, const Row& m, double single, double inputs)
{
    nlohmann::ordered_json r;
    r["mapper"] = mapper;
    r["makespan_ms"] = m.makespan * 1e3;
    if (inputs > 0)
        r["throughput_per_s"] = inputs / m.makespan;
    r["speedup_over_bd"] = single > 0 ? single / m.makespan : 1.0;
    r["status"] = m.status;
    r["gap"] = std::isnan(m.gap) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(m.gap);
    r["solve_s"] = m.solveSeconds;
    r["transfers"] = m.transfers;
    return r;
}

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
    if (o.objective == "pipeline") {
        if (o.equalTime) {
            std::cerr << "opsched-cli: compare: --equal-time applies to latency and throughput (sa and ea are not "
                         "pipeline mappers)\n";
            return kExitUsage;
        }
        const map::MappingProblem problem = latencyProblem(graph, o.devices, o.link, "", cache, o.files);
        writeCostsIfAsked(o.files, problem, graph.batch());
        map::MapperOptions options;
        options.timeLimitSeconds = o.timeLimit;
        options.maxModuleTasks = o.maxModuleTasks;
        options.symmetry = symmetryOf(o.files);
        return comparePipelineMappers(graph, problem, options, json);
    }
    const bool throughput = o.objective == "throughput";
    std::optional<map::MappingProblem> problem;
    std::optional<map::ThroughputProblem> batched;
    if (throughput) {
        batched = throughputProblem(graph, o.devices, o.link, "", cache, o.files, o.inputs);
        writeCostsIfAsked(o.files, *batched);
    } else {
        problem = latencyProblem(graph, o.devices, o.link, "", cache, o.files);
        writeCostsIfAsked(o.files, *problem, graph.batch());
    }
    std::vector<std::string> devices;
    for (const auto& d : (throughput ? batched->base : *problem).devices)
        devices.push_back(d.name);
    std::string deviceList;
    for (const auto& d : devices)
        deviceList += (deviceList.empty() ? "" : ",") + d;
    const double bound = throughput ? map::throughputLowerBound(*batched) : map::lowerBound(*problem);
    map::MapperOptions options;
    options.timeLimitSeconds = o.timeLimit;
    options.maxModuleTasks = o.maxModuleTasks;
    options.symmetry = symmetryOf(o.files);
    auto runRow = [&](const std::string& name, const map::MapperOptions& mine) -> Row {
        if (throughput) {
            const map::ThroughputResult m = map::runThroughputMapper(name, *batched, mine);
            return { m.times.makespan, m.gap, m.solveSeconds, map::toString(m.status), m.times.transfers };
        }
        const map::MapResult m = map::runMapper(name, *problem, mine);
        return { m.times.makespan, m.gap, m.solveSeconds, map::toString(m.status), m.times.transfers.size() };
    };
    // The paper's equal-runtime comparison: milp-split first, then sa and ea for as long.
    std::optional<Row> split;
    if (o.equalTime) {
        try {
            split = runRow("milp-split", options);
        } catch (const Error&) {
        }
    }
    nlohmann::ordered_json results = nlohmann::ordered_json::array();
    double single = 0;
    for (const auto& info : map::mappers()) {
        try {
            map::MapperOptions mine = options;
            if (split && (info.name == "sa" || info.name == "ea"))
                mine.runSeconds = std::max(split->solveSeconds, 1e-3);
            const Row row = split && info.name == "milp-split" ? *split : runRow(info.name, mine);
            if (info.name == "bd")
                single = row.makespan;
            results.push_back(rowJson(info.name, row, single, throughput ? static_cast<double>(o.inputs) : 0.0));
        } catch (const Error& e) {
            // e.g. no CBC in this build, no feasible mapping, a MILP too large for throughput
            results.push_back(nlohmann::ordered_json { { "mapper", info.name }, { "error", e.what() } });
        }
    }
    if (json) {
        nlohmann::ordered_json doc;
        doc["model"] = graph.name();
        doc["batch"] = graph.batch();
        doc["devices"] = devices;
        doc["objective"] = throughput ? "throughput" : "latency";
        if (throughput)
            doc["inputs"] = o.inputs;
        doc["lower_bound_ms"] = bound * 1e3;
        doc["results"] = std::move(results);
        std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        return kExitOk;
    }
    if (throughput)
        std::printf("%s, %lld inputs split over %s (throughput; lower bound %.4f ms, at most %.1f inputs/s)\n",
            graph.name().c_str(), static_cast<long long>(o.inputs), deviceList.c_str(), bound * 1e3,
            static_cast<double>(o.inputs) / bound);
    else
        std::printf("%s, batch %lld, mapped over %s (latency; lower bound %.4f ms)\n", graph.name().c_str(),
            static_cast<long long>(graph.batch()), deviceList.c_str(), bound * 1e3);
    printMapperRows(results, throughput);
    return kExitOk;
}

} // namespace opsched::cli
