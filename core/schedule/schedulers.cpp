#include "schedule/schedulers.h"

#include "schedule/basic_schedulers.h"
#include "schedule/nimble_scheduler.h"
#include "schedule/opara_scheduler.h"

#include <chrono>

namespace opsched {

const std::vector<std::string>& schedulerNames()
{
    static const std::vector<std::string> names { "sequential", "greedy", "ios-merge", "ios-parallel", "ios", "nimble",
        "opara" };
    return names;
}

Plan lowerWithCost(const Graph& graph, const Schedule& schedule, std::optional<Lowering> lowering, StageCostModel& cost,
    nlohmann::ordered_json& params)
{
    Plan plan = lowerSchedule(graph, schedule, lowering.value_or(Lowering::Barriers));
    Lowering chosen = lowering.value_or(Lowering::Barriers);
    if (!lowering) {
        // The search assumed barriers; keep the events plan only where it is faster whole.
        Plan events = lowerSchedule(graph, schedule, Lowering::Events);
        const double barrierSeconds = cost.planLatency(graph, plan);
        const double eventSeconds = cost.planLatency(graph, events);
        params["lowering_ms"] = { { "barriers", barrierSeconds * 1e3 }, { "events", eventSeconds * 1e3 } };
        if (eventSeconds < barrierSeconds) {
            chosen = Lowering::Events;
            plan = std::move(events);
        }
    }
    // Only when it differs from the default, so files and JSON of barrier plans stay as they were.
    if (chosen != Lowering::Barriers || !lowering)
        params["lowering"] = toString(chosen);
    return plan;
}

SchedulerOutput runScheduler(
    const std::string& name, const Graph& graph, StageCostModel& cost, const SchedulerParams& params)
{
    SchedulerOutput out;
    out.scheduler = name;
    const auto started = std::chrono::steady_clock::now();
    if (name == "sequential") {
        out.schedule = sequentialSchedule(graph);
    } else if (name == "greedy") {
        out.schedule = greedySchedule(graph, params.s);
        out.params["max_groups"] = params.s;
    } else if (name == "ios" || name == "ios-parallel" || name == "ios-merge") {
        IosOptions o;
        o.variant = name == "ios"    ? IosVariant::Both
            : name == "ios-parallel" ? IosVariant::Parallel
                                     : IosVariant::Merge;
        o.maxGroupOps = params.r;
        o.maxGroups = params.s;
        o.maxPartOps = params.maxPartOps;
        o.progress = params.progress;
        IosResult r = iosSchedule(graph, cost, o);
        out.schedule = std::move(r.schedule);
        out.states = r.states;
        out.transitions = r.transitions;
        out.params["r"] = params.r;
        out.params["s"] = params.s;
        out.params["max_part_ops"] = params.maxPartOps;
    } else if (name == "nimble") {
        NimbleStats stats;
        out.plan = nimblePlan(graph, &stats);
        out.params["meg_edges"] = stats.megEdges;
    } else if (name == "opara") {
        out.plan = oparaPlan(graph, cost.deviceModel());
    } else {
        std::string names;
        for (const auto& n : schedulerNames())
            names += (names.empty() ? "" : ", ") + n;
        throw Error("unknown scheduler '" + name + "' (available: " + names + ")");
    }
    out.searchSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (out.schedule)
        out.plan = lowerWithCost(graph, *out.schedule, params.lowering, cost, out.params);
    return out;
}

} // namespace opsched
