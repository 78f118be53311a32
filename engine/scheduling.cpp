#include "engine/scheduling.h"

#include "plan/plan.h"
#include "util/error.h"

namespace opsched::engine {

SchedulerParams schedulerParams(const PruningRequest& pruning, std::function<bool(const IosProgress&)> progress)
{
    SchedulerParams params;
    params.r = pruning.r;
    params.s = pruning.s;
    params.lowering = parseLowering(pruning.lowering); // nullopt for "best"
    params.progress = std::move(progress);
    return params;
}

SchedulerOutput runCheckedScheduler(const std::string& scheduler, const Graph& graph, StageCostModel& cost,
    const PruningRequest& pruning, std::function<bool(const IosProgress&)> progress)
{
    SchedulerOutput out = runScheduler(scheduler, graph, cost, schedulerParams(pruning, std::move(progress)));
    if (auto problems = validate(graph, out.plan); !problems.empty())
        throw Error("internal: " + scheduler + " produced an invalid plan: " + problems.front());
    return out;
}

} // namespace opsched::engine
