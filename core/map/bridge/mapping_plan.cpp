#include "map/bridge/mapping_plan.h"

#include "plan/lowering.h"
#include "util/error.h"

#include <queue>

namespace opsched::map {

Plan planForMapping(const Graph& graph, const Mapping& mapping, const std::vector<double>& startSeconds)
{
    const std::size_t n = graph.opCount();
    if (mapping.device.size() != n)
        throw Error(
            "the mapping covers " + std::to_string(mapping.device.size()) + " of " + std::to_string(n) + " ops");
    // Kahn over the graph's edges and each device's order, the earliest predicted start first.
    std::vector<std::int64_t> previous(n, -1);
    std::vector<std::int64_t> next(n, -1);
    for (const auto& order : mapping.order)
        for (std::size_t i = 1; i < order.size(); ++i) {
            previous[order[i]] = order[i - 1];
            next[order[i - 1]] = order[i];
        }
    std::vector<std::uint32_t> waiting(n);
    for (std::uint32_t t = 0; t < n; ++t)
        waiting[t] = static_cast<std::uint32_t>(graph.predecessors(OpId(t)).size()) + (previous[t] >= 0 ? 1 : 0);
    auto key = [&](std::uint32_t t) { return startSeconds.empty() ? 0.0 : startSeconds[t]; };
    auto later = [&](std::uint32_t a, std::uint32_t b) { return key(a) != key(b) ? key(a) > key(b) : a > b; };
    std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, decltype(later)> ready(later);
    for (std::uint32_t t = 0; t < n; ++t)
        if (waiting[t] == 0)
            ready.push(t);
    Plan plan;
    plan.streams = static_cast<std::uint32_t>(std::max<std::size_t>(1, mapping.order.size()));
    while (!ready.empty()) {
        const std::uint32_t t = ready.top();
        ready.pop();
        plan.launches.push_back({ { OpId(t) }, StreamId(mapping.device[t]), {} });
        for (std::uint32_t s : graph.successors(OpId(t)))
            if (--waiting[s] == 0)
                ready.push(s);
        if (next[t] >= 0 && --waiting[static_cast<std::size_t>(next[t])] == 0)
            ready.push(static_cast<std::uint32_t>(next[t]));
    }
    if (plan.launches.size() != n)
        throw Error("the mapping's device orders contradict the graph's dependencies");
    addDependencyWaits(graph, plan);
    return plan;
}

} // namespace opsched::map
