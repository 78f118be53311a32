#include "engine/results/schedule_result.h"
#include "engine/scheduling.h"

#include "engine/results/mapping_result.h"

#include "engine/device_target.h"

#include <optional>

namespace opsched {

namespace {

// The plan simulated on the device's model (for a measured device, the preset closest to it) for
// the timeline; a measured device's latency is then its median over replays on the GPU.
void timeInto(const Graph& graph, engine::DeviceTarget& target, const SimOptions& options, ScheduleResult& result)
{
    const SimDevice& device = target.cost().deviceModel();
    const SimResult sim = simulate(graph, result.output.plan, device, options);
    result.latency = sim.latency;
    result.averageActiveWarps = sim.averageActiveWarps;
    result.timeline
        = std::make_shared<const TimelineData>(timelineFromSimulation(graph, result.output.plan, sim, device));
    if (!target.simulated()) {
        result.latency = target.latency(graph, result.output.plan).median;
        result.output.params["timeline"] = "simulated on sim:" + device.name;
        target.flush();
    }
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
    engine::DeviceTarget target(request.device, request.cudaGraph);
    auto result = std::make_shared<ScheduleResult>();
    result->request = request;
    result->batch = graph.batch();
    result->output.scheduler = request.scheduler;
    result->output.schedule = schedule;
    result->output.plan = lowerWithCost(graph, schedule, parseLowering(request.pruning.lowering), target.cost(),
        result->output.params); // "best": nullopt
    timeInto(graph, target, SimOptions { request.cudaGraph }, *result);
    return result;
}

std::shared_ptr<const ScheduleResult> computeScheduleResult(
    const Graph& openGraph, const ScheduleRequest& request, const std::function<bool(const IosProgress&)>& progress)
{
    if (isMapperRequest(request))
        return computeMappingResult(openGraph, request);
    std::optional<Graph> rebuilt;
    const Graph& graph = atBatch(openGraph, request, rebuilt);
    engine::DeviceTarget target(request.device, request.cudaGraph);
    SchedulerParams params = engine::schedulerParams(request.pruning, progress);

    auto result = std::make_shared<ScheduleResult>();
    result->request = request;
    result->batch = graph.batch();
    result->output = runScheduler(request.scheduler, graph, target.cost(), params);
    timeInto(graph, target, SimOptions { request.cudaGraph }, *result);
    return result;
}

} // namespace opsched
