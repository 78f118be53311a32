#include "engine/map_devices.h"

#include "exec/cpu/cpu_executor.h"
#include "graph/fingerprint.h"
#include "schedule/basic_schedulers.h"
#include "session/stage_cost_store.h"
#include "util/error.h"
#include "util/printable.h"
#include "util/statistics.h"

#include <unistd.h>

#include <memory>

#include <atomic>
#include <charconv>
#include <cmath>
#include <sstream>
#include <thread>

namespace opsched::engine {

map::Link parseLink(const std::string& text)
{
    const auto comma = text.find(',');
    auto number = [&](const std::string& s, const char* what) {
        double v = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc {} || end != s.data() + s.size() || !std::isfinite(v) || v < 0)
            throw Error(
                std::string("--link: ") + what + " '" + s + "' is not a non-negative number (GBPS[,LATENCY_US])");
        return v;
    };
    const double gbps = number(text.substr(0, comma), "bandwidth"); // 0: no link, nothing crosses
    const double us = comma == std::string::npos ? 0.0 : number(text.substr(comma + 1), "latency");
    return { gbps * 1e9, us * 1e-6 };
}

std::vector<std::vector<map::Link>> linksFor(
    const std::vector<std::string>& devices, const std::optional<map::Link>& link)
{
    std::vector<std::vector<map::Link>> out(devices.size(), std::vector<map::Link>(devices.size()));
    for (std::size_t u = 0; u < devices.size(); ++u)
        for (std::size_t v = 0; v < devices.size(); ++v)
            if (u != v)
                out[u][v] = link ? *link : map::defaultLink(devices[u], devices[v]);
    return out;
}

std::vector<double> parseMemory(const std::string& list, std::size_t devices)
{
    std::vector<double> out;
    std::stringstream in(list);
    std::string item;
    while (std::getline(in, item, ',')) {
        double gb = 0;
        const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), gb);
        if (ec != std::errc {} || end != item.data() + item.size() || !(gb > 0) || !std::isfinite(gb))
            throw Error("--memory: '" + printable(item) + "' is not a positive number of GB");
        out.push_back(gb * 1024 * 1024 * 1024);
    }
    if (out.size() != devices)
        throw Error("--memory: " + std::to_string(out.size()) + " sizes for " + std::to_string(devices) + " devices");
    return out;
}

namespace {

// Measured CPU op costs live in the same cache file as the measured GPU's stage costs, under a key
// naming the device, its cores, the model (fingerprint) and this opsched (its kernels change
// between versions); entries are the ops' names.
std::string cpuCostKey(
    const Graph& graph, const std::string& what, const std::string& device, const std::vector<int>& cores)
{
    std::string key = what + "|" + device + "|cores";
    for (int c : cores)
        key += " " + std::to_string(c);
    if (cores.empty())
        key += " all";
    return key + "|" + modelFingerprint(graph) + "|opsched " + OPSCHED_VERSION;
}

// The model run over and over on other cores while a partition's costs are measured, as the other
// partitions of a mapping run beside it; stopped and joined when it goes out of scope.
class BackgroundLoad {
public:
    BackgroundLoad(const Graph& graph, const Plan& plan, const std::vector<std::vector<float>>& inputs,
        const std::vector<int>& cores)
    {
        if (cores.empty())
            return;
        cpu::CpuOptions options;
        options.partitions = { cores };
        worker_ = std::thread([this, &graph, plan, inputs, options] {
            try {
                cpu::CpuExecutor executor(graph, plan, options);
                while (!stop_.load()) {
                    executor.run(inputs);
                    started_.store(true);
                }
            } catch (const std::exception&) {
                // No load then: the costs are measured on a quiet machine, as without partitions.
            }
            started_.store(true);
        });
        while (!started_.load())
            std::this_thread::yield();
    }
    ~BackgroundLoad()
    {
        stop_.store(true);
        if (worker_.joinable())
            worker_.join();
    }
    BackgroundLoad(const BackgroundLoad&) = delete;
    BackgroundLoad& operator=(const BackgroundLoad&) = delete;

private:
    std::atomic<bool> stop_ { false }, started_ { false };
    std::thread worker_;
};

std::unique_ptr<profiler::SqliteStageCostStore> openCostCache(const CostCacheOptions& cache)
{
    if (cache.disabled)
        return nullptr;
    return std::make_unique<profiler::SqliteStageCostStore>(
        cache.file.empty() ? profiler::defaultStageCostCachePath() : cache.file);
}

} // namespace

