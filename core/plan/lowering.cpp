#include "plan/lowering.h"

#include <algorithm>
#include <functional>
#include <memory>

namespace opsched {

const char* toString(Lowering lowering)
{
    return lowering == Lowering::Events ? "events" : "barriers";
}

std::optional<Lowering> parseLowering(std::string_view text)
{
    if (text == "barriers")
        return Lowering::Barriers;
    if (text == "events")
        return Lowering::Events;
    return std::nullopt;
}

Plan lowerSchedule(const Graph& graph, const Schedule& schedule, Lowering lowering)
{
    Plan plan = compileSchedule(graph, schedule);
    if (lowering == Lowering::Events) {
        plan.barriers.clear();
        addDependencyWaits(graph, plan);
    }
    return plan;
}

void addDependencyWaits(const Graph& graph, Plan& plan)
{
    const std::size_t n = graph.opCount();
    const auto m = static_cast<std::uint32_t>(plan.launches.size());
    const std::uint32_t streams = std::max<std::uint32_t>(plan.streams, 1);
    constexpr std::uint32_t kNone = ~0U;

    std::vector<std::uint32_t> launchOf(n, kNone);
    for (std::uint32_t i = 0; i < m; ++i)
        for (const OpId id : plan.launches[i].ops)
            launchOf[id.value()] = i;
    std::vector<bool> barrierAt(m + 1, false);
    for (const auto b : plan.barriers)
        if (b < barrierAt.size())
            barrierAt[b] = true;

    // Row i holds, per stream, 1 + the last launch on that stream known to have finished when launch
    // i starts (0: none). A dependency whose launch the row already covers needs no wait. A barrier
    // makes every earlier launch known.
    const auto clock = std::make_unique_for_overwrite<std::uint32_t[]>(std::size_t { m } * streams);
    std::vector<std::uint32_t> lastOnStream(streams, kNone);
    std::vector<std::uint32_t> joined(streams, 0); // the clock every barrier so far implies
    std::vector<std::uint32_t> pending;
    for (std::uint32_t i = 0; i < m; ++i) {
        Launch& launch = plan.launches[i];
        const std::uint32_t s = launch.stream.value();
        if (barrierAt[i])
            for (std::uint32_t t = 0; t < streams; ++t)
                joined[t] = lastOnStream[t] == kNone ? 0 : lastOnStream[t] + 1;
        std::uint32_t* row = &clock[std::size_t { i } * streams];
        if (const auto prev = lastOnStream[s]; prev != kNone)
            std::copy_n(&clock[std::size_t { prev } * streams], streams, row);
        else
            std::fill_n(row, streams, 0U);
        for (std::uint32_t t = 0; t < streams; ++t)
            row[t] = std::max(row[t], joined[t]);

        // Later launches know more, so settle them first: they may cover the earlier ones.
        pending.clear();
        for (const OpId id : launch.ops)
            for (const auto p : graph.predecessors(id)) {
                const std::uint32_t from = launchOf[p];
                if (from != i && from != kNone && plan.launches[from].stream != launch.stream)
                    pending.push_back(from);
            }
        std::sort(pending.begin(), pending.end(), std::greater<> {});
        pending.erase(std::unique(pending.begin(), pending.end()), pending.end());
        launch.waitFor.clear();
        for (const auto w : pending) {
            if (row[plan.launches[w].stream.value()] > w)
                continue; // already ordered through another wait, a barrier or the stream's history
            launch.waitFor.push_back(w);
            const std::uint32_t* known = &clock[std::size_t { w } * streams];
            for (std::uint32_t t = 0; t < streams; ++t)
                row[t] = std::max(row[t], known[t]);
        }
        std::reverse(launch.waitFor.begin(), launch.waitFor.end());
        row[s] = i + 1;
        lastOnStream[s] = i;
    }
}

} // namespace opsched
