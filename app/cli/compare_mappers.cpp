#include "compare_mappers.h"

#include "commands.h"
#include "map_devices.h"

#include "map/lower_bound.h"
#include "map/mappers.h"
#include "util/error.h"

#include <cmath>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

namespace opsched::cli {

int compareMappers(const Graph& graph, const CompareMappersOptions& o, const CostCacheOptions& cache, bool json)
{
    const auto devices = parseDeviceList(o.devices);
    const map::MappingProblem problem = mappingProblemFor(graph, devices, o.link, "", cache);
    const double bound = map::lowerBound(problem);
    map::MapperOptions options;
    options.timeLimitSeconds = o.timeLimit;
    nlohmann::ordered_json results = nlohmann::ordered_json::array();
    double single = 0;
    for (const auto& info : map::mappers()) {
        nlohmann::ordered_json r;
        r["mapper"] = info.name;
        try {
            const map::MapResult m = map::runMapper(info.name, problem, options);
            if (info.name == "bd")
                single = m.times.makespan;
            r["makespan_ms"] = m.times.makespan * 1e3;
            r["speedup_over_bd"] = single > 0 ? single / m.times.makespan : 1.0;
            r["status"] = map::toString(m.status);
            r["gap"] = std::isnan(m.gap) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(m.gap);
            r["solve_s"] = m.solveSeconds;
            r["transfers"] = m.times.transfers.size();
        } catch (const Error& e) {
            r["error"] = e.what(); // e.g. no CBC in this build, or no feasible mapping
        }
        results.push_back(std::move(r));
    }
    if (json) {
        nlohmann::ordered_json doc;
        doc["model"] = graph.name();
        doc["batch"] = graph.batch();
        doc["devices"] = devices;
        doc["lower_bound_ms"] = bound * 1e3;
        doc["results"] = std::move(results);
        std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        return kExitOk;
    }
    std::printf("%s, batch %lld, mapped over %s (latency; lower bound %.4f ms)\n", graph.name().c_str(),
                static_cast<long long>(graph.batch()), o.devices.c_str(), bound * 1e3);
    std::printf("%-11s %12s %8s %10s %8s %9s %9s\n", "mapper", "makespan_ms", "vs_bd", "status", "gap", "solve_s",
                "transfers");
    for (const auto& r : results) {
        if (r.contains("error")) {
            std::printf("%-11s %s\n", r["mapper"].get<std::string>().c_str(), r["error"].get<std::string>().c_str());
            continue;
        }
        char gap[16] = "-";
        if (r["gap"].is_number())
            std::snprintf(gap, sizeof gap, "%.1f%%", r["gap"].get<double>() * 100);
        std::printf("%-11s %12.4f %7.2fx %10s %8s %9.3f %9zu\n", r["mapper"].get<std::string>().c_str(),
                    r["makespan_ms"].get<double>(), r["speedup_over_bd"].get<double>(),
                    r["status"].get<std::string>().c_str(), gap, r["solve_s"].get<double>(),
                    r["transfers"].get<std::size_t>());
    }
    return kExitOk;
}

} // namespace opsched::cli
