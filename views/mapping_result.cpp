#include "mapping_result.h"

#include "map/lower_bound.h"
#include "map/mappers.h"
#include "map/mapping_plan.h"
#include "map/problem_builder.h"
#include "util/error.h"

#include <algorithm>
#include <sstream>

namespace opsched {

bool isMapperRequest(const ScheduleRequest& request)
{
    return request.scheduler.rfind(kMapperPrefix, 0) == 0;
}

TimelineData timelineFromMapping(const Graph& graph, const map::MappingProblem& problem, const map::Mapping& mapping,
                                 const map::MappingTimes& times)
{
    TimelineData data;
    std::vector<std::int64_t> streams;
    for (std::size_t u = 0; u < problem.deviceCount(); ++u)
        streams.push_back(static_cast<std::int64_t>(u));
    StreamRowsBuilder rows(data, streams);
    for (std::uint32_t t = 0; t < problem.taskCount(); ++t)
        rows.addOp(mapping.device[t], times.start[t], times.finish[t], t,
                   static_cast<std::uint32_t>(graph.op(OpId(t)).kind));
    data.rows.finish();
    // Each op row named after its device.
    for (std::size_t r = 0; r < data.rowNames.size(); ++r)
        if (data.rowKind(r) == TimelineRowKind::Ops && r < data.rowStreams.size() && data.rowStreams[r] >= 0)
            data.rowNames[r] = problem.devices[static_cast<std::size_t>(data.rowStreams[r])].name;
    for (const map::Transfer& x : times.transfers)
        data.flows.push_back({x.start, x.end, static_cast<std::uint32_t>(rows.opRow(x.fromDevice)),
                              static_cast<std::uint32_t>(rows.opRow(x.toDevice)), false});
    std::sort(data.flows.begin(), data.flows.end(),
              [](const TimelineFlow& a, const TimelineFlow& b) { return a.from < b.from; });
    data.latency = times.makespan;
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
        if (previousOnDevice[u] >= 0 && times.finish[static_cast<std::size_t>(previousOnDevice[u])] >= times.start[u] - 1e-12)
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

std::shared_ptr<const ScheduleResult> computeMappingResult(const Graph& openGraph, const ScheduleRequest& request)
{
    const std::string mapper = request.scheduler.substr(std::string(kMapperPrefix).size());
    std::vector<std::string> names;
    std::stringstream in(request.device);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty())
            names.push_back(item);
    if (names.size() < 2)
        throw Error("a mapper places ops across several devices: pick a device list such as "
                    "sim:xeon,sim:t4,sim:a100 (" + request.device + " is one device)");
    const Graph graph = request.batch > 0 && request.batch != openGraph.batch() ? openGraph.withBatch(request.batch)
                                                                              : openGraph;
    std::vector<map::DeviceCosts> devices;
    for (const auto& name : names) {
        auto costs = map::simulatedDeviceCosts(graph, name);
        if (!costs)
            throw Error("the window maps across simulated devices only; " + name +
                        " is measured: use opsched-cli map ... -o FILE and profile --mapping");
        devices.push_back(std::move(*costs));
    }
    std::vector<std::vector<map::Link>> links(names.size(), std::vector<map::Link>(names.size()));
    for (std::size_t u = 0; u < names.size(); ++u)
        for (std::size_t v = 0; v < names.size(); ++v)
            if (u != v)
                links[u][v] = map::defaultLink(names[u], names[v]);
    const map::MappingProblem problem = map::buildProblem(graph, devices, links);
    map::MapperOptions options;
    options.timeLimitSeconds = 20; // the window stays responsive; the CLI takes --time-limit
    const map::MapResult r = map::runMapper(mapper, problem, options);

    auto result = std::make_shared<ScheduleResult>();
    result->request = request;
    result->batch = graph.batch();
    result->output.plan = map::planForMapping(graph, r.mapping, r.times.start);
    result->output.searchSeconds = r.solveSeconds;
    result->output.params["mapper"] = mapper;
    result->output.params["status"] = map::toString(r.status);
    result->output.params["lower_bound_ms"] = map::lowerBound(problem) * 1e3;
    result->latency = r.times.makespan;
    MappingView view;
    view.devices = names;
    view.deviceOf.assign(r.mapping.device.begin(), r.mapping.device.end());
    view.status = map::toString(r.status);
    result->mapping = std::move(view);
    result->timeline = std::make_shared<TimelineData>(timelineFromMapping(graph, problem, r.mapping, r.times));
    return result;
}

} // namespace opsched
