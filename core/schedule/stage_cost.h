// The cost model the IOS search asks: latency of one stage on a device. Simulated here; the CUDA
// executor provides a measured one.
#pragma once

#include "plan/schedule.h"
#include "sim/simulator.h"

#include <memory>

namespace opsched {

class StageCostModel {
public:
    virtual ~StageCostModel() = default;
    // Seconds from the stage's first launch to the end of the barrier after it.
    virtual double stageLatency(const Graph& graph, const Stage& stage) = 0;
    virtual std::string deviceName() const = 0;
    // The analytical model of the device, for schedulers that reason about kernels' resource
    // demands (Opara). A measured cost model supplies the model fitted to its GPU.
    virtual const SimDevice& deviceModel() const = 0;
    // Seconds of a whole plan, as `evaluate` reports it: what picks between two lowerings of one
    // schedule (schedulers.h, Lowering::Best).
    virtual double planLatency(const Graph& graph, const Plan& plan) = 0;
};

class SimulatedStageCost : public StageCostModel {
public:
    explicit SimulatedStageCost(const SimDevice& device, SimOptions options = {})
        : device_(device)
        , options_(options)
    {
    }
    double stageLatency(const Graph& graph, const Stage& stage) override
    {
        // Keyed by the graph's instance id: a new graph may live at a freed graph's address.
        if (!table_ || tableGraph_ != graph.instanceId()) {
            table_ = std::make_unique<KernelTable>(graph);
            tableGraph_ = graph.instanceId();
        }
        return simulateStage(graph, stage, device_, options_, table_.get());
    }
    std::string deviceName() const override { return "sim:" + device_.name; }
    const SimDevice& deviceModel() const override { return device_; }
    double planLatency(const Graph& graph, const Plan& plan) override
    {
        return simulate(graph, plan, device_, options_).latency;
    }

private:
    const SimDevice& device_;
    SimOptions options_;
    std::uint64_t tableGraph_ = 0;
    std::unique_ptr<KernelTable> table_;
};

} // namespace opsched
