#include "schedule/basic_schedulers.h"

#include "util/error.h"

#include <algorithm>

namespace opsched {

Schedule sequentialSchedule(const Graph& graph)
{
    Schedule s;
    for (auto id : graph.topologicalOrder())
        s.stages.push_back(Stage { StageStrategy::Concurrent, { { id } } });
    return s;
}

Schedule greedySchedule(const Graph& graph, std::size_t maxGroups)
{
    if (maxGroups == 0)
        throw Error("greedy: the number of groups per stage must be at least 1");
    const std::size_t n = graph.opCount();
    std::vector<std::size_t> waiting(n);
    std::vector<OpId> ready;
    for (const auto& op : graph.ops()) {
        waiting[op.id.value()] = graph.predecessors(op.id).size();
        if (waiting[op.id.value()] == 0)
            ready.push_back(op.id);
    }
    Schedule s;
    while (!ready.empty()) {
        // Ready ops in id (topological) order; those past the cap stay ready for the next stage.
        std::sort(ready.begin(), ready.end());
        const std::size_t take = std::min(maxGroups, ready.size());
        Stage stage;
        for (std::size_t i = 0; i < take; ++i)
            stage.groups.push_back({ ready[i] });
        std::vector<OpId> next(ready.begin() + static_cast<std::ptrdiff_t>(take), ready.end());
        for (const auto& group : stage.groups)
            for (auto succ : graph.successors(group.front()))
                if (--waiting[succ] == 0)
                    next.emplace_back(succ);
        s.stages.push_back(std::move(stage));
        ready = std::move(next);
    }
    return s;
}

} // namespace opsched
