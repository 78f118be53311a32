#include "map_pipeline.h"

#include <cstdio>
#include <iostream>

namespace opsched::cli {

namespace {

void printDevices(const map::PipelineResult& r, const map::MappingProblem& problem, const std::string& output)
{
    std::printf("status       %s, %zu MILPs, %zu symmetry cuts, %.3f s\n", map::toString(r.status), r.milps, r.cuts,
        r.solveSeconds);
    if (!r.note.empty())
        std::printf("note         %s\n", r.note.c_str());
    for (std::uint32_t u = 0; u < problem.deviceCount(); ++u) {
        std::size_t ops = 0;
        for (auto d : r.device)
            ops += d == u;
        std::printf("%-16s %4zu ops, busy %9.4f ms, %8.2f GiB resident\n", problem.devices[u].name.c_str(), ops,
            r.times.busy[u] * 1e3, r.times.memoryBytes[u] / 1073741824.0);
    }
    if (!output.empty())
        std::printf("written to   %s\n", output.c_str());
}

} // namespace

void printBatchedMapping(const Graph& graph, const engine::BatchedMapping& m, const std::string& output, bool json)
{
    if (json) {
        std::cout << m.document.dump(2) << "\n";
        return;
    }
    const map::PipelineResult& r = m.result;
    std::printf("%s (batch) on %s, %lld inputs in batches of %lld, %zu ops over %zu devices, symmetry %s\n",
        r.mapper.c_str(), graph.name().c_str(), static_cast<long long>(m.run.inputs),
        static_cast<long long>(m.run.batch), m.perInput.taskCount(), m.perInput.deviceCount(),
        m.document["symmetry"].get<std::string>().c_str());
    std::printf("throughput   %.3f inputs/s (%lld inputs in %.4f ms, fill and drain included)\n", m.run.throughput,
        static_cast<long long>(m.run.inputs), m.run.makespan * 1e3);
    std::printf("steady state %.3f inputs/s (period %.4f ms per input in batches of %lld, set by %s)\n",
        r.times.throughput, r.times.period * 1e3, static_cast<long long>(m.run.batch), r.times.bottleneck.c_str());
    printDevices(r, m.perInput, output);
}

void printPipelineMapping(const Graph& graph, const engine::PipelineMapping& m, const std::string& output, bool json)
{
    if (json) {
        std::cout << m.document.dump(2) << "\n";
        return;
    }
    const map::PipelineResult& r = m.result;
    const map::MappingProblem& problem = m.problem;
    std::printf("%s (pipeline) on %s, batch %lld, %zu ops over %zu devices, symmetry %s\n", r.mapper.c_str(),
        graph.name().c_str(), static_cast<long long>(graph.batch()), problem.taskCount(), problem.deviceCount(),
        m.document["symmetry"].get<std::string>().c_str());
    std::printf("throughput   %.2f inputs/s (period %.4f ms, set by %s)\n", r.times.throughput, r.times.period * 1e3,
        r.times.bottleneck.c_str());
    std::printf("latency      %.4f ms for one input alone\n", r.latency * 1e3);
    printDevices(r, problem, output);
}

} // namespace opsched::cli
