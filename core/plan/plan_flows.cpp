#include "plan/plan_flows.h"

#include <algorithm>

namespace opsched {
namespace {

void sortUnique(std::vector<std::uint32_t>& v)
{
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
}

// previous[l]: the launch before l on its stream, -1 for the first.
std::vector<std::int64_t> previousOnStream(const Plan& plan)
{
    std::vector<std::int64_t> previous(plan.launches.size(), -1), last(plan.streams, -1);
    for (std::size_t l = 0; l < plan.launches.size(); ++l) {
        const auto s = plan.launches[l].stream.value();
        if (s >= last.size())
            continue;
        previous[l] = last[s];
        last[s] = static_cast<std::int64_t>(l);
    }
    return previous;
}

} // namespace

std::vector<PlanFlow> planFlows(const Plan& plan, const std::vector<bool>& drawn, const std::vector<double>& end)
{
    std::vector<PlanFlow> flows;
    const std::size_t n = plan.launches.size();
    if (drawn.size() != n || end.size() != n)
        return flows;
    const auto previous = previousOnStream(plan);
    // sources[l]: the drawn launches whose ends launch l's end stands for.
    std::vector<std::vector<std::uint32_t>> sources(n);
    auto addSources = [&](std::vector<std::uint32_t>& into, std::size_t l) {
        for (auto w : plan.launches[l].waitFor)
            if (w < l)
                into.insert(into.end(), sources[w].begin(), sources[w].end());
    };
    for (std::size_t l = 0; l < n; ++l) {
        if (drawn[l]) {
            sources[l] = { static_cast<std::uint32_t>(l) };
            continue;
        }
        addSources(sources[l], l);
        if (previous[l] >= 0) {
            const auto& before = sources[static_cast<std::size_t>(previous[l])];
            sources[l].insert(sources[l].end(), before.begin(), before.end());
        }
        sortUnique(sources[l]);
    }
    auto streamOf = [&](std::size_t l) { return plan.launches[l].stream; };
    for (std::size_t l = 0; l < n; ++l) {
        if (!drawn[l])
            continue;
        std::vector<std::uint32_t> from;
        addSources(from, l);
        if (const auto p = previous[l]; p >= 0 && !drawn[static_cast<std::size_t>(p)])
            from.insert(
                from.end(), sources[static_cast<std::size_t>(p)].begin(), sources[static_cast<std::size_t>(p)].end());
        sortUnique(from);
        for (auto w : from)
            if (streamOf(w) != streamOf(l))
                flows.push_back({ w, static_cast<std::uint32_t>(l), false });
    }

    std::vector<std::uint32_t> cuts = plan.barriers;
    sortUnique(cuts);
    for (std::size_t c = 0; c < cuts.size(); ++c) {
        const std::size_t barrier = std::min<std::size_t>(cuts[c], n);
        const std::size_t next = c + 1 < cuts.size() ? std::min<std::size_t>(cuts[c + 1], n) : n;
        std::int64_t last = -1;
        for (std::size_t l = 0; l < barrier; ++l)
            if (drawn[l] && (last < 0 || end[l] > end[static_cast<std::size_t>(last)]))
                last = static_cast<std::int64_t>(l);
        if (last < 0)
            continue;
        const auto from = static_cast<std::uint32_t>(last);
        std::vector<StreamId> seen;
        for (std::size_t l = barrier; l < next; ++l) {
            if (!drawn[l] || streamOf(l) == streamOf(from)
                || std::find(seen.begin(), seen.end(), streamOf(l)) != seen.end())
                continue;
            seen.push_back(streamOf(l));
            flows.push_back({ from, static_cast<std::uint32_t>(l), true });
        }
    }
    return flows;
}

} // namespace opsched
