#include "engine/scheduler_comparison.h"

#include "engine/catalog.h"
#include "engine/scheduling.h"

#include "session/sim_run.h"
#include "util/error.h"

namespace opsched::engine {
namespace {

// A scheduler's plan on a simulated device recorded as `profile` records it, so that the breakdown
// reads the same kernels a stored run holds.
store::RunRecord simulatedRecord(const Graph& graph, const std::string& ref, const SchedulerOutput& out,
    const SimDevice& device, bool cudaGraph, std::int64_t id)
{
    store::RunRecord run;
    run.id = store::RunId(id);
    run.model = profiler::modelRecord(graph, ref);
    run.batch = graph.batch();
    run.device = profiler::simDeviceRecord(device);
    run.schedule = store::ScheduleRecord {};
    run.schedule->scheduler = out.scheduler;
    profiler::SimRunOptions options;
    options.sim.cudaGraph = cudaGraph;
    profiler::fillSimulatedRun(run, graph, out, device, options);
    return run;
}

} // namespace

SchedulerComparison compareSchedulers(const Graph& graph, const CompareRequest& request)
{
    const TargetRequest& t = request.target;
    DeviceTarget target(t.device, t.cudaGraph, request.cache);
    if (request.explain && !target.simulated())
        throw Error("compare --explain on " + target.name()
            + ": a measured device records no kernels here; profile the schedulers into a database "
              "(`profile --device cuda:N --db FILE`) and run `compare --db FILE --explain`");
    SchedulerComparison c;
    c.device = target.name();
    c.deviceDescription = target.describe();
    c.simulated = target.simulated();
    c.floorSeconds = target.floor(graph);
    double sequential = 0;
    std::optional<store::RunRecord> sequentialRun;
    std::int64_t recorded = 0;
    for (const auto& name : schedulerNames()) {
        SchedulerComparisonRow row;
        row.scheduler = name;
        row.output = runCheckedScheduler(name, graph, target.cost(), request.pruning);
        row.latency = target.latency(graph, row.output.plan);
        if (name == "sequential")
            sequential = row.latency.median;
        row.speedup = sequential > 0 ? sequential / row.latency.median : 1.0;
        if (request.explain) {
            store::RunRecord run
                = simulatedRecord(graph, t.model, row.output, simDeviceFor(t.device), t.cudaGraph, ++recorded);
            if (name == "sequential")
                sequentialRun = std::move(run);
            else if (sequentialRun)
                row.explanation = analysis::explainDifference(*sequentialRun, run);
        }
        c.rows.push_back(std::move(row));
    }
    target.flush();
    return c;
}

} // namespace opsched::engine
