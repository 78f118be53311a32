#include "plan/plan.h"

#include "util/bitset.h"

#include <algorithm>

namespace opsched {

std::size_t Plan::waitCount() const
{
    std::size_t n = 0;
    for (const auto& l : launches)
        n += l.waitFor.size();
    return n;
}

std::vector<DynamicBitset> launchHappensBefore(const Plan& plan)
{
    constexpr std::uint32_t kNone = ~0U;
    const std::size_t m = plan.launches.size();
    std::vector<DynamicBitset> before(m, DynamicBitset(m));
    std::vector<std::uint32_t> sortedBarriers = plan.barriers;
    std::sort(sortedBarriers.begin(), sortedBarriers.end());
    std::vector<std::uint32_t> lastOnStream(plan.streams, kNone);
    std::uint32_t barrierIdx = 0;
    std::uint32_t lastBarrier = 0;
    for (std::uint32_t i = 0; i < m; ++i) {
        while (barrierIdx < sortedBarriers.size() && sortedBarriers[barrierIdx] <= i)
            lastBarrier = sortedBarriers[barrierIdx++];
        auto inherit = [&](std::uint32_t j) {
            before[i].set(j);
            before[i] |= before[j];
        };
        for (std::uint32_t j = 0; j < lastBarrier; ++j)
            before[i].set(j);
        if (auto prev = lastOnStream[plan.launches[i].stream.value()]; prev != kNone)
            inherit(prev);
        for (auto w : plan.launches[i].waitFor)
            inherit(w);
        lastOnStream[plan.launches[i].stream.value()] = i;
    }
    return before;
}

std::vector<std::string> validate(const Graph& graph, const Plan& plan)
{
    std::vector<std::string> problems;
    const std::size_t n = graph.opCount();
    const std::size_t m = plan.launches.size();
    constexpr std::uint32_t kNone = ~0U;
    std::vector<std::uint32_t> launchOf(n, kNone);

    if (plan.streams == 0)
        problems.push_back("a plan needs at least one stream");
    for (std::uint32_t i = 0; i < m; ++i) {
        const Launch& l = plan.launches[i];
        const std::string where = "launch " + std::to_string(i);
        if (l.ops.empty())
            problems.push_back(where + " launches no op");
        if (!l.stream.valid() || l.stream.value() >= plan.streams)
            problems.push_back(
                where + " uses stream " + std::to_string(l.stream.value()) + " of " + std::to_string(plan.streams));
        for (auto w : l.waitFor) {
            if (w >= i)
                problems.push_back(where + " waits for launch " + std::to_string(w) + ", which is not earlier");
            else if (plan.launches[w].stream == l.stream)
                problems.push_back(where + " waits for launch " + std::to_string(w)
                    + " on its own stream (stream order already does that)");
        }
        for (auto id : l.ops) {
            if (!id.valid() || id.value() >= n) {
                problems.push_back(where + " names an op that is not in the model");
                continue;
            }
            if (launchOf[id.value()] != kNone)
                problems.push_back("op '" + graph.op(id).name + "' is launched more than once");
            launchOf[id.value()] = i;
        }
        if (l.merged())
            if (auto why = mergeProblem(graph, l.ops); !why.empty())
                problems.push_back(where + " merges ops that cannot be merged: " + why);
    }
    for (auto b : plan.barriers)
        if (b == 0 || b >= m)
            problems.push_back("barrier at launch " + std::to_string(b) + " is out of range");
    for (std::size_t v = 0; v < n; ++v)
        if (launchOf[v] == kNone)
            problems.push_back("op '" + graph.ops()[v].name + "' is never launched");
    if (!problems.empty())
        return problems;

    const std::vector<DynamicBitset> before = launchHappensBefore(plan);
    for (const auto& op : graph.ops())
        for (auto p : graph.predecessors(op.id)) {
            const auto lp = launchOf[p];
            const auto lv = launchOf[op.id.value()];
            if (lp == lv)
                continue; // merged launches hold independent ops only (mergeProblem checks same input)
            if (!before[lv].test(lp))
                problems.push_back("dependency '" + graph.op(OpId(p)).name + "' -> '" + op.name
                    + "' is not enforced (launch " + std::to_string(lv) + " may start before launch "
                    + std::to_string(lp) + " ends)");
        }
    return problems;
}

Plan compileSchedule(const Graph&, const Schedule& schedule)
{
    Plan plan;
    plan.streams = 1;
    for (const auto& stage : schedule.stages) {
        if (!plan.launches.empty())
            plan.barriers.push_back(static_cast<std::uint32_t>(plan.launches.size()));
        if (stage.strategy == StageStrategy::Merge) {
            Launch l;
            l.stream = StreamId(0U);
            for (const auto& g : stage.groups)
                l.ops.insert(l.ops.end(), g.begin(), g.end());
            plan.launches.push_back(std::move(l));
            continue;
        }
        plan.streams = std::max<std::uint32_t>(plan.streams, static_cast<std::uint32_t>(stage.groups.size()));
        std::size_t longest = 0;
        for (const auto& g : stage.groups)
            longest = std::max(longest, g.size());
        for (std::size_t i = 0; i < longest; ++i)
            for (std::size_t g = 0; g < stage.groups.size(); ++g)
                if (i < stage.groups[g].size())
                    plan.launches.push_back(Launch { { stage.groups[g][i] }, StreamId(g), {} });
    }
    return plan;
}

} // namespace opsched
