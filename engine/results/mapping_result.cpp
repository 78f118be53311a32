#include "engine/results/mapping_result.h"

#include "engine/map_actions.h"
#include "engine/map_inputs.h"
#include "engine/results/throughput_mapping_result.h"
#include "map/bounds/lower_bound.h"
#include "map/bridge/mapping_plan.h"
#include "map/files/mapping_file.h"

#include "map/problem/problem_builder.h"
#include "map/registry/mappers.h"
#include "util/error.h"

#include <algorithm>

namespace opsched {

bool isMapperRequest(const ScheduleRequest& request)
{
    return request.scheduler.rfind(kMapperPrefix, 0) == 0;
}

TimelineData timelineFromMapping(
    const Graph& graph, const map::MappingProblem& problem, const map::Mapping& mapping, const map::MappingTimes& times)
{
    TimelineData data;
    StreamRowsBuilder rows = deviceRows(data, problem.deviceCount());
    const std::string transfersIn = "  transfers in";
    rows.useTransferRows(transfersIn);
    for (std::uint32_t t = 0; t < problem.taskCount(); ++t)
        rows.addOp(
            mapping.device[t], times.start[t], times.finish[t], t, static_cast<std::uint32_t>(graph.op(OpId(t)).kind));
    const std::vector<std::string> names = deviceNames(problem);
    // Nsight's memcpy row: what each device waits to receive, with its size and duration.
    for (const map::Transfer& x : times.transfers)
        rows.addTransfer(x.toDevice, x.start, x.end, static_cast<std::uint32_t>(graph.op(OpId(x.fromTask)).kind),
            { x.fromTask, x.toTask, names[x.fromDevice], names[x.toDevice], x.bytes });
    finishDeviceTimeline(data, rows, names, times.transfers, times.makespan, transfersIn);
    // The chain that sets the makespan, walked back from the last op to end: at each step the
    // input or the device predecessor that released it.
    std::uint32_t last = 0;
    for (std::uint32_t t = 0; t < problem.taskCount(); ++t)
        if (times.finish[t] > times.finish[last])
            last = t;
    std::vector<std::int64_t> previousOnDevice(problem.taskCount(), -1);
    for (const auto& order : mapping.order)
        for (std::size_t i = 1; i < order.size(); ++i)
            previousOnDevice[order[i]] = order[i - 1];
    for (std::int64_t t = last; t >= 0;) {
        data.criticalPath.push_back(static_cast<std::uint32_t>(t));
        std::int64_t next = -1;
        const auto u = static_cast<std::uint32_t>(t);
        if (previousOnDevice[u] >= 0
            && times.finish[static_cast<std::size_t>(previousOnDevice[u])] >= times.start[u] - 1e-12)
            next = previousOnDevice[u];
        for (std::uint32_t q : problem.dag.predecessors[u]) {
            const double arrival = times.finish[q] + problem.commSeconds(q, mapping.device[q], mapping.device[u]);
            if (arrival >= times.start[u] - 1e-12)
                next = q;
        }
        t = next;
    }
    std::reverse(data.criticalPath.begin(), data.criticalPath.end());
    return data;
}

std::vector<std::string> deviceNames(const map::MappingProblem& problem)
{
    std::vector<std::string> names;
    for (const auto& d : problem.devices)
        names.push_back(d.name);
    return names;
}

StreamRowsBuilder deviceRows(TimelineData& data, std::size_t devices)
{
    std::vector<std::int64_t> streams;
    for (std::size_t u = 0; u < devices; ++u)
        streams.push_back(static_cast<std::int64_t>(u));
    return StreamRowsBuilder(data, streams);
}

void finishDeviceTimeline(TimelineData& data, const StreamRowsBuilder& rows, const std::vector<std::string>& devices,
    const std::vector<map::Transfer>& transfers, double makespanSeconds, const std::string& below)
{
    // An idle device keeps its row (and the row under it): the mapping chose to leave it empty.
    data.rows.ensureRows(2 * devices.size());
    data.rows.finish();
    for (std::size_t r = 0; r < data.rowNames.size(); ++r)
        if (r < data.rowStreams.size() && data.rowStreams[r] >= 0)
            data.rowNames[r] = data.rowKind(r) == TimelineRowKind::Ops
                ? devices[static_cast<std::size_t>(data.rowStreams[r])]
                : below;
    for (const map::Transfer& x : transfers)
        data.flows.push_back({ x.start, x.end, static_cast<std::uint32_t>(rows.opRow(x.fromDevice)),
            static_cast<std::uint32_t>(rows.opRow(x.toDevice)), false });
    std::sort(data.flows.begin(), data.flows.end(),
        [](const TimelineFlow& a, const TimelineFlow& b) { return a.from < b.from; });
    data.latency = makespanSeconds;
    data.coloursByDevice = true;
}

std::shared_ptr<ScheduleResult> mappingResultBase(const Graph& graph, const std::vector<std::string>& devices,
    std::vector<int> deviceOf, double makespanSeconds, const ScheduleRequest& request, const MappingSummary& summary)
{
    auto result = std::make_shared<ScheduleResult>();
    result->request = request;
    result->batch = graph.batch();
    result->output.searchSeconds = summary.solveSeconds;
    result->output.params["mapper"] = summary.mapper;
    result->output.params["status"] = summary.status;
    result->output.params["makespan_ms"] = makespanSeconds * 1e3;
    result->output.params["lower_bound_ms"] = summary.lowerBoundMs;
    result->latency = makespanSeconds;
    MappingView view;
    view.devices = devices;
    view.deviceOf = std::move(deviceOf);
    view.status = summary.status;
    result->mapping = std::move(view);
    return result;
}

std::shared_ptr<ScheduleResult> mappingResult(const Graph& graph, const map::MappingProblem& problem,
    const map::Mapping& mapping, const map::MappingTimes& times, const ScheduleRequest& request,
    const MappingSummary& summary)
{
    const std::vector<std::string> names = deviceNames(problem);
    auto result = mappingResultBase(
        graph, names, std::vector<int>(mapping.device.begin(), mapping.device.end()), times.makespan, request, summary);
    result->output.plan = map::planForMapping(graph, mapping, times.start);
    result->timeline = std::make_shared<TimelineData>(timelineFromMapping(graph, problem, mapping, times));
    map::MapResult r;
    r.mapper = summary.mapper;
    r.mapping = mapping;
    r.times = times;
    r.solveSeconds = summary.solveSeconds;
    for (const auto s : { map::SolveStatus::Heuristic, map::SolveStatus::Optimal, map::SolveStatus::Feasible,
             map::SolveStatus::Timeout })
        if (summary.status == map::toString(s))
            r.status = s;
    result->mappingFile = std::make_shared<const nlohmann::ordered_json>(
        map::mappingToJson(graph, problem, r, summary.lowerBoundMs / 1e3));
    return result;
}

namespace {

// The window's mapper run as `opsched-cli map` takes it: the same request type and the same function
// (engine/map_actions.h), with the CLI's defaults for links, memory and the time limit.
engine::MapRequest mapRequestFor(const ScheduleRequest& request, const std::string& mapper)
{
    engine::MapRequest m;
    m.devices = request.device;
    m.mapper = mapper;
    m.objective = request.objective;
    m.inputs = request.inputs;
    return m;
}

// `map --objective throughput --inputs L` on simulated devices: the model at batch 1, its L inputs
// split per op (as a throughput file the CLI writes is shown).
std::shared_ptr<const ScheduleResult> computeThroughputMappingResult(
    const Graph& openGraph, const ScheduleRequest& request, const std::string& mapper)
{
    const Graph graph = openGraph.batch() == 1 ? openGraph : openGraph.withBatch(1);
    const engine::ThroughputMapping m = engine::mapForThroughput(graph, mapRequestFor(request, mapper), {});
    std::vector<map::Transfer> transfers;
    const map::ThroughputTimes times = map::evaluate(m.problem, m.result.mapping, &transfers);
    return throughputMappingResult(graph, m.problem, m.result.mapping, times, transfers, request,
        { mapper, map::toString(m.result.status), m.lowerBound * 1e3, m.result.solveSeconds });
}

} // namespace

std::shared_ptr<const ScheduleResult> computeMappingResult(const Graph& openGraph, const ScheduleRequest& request)
{
    const std::string mapper = request.scheduler.substr(std::string(kMapperPrefix).size());
    const std::vector<engine::DeviceRef> refs = engine::parseDeviceList(request.device);
    const std::vector<std::string> names = engine::deviceNames(refs);
    if (names.size() < 2)
        throw Error("a mapper places ops across several devices: pick a device list such as "
                    "sim:xeon,sim:t4,sim:a100 ("
            + request.device + " is one device)");
    for (const auto& ref : refs)
        if (!ref.simulated())
            throw Error(ref.text
                + " is not a simulated device: measured devices (cpu, cpu:N, cuda:N) are mapped by "
                  "opsched-cli map, which the Schedules panel runs for a list that names one");
    if (request.objective == "throughput")
        return computeThroughputMappingResult(openGraph, request, mapper);
    if (request.objective != "latency")
        throw Error("unknown mapping objective '" + request.objective + "' (latency or throughput)");
    const Graph graph
        = request.batch > 0 && request.batch != openGraph.batch() ? openGraph.withBatch(request.batch) : openGraph;
    const engine::LatencyMapping m = engine::mapForLatency(graph, mapRequestFor(request, mapper), {});
    return mappingResult(graph, m.problem, m.result.mapping, m.result.times, request,
        { mapper, map::toString(m.result.status), m.lowerBound * 1e3, m.result.solveSeconds });
}

} // namespace opsched
