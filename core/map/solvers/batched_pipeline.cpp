#include "map/solvers/batched_pipeline.h"

#include "map/solvers/pipeline_mapper.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>

namespace opsched::map {

MappingProblem perInputProblem(const MappingProblem& atBatch, std::int64_t batch)
{
    if (batch < 1)
        throw Error("batched objective: the batch size must be at least 1");
    MappingProblem p = atBatch;
    const double g = static_cast<double>(batch);
    for (MapTask& t : p.tasks) {
        for (double& s : t.seconds)
            s /= g; // kUnsupported stays infinite
        const double activations = t.inputBytes + t.outputBytes;
        t.inputBytes /= g;
        t.outputBytes /= g;
        t.weightBytes += activations - (t.inputBytes + t.outputBytes); // resident: a whole batch
    }
    for (auto& row : p.release)
        for (double& r : row)
            r /= g;
    return p;
}

ThroughputProblem batchedPipelineProblem(const MappingProblem& atBatch, std::int64_t inputs, std::int64_t batch)
{
    if (batch < 1 || inputs < batch || inputs % batch != 0)
        throw Error("batched objective: " + std::to_string(inputs) + " inputs do not split into batches of "
            + std::to_string(batch) + " (--inputs must be a multiple of --batch-size)");
    ThroughputProblem p;
    p.base = atBatch;
    const double g = static_cast<double>(batch);
    for (MapTask& t : p.base.tasks) { // the batched evaluation counts bytes per input
        t.inputBytes /= g;
        t.outputBytes /= g;
    }
    // Memory is checked on the per-input problem (weights and one batch in flight per op): the
    // batched timing would hold all L inputs' activations resident at once.
    for (MapDevice& d : p.base.devices)
        d.memoryBytes = std::numeric_limits<double>::infinity();
    p.inputs = inputs;
    p.sizes = { batch };
    const std::size_t k = atBatch.deviceCount();
    // One split per device: every input there, in inputs / batch batches of `batch`.
    for (std::size_t u = 0; u < k; ++u) {
        std::vector<std::int64_t> counts(k, 0), pieces(k, 0);
        counts[u] = inputs;
        pieces[u] = inputs / batch;
        p.splits.push_back(std::move(counts));
        p.pieces.push_back(std::move(pieces));
    }
    p.seconds.assign(atBatch.taskCount(), std::vector<std::vector<double>>(k, std::vector<double>(1)));
    for (std::size_t t = 0; t < atBatch.taskCount(); ++t)
        for (std::size_t u = 0; u < k; ++u)
            p.seconds[t][u][0] = atBatch.tasks[t].seconds[u];
    p.validate();
    return p;
}

namespace {

struct Sweep {
    bool feasible = false;
    std::string problem;
    double makespan = 0;
    std::size_t transfers = 0;
};

// Every (op, batch) in increasing `key` order, each starting once its device has finished the one
// before it in that order and its inputs' batches have arrived. Both orders used below put every
// dependence and every device's sequence in increasing key order, so one sweep gives the earliest
// starts.
template <class Key>
Sweep sweep(const ThroughputProblem& p, const std::vector<std::uint32_t>& device,
    const std::vector<std::uint32_t>& position, Key key)
{
    const std::size_t n = p.base.taskCount();
    const auto batches = static_cast<std::size_t>(p.inputs / p.sizes.front());
    const double g = static_cast<double>(p.sizes.front());
    std::vector<std::pair<std::uint32_t, std::uint32_t>> order; // (task, batch)
    order.reserve(n * batches);
    for (std::uint32_t t = 0; t < n; ++t)
        for (std::uint32_t b = 0; b < batches; ++b)
            order.emplace_back(t, b);
    std::sort(order.begin(), order.end(), [&](const auto& x, const auto& y) {
        return key(position[x.first], x.second) < key(position[y.first], y.second);
    });
    std::vector<double> finish(n * batches, 0.0), deviceFree(p.base.deviceCount(), 0.0);
    Sweep out;
    for (const auto& [t, b] : order) {
        const std::uint32_t u = device[t];
        const double cost = p.seconds[t][u][0];
        if (!std::isfinite(cost)) {
            out.problem = p.base.tasks[t].name + " cannot run on " + p.base.devices[u].name;
            return out;
        }
        double start = deviceFree[u];
        for (std::uint32_t q : p.base.dag.predecessors[t]) {
            double ready = finish[q * batches + b];
            if (device[q] != u) {
                const Link& link = p.base.links[device[q]][u];
                if (!link.connected()) {
                    out.problem = "no link from " + p.base.devices[device[q]].name + " to " + p.base.devices[u].name;
                    return out;
                }
                ready += link.latencySeconds + p.base.tasks[q].outputBytes * g / link.bandwidthBytesPerSecond;
                ++out.transfers;
            }
            start = std::max(start, ready);
        }
        finish[t * batches + b] = deviceFree[u] = start + cost;
        out.makespan = std::max(out.makespan, start + cost);
    }
    out.feasible = true;
    return out;
}

// List scheduling over (op, batch) pairs: a device that comes free takes, among the pairs whose
// inputs have arrived by then, the earliest batch (then the op first in topological order); when
// none has, the one whose inputs arrive first. Batches interleave on a device, so a node's devices
// pipeline batch after batch through the layers they share, as the paper's schedule (any order of
// batches on a device) allows; pairs start in time order, so arrivals are known when a device
// chooses.
Sweep listSchedule(
    const ThroughputProblem& p, const std::vector<std::uint32_t>& device, const std::vector<std::uint32_t>& position)
{
    const std::size_t n = p.base.taskCount(), k = p.base.deviceCount();
    const auto batches = static_cast<std::uint32_t>(p.inputs / p.sizes.front());
    const double g = static_cast<double>(p.sizes.front());
    using Pending = std::pair<double, std::pair<std::uint32_t, std::uint32_t>>; // (arrival, (batch, position))
    using Ready = std::pair<std::uint32_t, std::uint32_t>; // (batch, position)
    std::vector<std::priority_queue<Pending, std::vector<Pending>, std::greater<>>> pending(k);
    std::vector<std::priority_queue<Ready, std::vector<Ready>, std::greater<>>> ready(k);
    std::vector<std::uint32_t> byPosition(n);
    for (std::uint32_t t = 0; t < n; ++t)
        byPosition[position[t]] = t;
    std::vector<std::uint32_t> missing(n * batches);
    std::vector<double> arrival(n * batches, 0.0), finish(n * batches, 0.0), deviceFree(k, 0.0);
    Sweep out;
    for (std::uint32_t t = 0; t < n; ++t) {
        if (!std::isfinite(p.seconds[t][device[t]][0])) {
            out.problem = p.base.tasks[t].name + " cannot run on " + p.base.devices[device[t]].name;
            return out;
        }
        for (std::uint32_t b = 0; b < batches; ++b) {
            missing[t * batches + b] = static_cast<std::uint32_t>(p.base.dag.predecessors[t].size());
            if (missing[t * batches + b] == 0)
                pending[device[t]].push({ 0.0, { b, position[t] } });
        }
    }
    for (std::size_t done = 0; done < n * batches; ++done) {
        // The device that can start something soonest.
        std::uint32_t best = 0;
        double bestStart = std::numeric_limits<double>::infinity();
        for (std::uint32_t u = 0; u < k; ++u) {
            double next = std::numeric_limits<double>::infinity();
            if (!ready[u].empty())
                next = deviceFree[u];
            else if (!pending[u].empty())
                next = std::max(deviceFree[u], pending[u].top().first);
            if (next < bestStart) {
                bestStart = next;
                best = u;
            }
        }
        if (!std::isfinite(bestStart)) {
            out.problem = "the mapping's batches wait on each other";
            return out;
        }
        while (!pending[best].empty() && pending[best].top().first <= bestStart) {
            ready[best].push(pending[best].top().second);
            pending[best].pop();
        }
        const auto [b, pos] = ready[best].top();
        ready[best].pop();
        const std::uint32_t t = byPosition[pos];
        const double end = bestStart + p.seconds[t][best][0];
        finish[t * batches + b] = deviceFree[best] = end;
        out.makespan = std::max(out.makespan, end);
        for (std::uint32_t s : p.base.dag.successors[t]) {
            double at = end;
            if (device[s] != best) {
                const Link& link = p.base.links[best][device[s]];
                if (!link.connected()) {
                    out.problem = "no link from " + p.base.devices[best].name + " to " + p.base.devices[device[s]].name;
                    return out;
                }
                at += link.latencySeconds + p.base.tasks[t].outputBytes * g / link.bandwidthBytesPerSecond;
                ++out.transfers;
            }
            const std::size_t id = s * batches + b;
            arrival[id] = std::max(arrival[id], at);
            if (--missing[id] == 0)
                pending[device[s]].push({ arrival[id], { b, position[s] } });
        }
    }
    out.feasible = true;
    return out;
}

} // namespace

BatchedRun evaluateBatchedPipeline(
    const ThroughputProblem& batched, const MappingProblem& perInput, const std::vector<std::uint32_t>& device)
{
    BatchedRun run;
    run.inputs = batched.inputs;
    run.batch = batched.sizes.front();
    if (device.size() != batched.base.taskCount()) {
        run.problem = "the mapping does not place every op";
        return run;
    }
    const PipelineTimes steady = evaluatePipeline(perInput, device);
    run.steadyPeriod = steady.period;
    if (!steady.feasible) {
        run.problem = steady.problem;
        return run;
    }
    const auto topo = topologicalOrder(batched.base.dag);
    if (!topo) {
        run.problem = "the graph has a cycle";
        return run;
    }
    std::vector<std::uint32_t> position(topo->size());
    for (std::uint32_t k = 0; k < topo->size(); ++k)
        position[(*topo)[k]] = k;
    // List scheduling, batch by batch through each device's ops, or op by op over all batches (a
    // device finishes an op's batches before its next op); the best of the three.
    using Key = std::pair<std::uint32_t, std::uint32_t>;
    const Sweep listed = listSchedule(batched, device, position);
    const Sweep byBatch = sweep(batched, device, position, [](std::uint32_t pos, std::uint32_t b) {
        return Key { b, pos };
    });
    const Sweep byOp = sweep(batched, device, position, [](std::uint32_t pos, std::uint32_t b) {
        return Key { pos, b };
    });
    const Sweep* best = &listed;
    for (const Sweep* other : { &byBatch, &byOp })
        if (other->feasible && (!best->feasible || other->makespan < best->makespan))
            best = other;
    run.feasible = best->feasible;
    run.problem = best->problem;
    run.makespan = best->makespan;
    run.order = best == &listed ? "list" : best == &byBatch ? "batch by batch" : "op by op";
    run.throughput = best->feasible && best->makespan > 0 ? static_cast<double>(batched.inputs) / best->makespan : 0.0;
    run.transfers = best->transfers;
    return run;
}

} // namespace opsched::map
