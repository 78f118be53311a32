#include "engine/device_target.h"

#include "schedule/critical_path.h"
#include "sim/simulator.h"

namespace opsched::engine {

DeviceTarget::DeviceTarget(const std::string& device, bool cudaGraph, const CostCacheOptions& cache)
    : cudaGraph_(cudaGraph)
    , cost_(makeCostModel(device, cudaGraph, cache))
{
    measured_ = dynamic_cast<MeasuredStageCost*>(cost_.get());
    name_ = cost_->deviceName();
    if (!measured_)
        simTimer_ = std::make_unique<SimStageTimer>(cost_->deviceModel(), SimOptions { cudaGraph });
}

DeviceTarget::~DeviceTarget() = default;

std::string DeviceTarget::describe() const
{
    if (measured_)
        return name_ + " " + measured_->identity().device + " (measured)";
    return name_ + " (simulated)";
}

PlanLatency DeviceTarget::latency(const Graph& graph, const Plan& plan)
{
    PlanLatency l;
    if (measured_) {
        const PlanTiming t = measured_->planLatency(graph, plan, kPlanReplays);
        l.median = t.seconds.median;
        l.p10 = t.seconds.p10;
        l.p90 = t.seconds.p90;
        l.replays = static_cast<int>(t.seconds.count);
        return l;
    }
    // The simulator is deterministic: one run is every replay.
    const SimResult r = simulate(graph, plan, cost_->deviceModel(), SimOptions { cudaGraph_ });
    l.median = l.p10 = l.p90 = r.latency;
    l.averageActiveWarps = r.averageActiveWarps;
    return l;
}

double DeviceTarget::floor(const Graph& graph)
{
    if (floorGraph_ == graph.instanceId() && floorGraph_ != 0)
        return floor_;
    std::vector<double> ops;
    if (measured_) {
        ops = measured_->opLatencies(graph);
    } else {
        ops.reserve(graph.opCount());
        for (const auto& op : graph.ops())
            ops.push_back(simTimer_->timeOp(graph, op.id));
    }
    floor_ = criticalPath(graph, ops).seconds;
    floorGraph_ = graph.instanceId();
    return floor_;
}

void DeviceTarget::flush()
{
    if (measured_)
        measured_->flush();
}

} // namespace opsched::engine
