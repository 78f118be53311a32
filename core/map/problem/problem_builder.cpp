#include "map/problem/problem_builder.h"

#include "map/problem/paper_devices.h"

#include "sim/simulator.h"
#include "util/error.h"

#include <algorithm>

namespace opsched::map {
namespace {

// Device memory of the simulated GPU presets (their smallest common configuration).
double gpuMemoryBytes(const std::string& preset)
{
    constexpr double GB = 1024.0 * 1024 * 1024;
    if (preset == "a100")
        return 40 * GB;
    if (preset == "h100")
        return 80 * GB;
    if (preset == "t4" || preset == "v100")
        return 16 * GB;
    if (preset == "k80")
        return 12 * GB;
    if (preset == "rtx2080ti")
        return 11 * GB;
    return kUnsupported;
}

} // namespace

std::optional<DeviceCosts> simulatedDeviceCosts(const Graph& graph, const std::string& name)
{
    if (name.rfind("sim:", 0) != 0)
        return std::nullopt;
    if (auto paper = paperDeviceCosts(graph, name)) // Table II's relative speeds (paper_devices.h)
        return paper;
    const std::string preset = name.substr(4);
    for (const SimCpu& cpu : simCpus())
        if (cpu.name == preset)
            return DeviceCosts { name, simulatedOpSeconds(graph, cpu), cpu.memoryBytes };
    const SimDevice* gpu = nullptr;
    try {
        gpu = &findSimDevice(name);
    } catch (const Error& e) {
        std::string cpus;
        for (const SimCpu& cpu : simCpus())
            cpus += ", sim:" + cpu.name;
        throw Error(std::string(e.what()) + "; simulated CPUs for mapping: " + cpus.substr(2)
            + "; the paper's relative speeds: sim:paper-a100, sim:paper-t4, sim:paper-xeon; with ops preferring "
              "different devices: sim:mixed-a100, sim:mixed-t4, sim:mixed-xeon");
    }
    return DeviceCosts { name, simulatedOpSeconds(graph, *gpu), gpuMemoryBytes(gpu->name) };
}

Link defaultLink(const std::string& from, const std::string& to)
{
    if (from.rfind("cpu:", 0) == 0 && to.rfind("cpu:", 0) == 0)
        return { kSharedMemoryBandwidth, 5e-6 };
    return { 25e9, 10e-6 };
}

MappingProblem buildProblem(
    const Graph& graph, const std::vector<DeviceCosts>& devices, const std::vector<std::vector<Link>>& links)
{
    MappingProblem p;
    for (const auto& d : devices) {
        if (d.opSeconds.size() != graph.opCount())
            throw Error("costs for " + d.name + " cover " + std::to_string(d.opSeconds.size()) + " of "
                + std::to_string(graph.opCount()) + " ops");
        p.devices.push_back({ d.name, d.memoryBytes });
    }
    p.links = links;
    p.dag = graph.dag();
    for (const Op& op : graph.ops()) {
        MapTask t;
        t.name = op.name;
        for (const auto& d : devices)
            t.seconds.push_back(d.opSeconds[op.id.value()]);
        t.outputBytes = static_cast<double>(graph.tensor(op.output).bytes());
        for (TensorId in : op.inputTensors())
            t.inputBytes += static_cast<double>(graph.tensor(in).bytes());
        for (const Layer& layer : op.layers)
            for (TensorId w : layer.weights)
                t.weightBytes += static_cast<double>(graph.tensor(w).bytes());
        p.tasks.push_back(std::move(t));
    }
    p.validate();
    return p;
}

ThroughputProblem buildThroughputProblem(const Graph& graph, MappingProblem base, std::int64_t inputs,
    const std::function<std::vector<DeviceCosts>(const Graph&)>& costsAt)
{
    if (graph.batch() != 1)
        throw Error("throughput problem: the graph must be at batch 1 (the inputs are the batch)");
    ThroughputProblem p;
    p.base = std::move(base);
    const std::size_t k = p.base.deviceCount();
    p.inputs = inputs;
    p.sizes = paperBatchSizes(inputs);
    p.splits = enumerateSplits(inputs, p.sizes, k);
    addPipelinedSplits(p); // throughput (throughput_problem.h): several batches per op and device
    p.seconds.assign(graph.opCount(), std::vector<std::vector<double>>(k, std::vector<double>(p.sizes.size())));
    for (std::size_t s = 0; s < p.sizes.size(); ++s) {
        const auto devices = costsAt(graph.withBatch(p.sizes[s]));
        if (devices.size() != k)
            throw Error("throughput problem: costs for " + std::to_string(devices.size()) + " of " + std::to_string(k)
                + " devices");
        for (std::size_t u = 0; u < k; ++u)
            for (std::size_t t = 0; t < graph.opCount(); ++t)
                p.seconds[t][u][s] = devices[u].opSeconds.at(t);
    }
    p.validate();
    return p;
}

} // namespace opsched::map
