// Random mapping problems and the exhaustive optimum the mappers are checked against.
#pragma once

#include "map/mapping_problem.h"
#include "util/random.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace opsched::map::test {

// A random DAG on n tasks (edge i->j, i<j, with probability `density`), costs in [0.1, 2] ms
// with device u about (1 + u/2) times slower, links of 1-10 GB/s and 5-50 us, outputs of 0.1-4 MB.
inline MappingProblem randomProblem(std::uint64_t seed, std::size_t n, std::size_t devices, double density = 0.35)
{
    SplitMix64 rng(seed);
    MappingProblem p;
    for (std::size_t u = 0; u < devices; ++u)
        p.devices.push_back({"dev" + std::to_string(u)});
    p.links.assign(devices, std::vector<Link>(devices));
    for (std::size_t u = 0; u < devices; ++u)
        for (std::size_t v = 0; v < devices; ++v)
            if (u != v)
                p.links[u][v] = {(1 + 9 * rng.uniform()) * 1e9, (5 + 45 * rng.uniform()) * 1e-6};
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    for (std::uint32_t i = 0; i < n; ++i)
        for (std::uint32_t j = i + 1; j < n; ++j)
            if (rng.uniform() < density)
                edges.emplace_back(i, j);
    p.dag = Dag::fromEdges(n, edges);
    for (std::size_t i = 0; i < n; ++i) {
        MapTask t;
        t.name = "t" + std::to_string(i);
        const double base = (0.1 + 1.9 * rng.uniform()) * 1e-3;
        for (std::size_t u = 0; u < devices; ++u)
            t.seconds.push_back(base * (1 + 0.5 * static_cast<double>(u)) * (0.6 + 0.8 * rng.uniform()));
        t.outputBytes = (0.1 + 3.9 * rng.uniform()) * 1e6;
        t.inputBytes = t.outputBytes;
        p.tasks.push_back(t);
    }
    return p;
}

// Chains of small random modules joined at single tasks: separators everywhere MILP-SPLIT cuts.
inline MappingProblem modularProblem(std::uint64_t seed, std::size_t modules, std::size_t perModule, std::size_t devices)
{
    const MappingProblem parts = randomProblem(seed, modules * (perModule + 1) + 1, devices, 0.0);
    MappingProblem p = parts;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    SplitMix64 rng(seed * 77);
    std::uint32_t joint = 0; // the separator before the module
    std::uint32_t next = 1;
    for (std::size_t m = 0; m < modules; ++m) {
        const std::uint32_t first = next;
        next += static_cast<std::uint32_t>(perModule);
        const std::uint32_t out = next++;
        for (std::uint32_t t = first; t < first + perModule; ++t) {
            edges.emplace_back(joint, t); // every module task hangs between the two joints
            edges.emplace_back(t, out);
            for (std::uint32_t s = t + 1; s < first + perModule; ++s)
                if (rng.uniform() < 0.3)
                    edges.emplace_back(t, s);
        }
        joint = out;
    }
    p.dag = Dag::fromEdges(next, edges);
    p.tasks.resize(next);
    return p;
}

// Every topological order: each (mapping, per-device orders) pair that can run is the restriction
// of one of them.
inline void forEachTopologicalOrder(const Dag& dag, const std::function<void(const std::vector<std::uint32_t>&)>& f)
{
    const std::size_t n = dag.size();
    std::vector<std::uint32_t> waiting(n), order;
    for (std::size_t v = 0; v < n; ++v)
        waiting[v] = static_cast<std::uint32_t>(dag.predecessors[v].size());
    std::vector<char> used(n, 0);
    std::function<void()> rec = [&] {
        if (order.size() == n) {
            f(order);
            return;
        }
        for (std::uint32_t v = 0; v < n; ++v) {
            if (used[v] || waiting[v])
                continue;
            used[v] = 1;
            order.push_back(v);
            for (auto s : dag.successors[v])
                --waiting[s];
            rec();
            for (auto s : dag.successors[v])
                ++waiting[s];
            order.pop_back();
            used[v] = 0;
        }
    };
    rec();
}

// The optimum over every device assignment and every per-device order, each evaluated whole.
inline double exhaustiveOptimum(const MappingProblem& p)
{
    const std::size_t n = p.taskCount(), k = p.deviceCount();
    double best = std::numeric_limits<double>::infinity();
    std::size_t assignments = 1;
    for (std::size_t i = 0; i < n; ++i)
        assignments *= k;
    std::vector<std::vector<std::uint32_t>> orders;
    forEachTopologicalOrder(p.dag, [&](const std::vector<std::uint32_t>& o) { orders.push_back(o); });
    std::vector<std::uint32_t> device(n);
    for (std::size_t code = 0; code < assignments; ++code) {
        std::size_t c = code;
        for (std::size_t i = 0; i < n; ++i) {
            device[i] = static_cast<std::uint32_t>(c % k);
            c /= k;
        }
        for (const auto& o : orders) {
            const auto times = evaluate(p, mappingWithOrder(p, device, o));
            if (times.feasible)
                best = std::min(best, times.makespan);
        }
    }
    return best;
}

} // namespace opsched::map::test
