#include "map/solvers/batched_pipeline.h"

#include "map/solvers/pipeline_mapper.h"
#include "util/error.h"

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
    // Split u is "every input on device u" (batchedPipelineProblem).
    const std::vector<std::uint32_t>& split = device;
    const ThroughputMapping mapping = throughputEarliestStart(batched, split, breadthFirstOrder(batched.base.dag));
    const ThroughputTimes times = evaluate(batched, mapping);
    run.feasible = times.feasible;
    run.problem = times.problem;
    run.makespan = times.makespan;
    run.throughput = times.feasible && times.makespan > 0 ? static_cast<double>(batched.inputs) / times.makespan : 0.0;
    run.transfers = times.transfers;
    return run;
}

} // namespace opsched::map