map::MappingProblem mappingProblemFor(const Graph& graph, const std::vector<std::string>& names,
    const std::string& link, const std::string& memory, const CostCacheOptions& cache)
{
    std::vector<map::DeviceCosts> devices;
    for (const auto& name : names)
        devices.push_back(deviceCosts(graph, name, cache, names));
    if (!memory.empty()) {
        const auto sizes = parseMemory(memory, devices.size());
        for (std::size_t i = 0; i < devices.size(); ++i)
            devices[i].memoryBytes = sizes[i];
    }
    const auto parsed = link.empty() ? std::nullopt : std::optional<map::Link>(parseLink(link));
    auto links = linksFor(names, parsed);
    if (!parsed) {
        // Between CPU partitions the link is measured on this graph: the hand-off between workers.
        std::vector<std::size_t> cpus;
        for (std::size_t u = 0; u < names.size(); ++u)
            if (parseDeviceRef(names[u]).kind == DeviceKind::CpuPartition)
                cpus.push_back(u);
        if (cpus.size() >= 2) {
            const auto a = *cpuCoresOf(names[cpus[0]], names), b = *cpuCoresOf(names[cpus[1]], names);
            auto store = openCostCache(cache);
            const std::string key = cpuCostKey(graph, "cpu-handoff", names[cpus[0]] + "," + names[cpus[1]], {});
            double handoff = -1;
            if (store)
                if (const auto loaded = store->load(key, graph.batch()); loaded.count("handoff"))
                    handoff = loaded.at("handoff");
            if (handoff < 0) {
                handoff
                    = measureCpuHandoffSeconds(graph, a, b, devices[cpus[0]].opSeconds, devices[cpus[1]].opSeconds, 7);
                if (store)
                    store->add(key, graph.batch(), { { "handoff", handoff } });
            }
            for (std::size_t u : cpus)
                for (std::size_t v : cpus)
                    if (u != v)
                        links[u][v] = { map::kSharedMemoryBandwidth, handoff };
        }
    }
    return map::buildProblem(graph, devices, links);
}

map::ThroughputProblem throughputProblemFor(const Graph& graph, const std::vector<std::string>& names,
    const std::string& link, const std::string& memory, const CostCacheOptions& cache, std::int64_t inputs)
{
    if (graph.batch() != 1)
        throw Error("--objective throughput: give the inputs with --inputs and keep --batch 1 (the mapper picks the "
                    "batch sizes)");
    return map::buildThroughputProblem(
        graph, mappingProblemFor(graph, names, link, memory, cache), inputs, [&](const Graph& batched) {
            std::vector<map::DeviceCosts> out;
            for (const auto& name : names)
                out.push_back(deviceCosts(batched, name, cache, names));
            return out;
        });
}

std::vector<int> partitionCores(int index, int partitions)
{
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (partitions > cores)
        throw Error("cpu partitions: " + std::to_string(partitions) + " asked for, but this machine has "
            + std::to_string(cores) + " cores (use cpu:0 .. cpu:" + std::to_string(cores - 1) + " at most)");
    std::vector<int> out;
    for (int c = index * cores / partitions; c < (index + 1) * cores / partitions; ++c)
        out.push_back(c);
    return out;
}

std::optional<std::vector<int>> cpuCoresOf(const std::string& device, const std::vector<std::string>& all)
{
    const DeviceRef ref = parseDeviceRef(device);
    if (ref.kind == DeviceKind::Cpu)
        return std::vector<int> {};
    if (ref.kind != DeviceKind::CpuPartition)
        return std::nullopt;
    int partitions = 0;
    for (const auto& d : all) {
        const DeviceKind kind = parseDeviceRef(d).kind;
        if (kind == DeviceKind::Cpu)
            throw Error("--devices: cpu (every core) cannot be listed with CPU partitions cpu:N");
        if (kind == DeviceKind::CpuPartition)
            ++partitions;
    }
    if (ref.index >= partitions)
        throw Error("device " + device + ": with " + std::to_string(partitions)
            + " CPU partitions listed, they are numbered cpu:0 .. cpu:" + std::to_string(partitions - 1));
    return partitionCores(ref.index, partitions);
}

std::vector<int> otherPartitionCores(const std::string& device, const std::vector<std::string>& all)
{
    std::vector<int> out;
    if (parseDeviceRef(device).kind != DeviceKind::CpuPartition)
        return out;
    for (const auto& other : all)
        if (other != device && parseDeviceRef(other).kind == DeviceKind::CpuPartition) {
            const auto cores = cpuCoresOf(other, all); // kept: a range over *temporary would dangle
            out.insert(out.end(), cores->begin(), cores->end());
        }
    return out;
}

std::vector<double> cachedCpuOpSeconds(const Graph& graph, const std::string& device, const std::vector<int>& cores,
    const CostCacheOptions& cache, const std::vector<int>& busyCores)
{
    auto store = openCostCache(cache);
    std::string key = cpuCostKey(graph, "cpu-op", device, cores);
    if (!busyCores.empty()) {
        key += "|busy";
        for (int c : busyCores)
            key += " " + std::to_string(c);
    }
    if (store) {
        const auto loaded = store->load(key, graph.batch());
        std::vector<double> out;
        for (const Op& op : graph.ops())
            if (auto it = loaded.find(op.name); it != loaded.end())
                out.push_back(it->second);
        if (out.size() == graph.opCount())
            return out;
    }
    const auto measured = measureCpuOpSeconds(graph, cores, 7, busyCores);
    if (store) {
        std::vector<std::pair<std::string, double>> entries;
        for (const Op& op : graph.ops())
            entries.emplace_back(op.name, measured[op.id.value()]);
        store->add(key, graph.batch(), entries);
    }
    return measured;
}

