#include "map_pipeline.h"

#include "commands.h"

#include "map/solvers/pipeline_mapper.h"
#include "map/solvers/symmetry_cuts.h"
#include "schedule/schedule_file.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>

namespace opsched::cli {

int mapPipelineCommand(const Graph& graph, const map::MappingProblem& problem, const std::string& mapper,
    const map::MapperOptions& options, const std::string& output, bool json)
{
    const map::PipelineResult r = map::mapPipeline(mapper, problem, options);
    nlohmann::ordered_json j;
    j["format"] = "opsched-pipeline-mapping";
    j["model"] = graph.name();
    j["batch"] = graph.batch();
    j["objective"] = "pipeline";
    j["mapper"] = r.mapper;
    j["symmetry"] = map::toString(options.symmetry);
    j["status"] = map::toString(r.status);
    j["throughput_per_s"] = r.times.throughput;
    j["period_ms"] = r.times.period * 1e3;
    j["bottleneck"] = r.times.bottleneck;
    j["latency_ms"] = std::isfinite(r.latency) ? nlohmann::ordered_json(r.latency * 1e3) : nlohmann::ordered_json();
    j["solve_s"] = r.solveSeconds;
    j["milps"] = r.milps;
    j["symmetry_cuts"] = r.cuts;
    j["symmetry_compression"] = r.compression;
    j["note"] = r.note;
    j["devices"] = nlohmann::ordered_json::array();
    for (std::uint32_t u = 0; u < problem.deviceCount(); ++u) {
        std::size_t ops = 0;
        for (auto d : r.device)
            ops += d == u;
        j["devices"].push_back({ { "name", problem.devices[u].name }, { "node", problem.devices[u].node },
            { "ops", ops }, { "busy_ms", r.times.busy[u] * 1e3 }, { "memory_gb", r.times.memoryBytes[u] / 1e9 } });
    }
    j["ops"] = nlohmann::ordered_json::array();
    for (std::size_t t = 0; t < problem.taskCount(); ++t)
        j["ops"].push_back({ { "op", problem.tasks[t].name }, { "device", problem.devices[r.device[t]].name } });
    if (!output.empty())
        writeScheduleFile(output, j);
    if (json) {
        std::cout << j.dump(2) << "\n";
        return kExitOk;
    }
    std::printf("%s (pipeline) on %s, batch %lld, %zu ops over %zu devices, symmetry %s\n", r.mapper.c_str(),
        graph.name().c_str(), static_cast<long long>(graph.batch()), problem.taskCount(), problem.deviceCount(),
        map::toString(options.symmetry));
    std::printf("throughput   %.2f inputs/s (period %.4f ms, set by %s)\n", r.times.throughput, r.times.period * 1e3,
        r.times.bottleneck.c_str());
    std::printf("latency      %.4f ms for one input alone\n", r.latency * 1e3);
    std::printf("status       %s, %zu MILPs, %zu symmetry cuts, %.3f s\n", map::toString(r.status), r.milps, r.cuts,
        r.solveSeconds);
    if (!r.note.empty())
        std::printf("note         %s\n", r.note.c_str());
    for (std::uint32_t u = 0; u < problem.deviceCount(); ++u) {
        std::size_t ops = 0;
        for (auto d : r.device)
            ops += d == u;
        std::printf("%-16s %4zu ops, busy %9.4f ms, %8.2f GB resident\n", problem.devices[u].name.c_str(), ops,
            r.times.busy[u] * 1e3, r.times.memoryBytes[u] / 1e9);
    }
    if (!output.empty())
        std::printf("written to   %s\n", output.c_str());
    return kExitOk;
}

} // namespace opsched::cli
