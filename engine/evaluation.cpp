#include "engine/evaluation.h"

#include "plan/lowering.h"
#include "util/error.h"

namespace opsched::engine {

Evaluation evaluateDocument(const Graph& graph, const ScheduleDocument& doc, DeviceTarget& target)
{
    Evaluation e;
    e.problems = doc.schedule ? validate(graph, *doc.schedule) : validate(graph, *doc.plan);
    if (!e.valid())
        return e;
    e.plan = doc.executablePlan(graph);
    e.latency = target.latency(graph, e.plan);
    return e;
}

Evaluation evaluateSchedule(const Graph& graph, const Schedule& schedule, DeviceTarget& target)
{
    Evaluation e;
    e.problems = validate(graph, schedule);
    if (!e.valid())
        return e;
    try {
        e.plan = lowerSchedule(graph, schedule, Lowering::Barriers);
        e.latency = target.latency(graph, e.plan);
    } catch (const Error& error) {
        e.problems = { error.what() };
    }
    return e;
}

} // namespace opsched::engine
