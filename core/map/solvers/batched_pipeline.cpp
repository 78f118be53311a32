#include "map/solvers/batched_pipeline.h"

#include "map/solvers/pipeline_mapper.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <limits>

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
    // Batch by batch through each device's ops (a pipeline: batch 2 enters while batch 1 moves on),
    // or op by op over all batches (a device finishes an op's batches before its next op); the better.
    using Key = std::pair<std::uint32_t, std::uint32_t>;
    const Sweep byBatch = sweep(batched, device, position, [](std::uint32_t pos, std::uint32_t b) {
        return Key { b, pos };
    });
    const Sweep byOp = sweep(batched, device, position, [](std::uint32_t pos, std::uint32_t b) {
        return Key { pos, b };
    });
    const Sweep& best = !byOp.feasible || (byBatch.feasible && byBatch.makespan <= byOp.makespan) ? byBatch : byOp;
    run.feasible = best.feasible;
    run.problem = best.problem;
    run.makespan = best.makespan;
    run.batchMajor = &best == &byBatch;
    run.throughput = best.feasible && best.makespan > 0 ? static_cast<double>(batched.inputs) / best.makespan : 0.0;
    run.transfers = best.transfers;
    return run;
}

} // namespace opsched::map
