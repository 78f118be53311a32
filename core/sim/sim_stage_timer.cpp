#include "sim/sim_stage_timer.h"

#include "util/error.h"
#include "util/sha256.h"

#include <cstdio>

namespace opsched {

std::string simDeviceFingerprint(const SimDevice& d)
{
    std::string s = d.name;
    char buf[64];
    for (double v : { static_cast<double>(d.multiprocessors), static_cast<double>(d.maxWarpsPerMultiprocessor),
             d.peakFlops, d.memoryBandwidth, d.l2Bytes, d.saturationWarpsPerSm, d.computeEfficiency, d.memoryEfficiency,
             d.hostLaunchSeconds, d.launchLatencySeconds, d.deviceLaunchSeconds, d.eventWaitSeconds, d.barrierSeconds,
             d.streamSyncSeconds, d.concurrencyPenalty, d.contention }) {
        std::snprintf(buf, sizeof buf, "|%.17g", v);
        s += buf;
    }
    return sha256Hex(s).substr(0, 16);
}

SimStageTimer::SimStageTimer(SimDevice device, SimOptions options)
    : device_(std::move(device))
    , options_(options)
{
}

SimStageTimer::~SimStageTimer() = default;

TimerIdentity SimStageTimer::identity() const
{
    return { "sim:" + device_.name, "opsched-sim/" + simDeviceFingerprint(device_),
        std::string("cuda_graph=") + (options_.cudaGraph ? "on" : "off") };
}

const KernelTable& SimStageTimer::tableFor(const Graph& graph)
{
    // Keyed by the graph's instance id: a new graph may live at a freed graph's address.
    if (!table_ || tableGraph_ != graph.instanceId()) {
        table_ = std::make_unique<KernelTable>(graph);
        tableGraph_ = graph.instanceId();
    }
    return *table_;
}

double SimStageTimer::timeStage(const Graph& graph, const Stage& stage)
{
    return simulateStage(graph, stage, device_, options_, &tableFor(graph));
}

double SimStageTimer::timeOp(const Graph& graph, OpId op)
{
    if (op.value() >= graph.opCount())
        throw Error("op " + std::to_string(op.value()) + " is not in " + graph.name());
    Plan alone;
    alone.launches.push_back(Launch { { op }, StreamId(0), {} });
    const SimResult r = simulate(graph, alone, device_, options_, &tableFor(graph));
    return r.opEnd[op.value()] - r.opStart[op.value()];
}

std::vector<double> SimStageTimer::timePlan(const Graph& graph, const Plan& plan, int repeats)
{
    if (repeats < 1)
        throw Error("timing a plan needs at least one repeat");
    const double latency = simulate(graph, plan, device_, options_, &tableFor(graph)).latency;
    return std::vector<double>(static_cast<std::size_t>(repeats), latency);
}

} // namespace opsched
