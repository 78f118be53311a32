#include "compare_mappers.h"

#include "commands.h"
#include "map_devices.h"

#include "map/batched_mappers.h"
#include "map/lower_bound.h"
#include "map/mappers.h"
#include "util/error.h"

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

} // namespace

int compareMappers(const Graph& graph, const CompareMappersOptions& o, const CostCacheOptions& cache, bool json)
{
    const auto devices = parseDeviceList(o.devices);
    const bool throughput = o.objective == "throughput";
    std::optional<map::MappingProblem> problem;
    std::optional<map::BatchedProblem> batched;
    if (throughput)
        batched = batchedProblemFor(graph, devices, o.link, "", cache, o.inputs);
    else
        problem = mappingProblemFor(graph, devices, o.link, "", cache);
    const double bound = throughput ? map::batchedLowerBound(*batched) : map::lowerBound(*problem);
    map::MapperOptions options;
    options.timeLimitSeconds = o.timeLimit;
    nlohmann::ordered_json results = nlohmann::ordered_json::array();
    double single = 0;
    for (const auto& info : map::mappers()) {
        try {
            Row row;
            if (throughput) {
                const map::BatchedResult m = map::runBatchedMapper(info.name, *batched, options);
                row = {m.times.makespan, m.gap, m.solveSeconds, map::toString(m.status), m.times.transfers};
            } else {
                const map::MapResult m = map::runMapper(info.name, *problem, options);
                row = {m.times.makespan, m.gap, m.solveSeconds, map::toString(m.status), m.times.transfers.size()};
            }
            if (info.name == "bd")
                single = row.makespan;
            results.push_back(rowJson(info.name, row, single, throughput ? static_cast<double>(o.inputs) : 0.0));
        } catch (const Error& e) {
            // e.g. no CBC in this build, no feasible mapping, a MILP too large for throughput
            results.push_back(nlohmann::ordered_json{{"mapper", info.name}, {"error", e.what()}});
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
                    graph.name().c_str(), static_cast<long long>(o.inputs), o.devices.c_str(), bound * 1e3,
                    static_cast<double>(o.inputs) / bound);
    else
        std::printf("%s, batch %lld, mapped over %s (latency; lower bound %.4f ms)\n", graph.name().c_str(),
                    static_cast<long long>(graph.batch()), o.devices.c_str(), bound * 1e3);
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
                    r["status"].get<std::string>().c_str(), gap, r["solve_s"].get<double>(),
                    r["transfers"].get<std::size_t>());
    }
    return kExitOk;
}

} // namespace opsched::cli
