#include "run_mapping.h"

#include "map_devices.h"

#include "map/bridge/mapping_plan.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

namespace opsched::cli {

namespace {

// N for "cuda:N", nothing for other names.
std::optional<int> cudaIndexOf(const std::string& device)
{
    if (device.rfind("cuda:", 0) != 0)
        return std::nullopt;
    const std::string number = device.substr(5);
    if (number.empty() || number.size() > 4 || number.find_first_not_of("0123456789") != std::string::npos)
        throw Error("run --mapping: device " + device + ": cuda:N needs a device number");
    return std::stoi(number);
}

} // namespace

MappingRun prepareMappingRun(const Graph& graph, const std::string& file, bool segments)
{
    MappingRun run;
    run.doc = map::readMappingFile(graph, file);
    run.segmented = segments;
    for (const auto& device : run.doc.devices) {
        if (const auto cuda = cudaIndexOf(device)) {
            run.cores.emplace_back();
            run.cudaIndex.push_back(*cuda);
            run.segmented = true; // a GPU keeps its own memory: values cross as host copies between segments
            continue;
        }
        const auto cores = cpuCoresOf(device, run.doc.devices);
        if (!cores)
            throw Error("run --mapping: device " + device
                + " cannot run: mappings run on cpu, cpu:N and cuda:N "
                  "devices; sim devices only predict (see the file's makespan_ms)");
        run.cores.push_back(*cores);
        run.cudaIndex.push_back(-1);
    }
    if (!run.segmented) {
        run.partitions = run.cores;
        if (run.partitions.size() == 1 && run.partitions.front().empty())
            run.partitions.clear(); // "cpu" alone: oneDNN's own threads, as `run` does
    }
    // The predicted schedule, recomputed from the file's costs and links when it has them all.
    const bool complete
        = std::all_of(run.doc.costsMs.begin(), run.doc.costsMs.end(), [](double c) { return std::isfinite(c); }) ||
        [&] {
            for (std::size_t t = 0; t < graph.opCount(); ++t)
                if (!std::isfinite(run.doc.costsMs[t * run.doc.devices.size() + run.doc.mapping.device[t]]))
                    return false;
            return true;
        }();
    if (complete) {
        const map::MappingProblem problem = map::problemFromDocument(graph, run.doc);
        const map::MappingTimes times = map::evaluate(problem, run.doc.mapping);
        if (!times.feasible)
            throw Error("run --mapping: " + file + ": " + times.problem);
        run.predictedStart = times.start;
        run.predictedFinish = times.finish;
        run.predictedMs = times.makespan * 1e3;
    }
    run.plan = map::planForMapping(graph, run.doc.mapping, run.predictedStart);
    return run;
}

double measuredSpanMs(const std::vector<cpu::LaunchTiming>& timings)
{
    if (timings.empty())
        return 0;
    std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = 0;
    for (const auto& t : timings) {
        first = std::min(first, t.startNs);
        last = std::max(last, t.endNs);
    }
    return static_cast<double>(last - first) * 1e-6;
}

void addMappingJson(nlohmann::ordered_json& j, const Graph& graph, const MappingRun& run,
    const std::vector<cpu::LaunchTiming>& timings, double medianMs)
{
    nlohmann::ordered_json m;
    m["file_mapper"] = run.doc.mapper;
    m["devices"] = run.doc.devices;
    m["predicted_ms"] = run.predictedMs > 0 ? nlohmann::ordered_json(run.predictedMs) : nlohmann::ordered_json(nullptr);
    m["measured_ms"] = medianMs;
    m["measured_span_ms"] = measuredSpanMs(timings);
    m["measured_over_predicted"]
        = run.predictedMs > 0 ? nlohmann::ordered_json(medianMs / run.predictedMs) : nlohmann::ordered_json(nullptr);
    std::int64_t origin = std::numeric_limits<std::int64_t>::max();
    for (const auto& t : timings)
        origin = std::min(origin, t.startNs);
    auto ops = nlohmann::ordered_json::array();
    for (const auto& t : timings) {
        for (OpId op : run.plan.launches[t.launch].ops) {
            nlohmann::ordered_json o { { "op", graph.op(op).name },
                { "device", run.doc.devices[run.doc.mapping.device[op.value()]] },
                { "start_ms", static_cast<double>(t.startNs - origin) * 1e-6 },
                { "end_ms", static_cast<double>(t.endNs - origin) * 1e-6 } };
            if (!run.predictedStart.empty()) {
                o["predicted_start_ms"] = run.predictedStart[op.value()] * 1e3;
                o["predicted_end_ms"] = run.predictedFinish[op.value()] * 1e3;
            }
            ops.push_back(std::move(o));
        }
    }
    m["ops"] = ops;
    j["mapping"] = m;
}

void printMappingText(const MappingRun& run, const std::vector<cpu::LaunchTiming>& timings, double medianMs)
{
    std::string devices;
    for (std::size_t u = 0; u < run.doc.devices.size(); ++u) {
        devices += (u ? ", " : "") + run.doc.devices[u] + " (cores";
        if (run.partitions.empty())
            devices += " all";
        for (int c : u < run.partitions.size() ? run.partitions[u] : std::vector<int> {})
            devices += " " + std::to_string(c);
        devices += ")";
    }
    std::printf(
        "mapping      %s over %s\n", run.doc.mapper.empty() ? "hand-made" : run.doc.mapper.c_str(), devices.c_str());
    if (run.predictedMs > 0)
        std::printf("makespan     %.3f ms measured (median), %.3f ms predicted: %.2fx; last run's span %.3f ms\n",
            medianMs, run.predictedMs, medianMs / run.predictedMs, measuredSpanMs(timings));
    else
        std::printf("makespan     %.3f ms measured (median; the file has no costs to predict it from)\n", medianMs);
}

} // namespace opsched::cli