std::vector<double> measureCpuOpSeconds(
    const Graph& graph, const std::vector<int>& cores, int repeats, const std::vector<int>& busyCores)
{
    if (!cpu::cpuBackendAvailable())
        throw Error("CPU devices: the CPU backend is not built (configure opsched with oneDNN, Debian: libdnnl-dev)");
    // Each op alone, one after another, on the partition's cores: what it costs when the
    // mapping gives it that device.
    const Plan plan = compileSchedule(graph, sequentialSchedule(graph));
    cpu::CpuOptions options;
    if (!cores.empty())
        options.partitions = { cores };
    cpu::CpuExecutor executor(graph, plan, options);
    const auto inputs = cpu::seededInputs(graph, 1);
    BackgroundLoad load(graph, plan, inputs, busyCores);
    executor.run(inputs); // warm-up
    std::vector<std::vector<double>> samples(graph.opCount());
    for (int r = 0; r < repeats; ++r) {
        executor.run(inputs);
        for (const auto& t : executor.lastLaunchTimings())
            for (OpId op : plan.launches[t.launch].ops)
                samples[op.value()].push_back(static_cast<double>(t.endNs - t.startNs) * 1e-9);
    }
    std::vector<double> out(graph.opCount(), 0.0);
    for (std::size_t i = 0; i < out.size(); ++i)
        if (!samples[i].empty())
            out[i] = spreadOf(samples[i]).median;
    return out;
}

double measureCpuHandoffSeconds(const Graph& graph, const std::vector<int>& a, const std::vector<int>& b,
    const std::vector<double>& secondsA, const std::vector<double>& secondsB, int repeats)
{
    // The ops in topological order, alternating between the two partitions, each waiting for the
    // one before: every step is a hand-off. What the run takes beyond the ops' own times, per
    // hand-off, is the link's latency (data stays in shared memory; its cache misses are part of it).
    const auto order = graph.topologicalOrder();
    Plan plan;
    plan.streams = 2;
    double work = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
        Launch launch { { order[i] }, StreamId(static_cast<std::uint32_t>(i % 2)), {} };
        if (i > 0)
            launch.waitFor.push_back(static_cast<std::uint32_t>(i - 1));
        plan.launches.push_back(std::move(launch));
        work += (i % 2 ? secondsB : secondsA)[order[i].value()];
    }
    cpu::CpuOptions options;
    options.partitions = { a, b };
    cpu::CpuExecutor executor(graph, plan, options);
    const auto inputs = cpu::seededInputs(graph, 1);
    executor.run(inputs);
    std::vector<double> spans;
    for (int r = 0; r < repeats; ++r) {
        executor.run(inputs);
        std::int64_t first = INT64_MAX, last = 0;
        for (const auto& t : executor.lastLaunchTimings()) {
            first = std::min(first, t.startNs);
            last = std::max(last, t.endNs);
        }
        spans.push_back(static_cast<double>(last - first) * 1e-9);
    }
    const double perHandoff
        = (spreadOf(spans).median - work) / static_cast<double>(std::max<std::size_t>(1, order.size() - 1));
    return std::max(0.0, perHandoff);
}

map::DeviceCosts deviceCosts(
    const Graph& graph, const DeviceRef& device, const CostCacheOptions& cache, const std::vector<std::string>& all)
{
    switch (device.kind) {
    case DeviceKind::SimPreset:
        if (auto sim = device.prefixed() ? map::simulatedDeviceCosts(graph, device.text) : std::nullopt)
            return *sim;
        break;
    case DeviceKind::SimFile:
        // A calibrated GPU (`calibrate --write-device`): simulated like the presets, memory unknown.
        return { device.text, map::simulatedOpSeconds(graph, simDeviceFor(device)), map::kUnsupported };
    case DeviceKind::Cpu:
    case DeviceKind::CpuPartition: {
        const auto cores = *cpuCoresOf(device.text, all);
        const double ram = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
        const double share = cores.empty() ? 1.0
                                           : static_cast<double>(cores.size())
                / static_cast<double>(std::max(1u, std::thread::hardware_concurrency()));
        return { device.text,
            cachedCpuOpSeconds(graph, device.text, cores, cache, otherPartitionCores(device.text, all)), ram * share };
    }
    case DeviceKind::Cuda: {
        // One-op stages on the GPU, timed (and cached) like the schedulers' stages.
        auto model = costModelFor(device, false, cache);
        map::DeviceCosts out { device.text, std::vector<double>(graph.opCount()), map::kUnsupported };
        for (const Op& op : graph.ops()) {
            Stage stage;
            stage.groups = { { op.id } };
            out.opSeconds[op.id.value()] = model->stageLatency(graph, stage);
        }
        return out;
    }
    }
    throw Error(messages::unknownMapDevice(device.text));
}

map::DeviceCosts deviceCosts(
    const Graph& graph, const std::string& device, const CostCacheOptions& cache, const std::vector<std::string>& all)
{
    return deviceCosts(graph, parseDeviceRef(device), cache, all);
}

} // namespace opsched::engine
