#include "map/problem/modules.h"

#include "graph/reachability.h"
#include "util/error.h"

#include <algorithm>

namespace opsched::map {

std::vector<std::uint32_t> separators(const Dag& dag)
{
    const std::size_t n = dag.size();
    const auto topo = topologicalOrder(dag);
    if (!topo)
        throw Error("the task graph has a cycle");
    const Reachability reach(dag);
    std::vector<std::uint32_t> out;
    for (std::uint32_t v : *topo) {
        if (reach.ancestors(v).count() + reach.descendants(v).count() + 1 != n)
            continue;
        // An edge from an ancestor straight to a descendant would make what follows depend on
        // more than v's device.
        bool jumped = false;
        reach.ancestors(v).forEach([&](std::size_t a) {
            for (std::uint32_t b : dag.successors[a])
                jumped = jumped || reach.reaches(v, b);
        });
        if (!jumped)
            out.push_back(v);
    }
    return out;
}

std::vector<Segment> segmentsBetweenSeparators(const Dag& dag)
{
    const auto topo = *topologicalOrder(dag);
    const auto seps = separators(dag);
    std::vector<std::int64_t> sepIndex(dag.size(), -1);
    for (std::size_t i = 0; i < seps.size(); ++i)
        sepIndex[seps[i]] = static_cast<std::int64_t>(i);
    std::vector<Segment> segments(seps.size() + 1);
    for (std::size_t i = 0; i <= seps.size(); ++i) {
        segments[i].entry = i == 0 ? std::int64_t { -1 } : std::int64_t { seps[i - 1] };
        segments[i].exit = i < seps.size() ? std::int64_t { seps[i] } : std::int64_t { -1 };
    }
    // Walking in topological order, the separators passed so far are exactly a task's ancestors
    // among them (every separator is comparable with every task).
    std::size_t passed = 0;
    for (std::uint32_t v : topo) {
        if (sepIndex[v] >= 0) {
            ++passed;
            continue;
        }
        segments[passed].inner.push_back(v);
    }
    if (segments.back().inner.empty() && segments.back().exit < 0)
        segments.pop_back();
    return segments;
}

std::vector<std::vector<std::uint32_t>> chunksAlongOrder(
    const Dag& dag, const std::vector<std::uint32_t>& tasks, std::size_t maxTasks)
{
    maxTasks = std::max<std::size_t>(maxTasks, 2);
    const std::size_t n = tasks.size();
    std::vector<std::vector<std::uint32_t>> chunks;
    if (n <= maxTasks) {
        if (n)
            chunks.push_back(tasks);
        return chunks;
    }
    std::vector<std::int64_t> position(dag.size(), -1);
    for (std::size_t i = 0; i < n; ++i)
        position[tasks[i]] = static_cast<std::int64_t>(i);
    // crossing[i]: edges from tasks[0..i] to tasks[i+1..].
    std::vector<std::int64_t> delta(n + 1, 0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::uint32_t s : dag.successors[tasks[i]])
            if (position[s] > static_cast<std::int64_t>(i)) {
                ++delta[i];
                --delta[static_cast<std::size_t>(position[s])];
            }
    std::vector<std::int64_t> crossing(n, 0);
    std::int64_t open = 0;
    for (std::size_t i = 0; i < n; ++i) {
        open += delta[i];
        crossing[i] = open;
    }
    std::size_t begin = 0;
    while (begin < n) {
        if (n - begin <= maxTasks) {
            chunks.emplace_back(tasks.begin() + static_cast<std::ptrdiff_t>(begin), tasks.end());
            break;
        }
        const std::size_t lo = begin + std::max<std::size_t>(1, maxTasks / 2) - 1;
        const std::size_t hi = begin + maxTasks - 1;
        std::size_t cut = hi;
        for (std::size_t i = hi + 1; i-- > lo;)
            if (crossing[i] < crossing[cut])
                cut = i;
        chunks.emplace_back(
            tasks.begin() + static_cast<std::ptrdiff_t>(begin), tasks.begin() + static_cast<std::ptrdiff_t>(cut + 1));
        begin = cut + 1;
    }
    return chunks;
}

MappingProblem subproblem(
    const MappingProblem& problem, const std::vector<std::uint32_t>& tasks, std::vector<std::vector<double>> release)
{
    MappingProblem sub;
    sub.devices = problem.devices;
    sub.links = problem.links;
    std::vector<std::int64_t> local(problem.taskCount(), -1);
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        local[tasks[i]] = static_cast<std::int64_t>(i);
        sub.tasks.push_back(problem.tasks[tasks[i]]);
    }
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    for (std::size_t i = 0; i < tasks.size(); ++i)
        for (std::uint32_t s : problem.dag.successors[tasks[i]])
            if (local[s] >= 0)
                edges.emplace_back(static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(local[s]));
    sub.dag = Dag::fromEdges(tasks.size(), edges);
    sub.release = std::move(release);
    return sub;
}

} // namespace opsched::map
