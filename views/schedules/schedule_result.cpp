#include "schedules/schedule_result.h"

#include "mapping/mapping_result.h"

#include "sim/sim_device.h"

#include <optional>

namespace opsched {

namespace {

void simulateInto(const Graph& graph, const SimDevice& device, const SimOptions& options, ScheduleResult& result)
{
    const SimResult sim = simulate(graph, result.output.plan, device, options);
    result.latency = sim.latency;
    result.averageActiveWarps = sim.averageActiveWarps;
    result.timeline
        = std::make_shared<const TimelineData>(timelineFromSimulation(graph, result.output.plan, sim, device));
}

// The model at the request's batch: the same ops (ids and names), other shapes and costs.
const Graph& atBatch(const Graph& graph, const ScheduleRequest& request, std::optional<Graph>& rebuilt)
{
    if (request.batch <= 0 || request.batch == graph.batch())
        return graph;
    rebuilt.emplace(graph.withBatch(request.batch));
    return *rebuilt;
}

} // namespace

std::shared_ptr<const ScheduleResult> evaluateSchedule(
    const Graph& openGraph, const Schedule& schedule, const ScheduleRequest& request)
{
    std::optional<Graph> rebuilt;
    const Graph& graph = atBatch(openGraph, request, rebuilt);
    const SimDevice& device = findSimDevice(request.device);
    auto result = std::make_shared<ScheduleResult>();
    result->request = request;
    result->batch = graph.batch();
    result->output.scheduler = request.scheduler;
    result->output.schedule = schedule;
    const SimOptions options { request.cudaGraph };
    SimulatedStageCost cost(device, options);
    result->output.plan = lowerWithCost(
        graph, schedule, parseLowering(request.lowering), cost, result->output.params); // "best": nullopt
    simulateInto(graph, device, options, *result);
    return result;
}

std::shared_ptr<const ScheduleResult> computeScheduleResult(
    const Graph& openGraph, const ScheduleRequest& request, const std::function<bool(const IosProgress&)>& progress)
{
    if (isMapperRequest(request))
        return computeMappingResult(openGraph, request);
    std::optional<Graph> rebuilt;
    const Graph& graph = atBatch(openGraph, request, rebuilt);
    const SimDevice& device = findSimDevice(request.device);
    const SimOptions options { request.cudaGraph };
    SimulatedStageCost cost(device, options);
    SchedulerParams params;
    params.r = request.r;
    params.s = request.s;
    params.lowering = parseLowering(request.lowering); // nullopt for "best"
    params.progress = progress;

    auto result = std::make_shared<ScheduleResult>();
    result->request = request;
    result->batch = graph.batch();
    result->output = runScheduler(request.scheduler, graph, cost, params);
    simulateInto(graph, device, options, *result);
    return result;
}

} // namespace opsched
