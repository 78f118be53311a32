#include "map/problem/mapping_problem.h"

#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <deque>

namespace opsched::map {

double MappingProblem::commSeconds(std::uint32_t task, std::uint32_t from, std::uint32_t to) const
{
    if (from == to)
        return 0;
    const Link& link = links[from][to];
    if (!link.connected())
        return kUnsupported;
    return link.latencySeconds + tasks[task].outputBytes / link.bandwidthBytesPerSecond;
}

void MappingProblem::validate() const
{
    if (devices.empty())
        throw Error("mapping problem: no devices");
    if (links.size() != devices.size())
        throw Error("mapping problem: the link table has " + std::to_string(links.size()) + " rows for "
            + std::to_string(devices.size()) + " devices");
    for (const auto& row : links)
        if (row.size() != devices.size())
            throw Error("mapping problem: a row of the link table has the wrong size");
    for (std::size_t u = 0; u < devices.size(); ++u)
        for (std::size_t v = 0; v < devices.size(); ++v) {
            const Link& l = links[u][v];
            if (!(l.bandwidthBytesPerSecond >= 0) || !(l.latencySeconds >= 0) || std::isinf(l.latencySeconds))
                throw Error("mapping problem: link " + devices[u].name + " -> " + devices[v].name
                    + " has a negative or impossible bandwidth or latency");
        }
    if (dag.size() != tasks.size())
        throw Error("mapping problem: " + std::to_string(tasks.size()) + " tasks but the graph has "
            + std::to_string(dag.size()) + " nodes");
    if (!topologicalOrder(dag))
        throw Error("mapping problem: the task graph has a cycle");
    if (!release.empty()) {
        if (release.size() != tasks.size())
            throw Error("mapping problem: release times for " + std::to_string(release.size()) + " of "
                + std::to_string(tasks.size()) + " tasks");
        for (const auto& row : release)
            for (double r : row)
                if (row.size() != devices.size() || !(r >= 0) || std::isinf(r))
                    throw Error("mapping problem: a release time is negative, infinite or missing");
    }
    for (const auto& t : tasks) {
        if (t.seconds.size() != devices.size())
            throw Error("mapping problem: task " + t.name + " has " + std::to_string(t.seconds.size()) + " costs for "
                + std::to_string(devices.size()) + " devices");
        bool runnable = false;
        for (double s : t.seconds) {
            if (std::isnan(s) || s < 0)
                throw Error("mapping problem: task " + t.name + " has a negative or undefined cost");
            runnable = runnable || std::isfinite(s);
        }
        if (!runnable)
            throw Error("mapping problem: no device can run task " + t.name);
        if (!(t.inputBytes >= 0 && t.outputBytes >= 0 && t.weightBytes >= 0))
            throw Error("mapping problem: task " + t.name + " has negative sizes");
    }
}

MappingTimes evaluate(const MappingProblem& problem, const Mapping& mapping)
{
    const std::size_t n = problem.taskCount();
    const std::size_t k = problem.deviceCount();
    MappingTimes out;
    auto fail = [&](std::string why) {
        out.feasible = false;
        out.problem = std::move(why);
        out.makespan = kUnsupported;
        return out;
    };
    if (mapping.device.size() != n)
        return fail("the mapping names a device for " + std::to_string(mapping.device.size()) + " of "
            + std::to_string(n) + " tasks");
    if (mapping.order.size() != k)
        return fail("the mapping has orders for " + std::to_string(mapping.order.size()) + " of " + std::to_string(k)
            + " devices");

    // Position of each task in its device's order; every task exactly once, on its own device.
    std::vector<std::int64_t> previous(n, -2);
    for (std::uint32_t u = 0; u < k; ++u) {
        std::int64_t before = -1;
        for (std::uint32_t t : mapping.order[u]) {
            if (t >= n || mapping.device[t] != u || previous[t] != -2)
                return fail("device " + problem.devices[u].name
                    + "'s order lists a task that is not mapped to it, "
                      "or twice");
            previous[t] = before;
            before = t;
        }
    }
    out.memoryBytes.assign(k, 0.0);
    for (std::uint32_t t = 0; t < n; ++t) {
        const std::uint32_t u = mapping.device[t];
        if (u >= k)
            return fail("task " + problem.tasks[t].name + " is mapped to device " + std::to_string(u)
                + ", which does not exist");
        if (previous[t] == -2)
            return fail("task " + problem.tasks[t].name + " is missing from its device's order");
        if (!std::isfinite(problem.seconds(t, u)))
            return fail("task " + problem.tasks[t].name + " cannot run on " + problem.devices[u].name);
        out.memoryBytes[u] += problem.tasks[t].memoryBytes();
    }
    for (std::uint32_t u = 0; u < k; ++u)
        if (out.memoryBytes[u] > problem.devices[u].memoryBytes)
            return fail("the tasks mapped to " + problem.devices[u].name + " need "
                + std::to_string(out.memoryBytes[u] / 1e6) + " MB, more than its "
                + std::to_string(problem.devices[u].memoryBytes / 1e6) + " MB");

    // Kahn over the DAG's edges plus each device's order.
    std::vector<std::uint32_t> waiting(n, 0);
    std::vector<std::uint32_t> nextOnDevice(n, UINT32_MAX);
    for (std::uint32_t t = 0; t < n; ++t) {
        waiting[t] = static_cast<std::uint32_t>(problem.dag.predecessors[t].size()) + (previous[t] >= 0 ? 1 : 0);
        if (previous[t] >= 0)
            nextOnDevice[static_cast<std::size_t>(previous[t])] = t;
    }
    out.start.assign(n, 0.0);
    out.finish.assign(n, 0.0);
    std::deque<std::uint32_t> ready;
    for (std::uint32_t t = 0; t < n; ++t)
        if (waiting[t] == 0)
            ready.push_back(t);
    std::size_t done = 0;
    while (!ready.empty()) {
        const std::uint32_t t = ready.front();
        ready.pop_front();
        ++done;
        const std::uint32_t u = mapping.device[t];
        double start = std::max(
            previous[t] >= 0 ? out.finish[static_cast<std::size_t>(previous[t])] : 0.0, problem.releaseOf(t, u));
        for (std::uint32_t p : problem.dag.predecessors[t]) {
            const double c = problem.commSeconds(p, mapping.device[p], u);
            if (!std::isfinite(c))
                return fail("no link from " + problem.devices[mapping.device[p]].name + " to " + problem.devices[u].name
                    + " for " + problem.tasks[p].name + " -> " + problem.tasks[t].name);
            start = std::max(start, out.finish[p] + c);
        }
        out.start[t] = start;
        out.finish[t] = start + problem.seconds(t, u);
        auto release = [&](std::uint32_t s) {
            if (--waiting[s] == 0)
                ready.push_back(s);
        };
        for (std::uint32_t s : problem.dag.successors[t])
            release(s);
        if (nextOnDevice[t] != UINT32_MAX)
            release(nextOnDevice[t]);
    }
    if (done != n)
        return fail("a device's order contradicts the dependencies (a task is ordered before one it depends on)");

    out.feasible = true;
    out.makespan = 0;
    for (std::uint32_t t = 0; t < n; ++t)
        out.makespan = std::max(out.makespan, out.finish[t]);
    for (std::uint32_t t = 0; t < n; ++t)
        for (std::uint32_t s : problem.dag.successors[t])
            if (mapping.device[t] != mapping.device[s]) {
                const double c = problem.commSeconds(t, mapping.device[t], mapping.device[s]);
                out.transfers.push_back({ t, s, mapping.device[t], mapping.device[s], out.finish[t], out.finish[t] + c,
                    problem.tasks[t].outputBytes });
            }
    return out;
}

Mapping mappingWithOrder(
    const MappingProblem& problem, const std::vector<std::uint32_t>& device, const std::vector<std::uint32_t>& priority)
{
    Mapping m;
    m.device = device;
    m.order.assign(problem.deviceCount(), {});
    for (std::uint32_t t : priority)
        if (t < device.size() && device[t] < m.order.size())
            m.order[device[t]].push_back(t);
    return m;
}

std::vector<std::uint32_t> breadthFirstOrder(const Dag& dag)
{
    const auto topo = topologicalOrder(dag);
    if (!topo)
        throw Error("the task graph has a cycle");
    std::vector<std::uint32_t> depth(dag.size(), 0);
    for (std::uint32_t v : *topo)
        for (std::uint32_t s : dag.successors[v])
            depth[s] = std::max(depth[s], depth[v] + 1);
    std::vector<std::uint32_t> order = *topo;
    std::stable_sort(order.begin(), order.end(),
        [&](std::uint32_t a, std::uint32_t b) { return depth[a] != depth[b] ? depth[a] < depth[b] : a < b; });
    return order;
}

} // namespace opsched::map
