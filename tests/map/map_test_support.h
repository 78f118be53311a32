// Random mapping problems and the exhaustive optimum the mappers are checked against.
#pragma once

#include "map/problem/mapping_problem.h"
#include "map/problem/throughput_problem.h"
#include "util/random.h"

#include <algorithm>
#include <cmath>
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
        p.devices.push_back({ "dev" + std::to_string(u) });
    p.links.assign(devices, std::vector<Link>(devices));
    for (std::size_t u = 0; u < devices; ++u)
        for (std::size_t v = 0; v < devices; ++v)
            if (u != v)
                p.links[u][v] = { (1 + 9 * rng.uniform()) * 1e9, (5 + 45 * rng.uniform()) * 1e-6 };
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

// A module-like problem: task 0 is fed from outside (arrives on device 0 first), every other task
// has one to three earlier inputs; device 0 is fastest, the others 1.3-8x slower; every transfer
// costs about two ops on device 0.
inline MappingProblem moduleLike(std::uint64_t seed, std::size_t n, std::size_t k)
{
    SplitMix64 rng(seed);
    MappingProblem p = randomProblem(seed, n, k, 0.0);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    for (std::uint32_t j = 1; j < n; ++j) {
        const std::size_t inputs = 1 + static_cast<std::size_t>(rng.uniform() * 2.99);
        for (std::size_t e = 0; e < inputs; ++e)
            edges.emplace_back(static_cast<std::uint32_t>(rng.uniform() * j), j);
    }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    p.dag = Dag::fromEdges(n, edges);
    std::vector<double> slowdown(k, 1.0);
    for (std::size_t u = 1; u < k; ++u)
        slowdown[u] = 1.3 + 6.7 * rng.uniform();
    for (auto& t : p.tasks) {
        const double base = (20 + 10 * rng.uniform()) * 1e-6;
        for (std::size_t u = 0; u < k; ++u)
            t.seconds[u] = base * slowdown[u] * (0.9 + 0.2 * rng.uniform());
        t.outputBytes = 0.8e6;
    }
    for (std::size_t u = 0; u < k; ++u)
        for (std::size_t v = 0; v < k; ++v)
            if (u != v)
                p.links[u][v] = { 25e9, (5 + 20 * rng.uniform()) * 1e-6 };
    p.release.assign(n, std::vector<double>(k, 0.0));
    for (std::size_t u = 1; u < k; ++u)
        p.release[0][u] = 42e-6;
    if (rng.uniform() < 0.5) // sometimes a later arrival elsewhere too
        p.release[n - 1][0] = 60e-6 * rng.uniform();
    return p;
}

// Chains of small random modules joined at single tasks: separators everywhere MILP-SPLIT cuts.
inline MappingProblem modularProblem(
    std::uint64_t seed, std::size_t modules, std::size_t perModule, std::size_t devices)
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

// Multi-channel families (no separator inside the body, so MILP-SPLIT has to cut channels):
// costs and links come from randomProblem, only the graph differs.

// A source, `channels` parallel chains of `length` tasks, a sink; each chain task also feeds the
// next task of another chain with probability `cross` (RWNN-like mixing).
inline MappingProblem forkJoinProblem(
    std::uint64_t seed, std::size_t channels, std::size_t length, std::size_t devices, double cross = 0.3)
{
    const std::size_t n = channels * length + 2;
    MappingProblem p = randomProblem(seed, n, devices, 0.0);
    SplitMix64 rng(seed * 131 + 7);
    const auto id = [&](std::size_t c, std::size_t j) { return static_cast<std::uint32_t>(1 + c * length + j); };
    const auto sink = static_cast<std::uint32_t>(n - 1);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    for (std::size_t c = 0; c < channels; ++c) {
        edges.emplace_back(0, id(c, 0));
        edges.emplace_back(id(c, length - 1), sink);
        for (std::size_t j = 0; j + 1 < length; ++j) {
            edges.emplace_back(id(c, j), id(c, j + 1));
            if (rng.uniform() < cross)
                edges.emplace_back(id(c, j), id((c + 1 + rng.below(channels - 1)) % channels, j + 1));
        }
    }
    p.dag = Dag::fromEdges(n, edges);
    return p;
}

// `layers` layers of `width` tasks; each task reads one random task of the layer before, and a
// second one with probability 0.4. No source or sink: several entry and exit channels.
inline MappingProblem layeredProblem(std::uint64_t seed, std::size_t layers, std::size_t width, std::size_t devices)
{
    const std::size_t n = layers * width;
    MappingProblem p = randomProblem(seed, n, devices, 0.0);
    SplitMix64 rng(seed * 977 + 3);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    for (std::size_t l = 1; l < layers; ++l)
        for (std::size_t w = 0; w < width; ++w) {
            const auto to = static_cast<std::uint32_t>(l * width + w);
            const auto a = static_cast<std::uint32_t>((l - 1) * width + rng.below(width));
            edges.emplace_back(a, to);
            if (rng.uniform() < 0.4)
                edges.emplace_back(static_cast<std::uint32_t>((l - 1) * width + rng.below(width)), to);
        }
    p.dag = Dag::fromEdges(n, edges);
    return p;
}

// Devices that differ per task, not just by a common factor: device u's speed ({1, 0.4, 2.5}
// for u = 0, 1, 2) times a per-task affinity in [0.4, 2.5] (log-uniform), so no device is fastest
// for everything (as a CPU and a GPU differ by op type).
inline void makeHeterogeneous(MappingProblem& p, std::uint64_t seed)
{
    SplitMix64 rng(seed * 7919 + 11);
    const double speed[] = { 1.0, 0.4, 2.5, 1.6 };
    for (auto& t : p.tasks) {
        const double base = t.seconds[0];
        for (std::size_t u = 0; u < t.seconds.size(); ++u)
            t.seconds[u] = base * speed[u % 4] * std::exp(std::log(0.4) + rng.uniform() * std::log(2.5 / 0.4));
    }
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

// The same optimum as exhaustiveOptimum, fast enough for 8-10 tasks: still every mapping that can
// beat the best so far is built and evaluated whole by evaluate(), but
//  - an assignment is skipped when a bound valid for it alone (its longest path with its own
//    durations and transfers, its busiest device) exceeds the best so far, and
//  - per assignment, topological orders that differ only by swapping neighbours on different
//    devices give the same per-device orders; only the one where the smaller task comes first
//    is built (the lexicographically least order of each class always passes that rule).
// Starts from the best single-device mapping, a makespan some mapping reaches.
inline double prunedExhaustiveOptimum(const MappingProblem& p)
{
    const std::size_t n = p.taskCount(), k = p.deviceCount();
    const auto topo = *topologicalOrder(p.dag);
    double best = std::numeric_limits<double>::infinity();
    for (std::uint32_t u = 0; u < k; ++u) {
        const auto t = evaluate(p, mappingWithOrder(p, std::vector<std::uint32_t>(n, u), topo));
        if (t.feasible)
            best = std::min(best, t.makespan);
    }
    std::vector<std::uint32_t> device(n, 0), order, waiting(n);
    std::vector<char> used(n, 0);
    std::vector<double> end(n), load(k);
    const auto edge = [&](std::uint32_t a, std::uint32_t b) {
        return std::binary_search(p.dag.successors[a].begin(), p.dag.successors[a].end(), b);
    };
    std::function<void()> orders = [&] {
        if (order.size() == n) {
            const auto t = evaluate(p, mappingWithOrder(p, device, order));
            if (t.feasible)
                best = std::min(best, t.makespan);
            return;
        }
        for (std::uint32_t v = 0; v < n; ++v) {
            if (used[v] || waiting[v])
                continue;
            if (!order.empty()) {
                const std::uint32_t a = order.back();
                if (device[a] != device[v] && v < a && !edge(a, v))
                    continue;
            }
            used[v] = 1;
            order.push_back(v);
            for (auto s : p.dag.successors[v])
                --waiting[s];
            orders();
            for (auto s : p.dag.successors[v])
                ++waiting[s];
            order.pop_back();
            used[v] = 0;
        }
    };
    std::size_t assignments = 1;
    for (std::size_t i = 0; i < n; ++i)
        assignments *= k;
    for (std::size_t code = 0; code < assignments; ++code) {
        std::size_t c = code;
        for (std::size_t i = 0; i < n; ++i) {
            device[i] = static_cast<std::uint32_t>(c % k);
            c /= k;
        }
        std::fill(load.begin(), load.end(), 0.0);
        double bound = 0;
        for (std::uint32_t t : topo) {
            double start = p.releaseOf(t, device[t]);
            for (std::uint32_t q : p.dag.predecessors[t])
                start = std::max(start, end[q] + p.commSeconds(q, device[q], device[t]));
            end[t] = start + p.seconds(t, device[t]);
            load[device[t]] += p.seconds(t, device[t]);
            bound = std::max({ bound, end[t], load[device[t]] });
        }
        if (!std::isfinite(bound) || bound > best * (1 + 1e-12))
            continue; // no order of this assignment can beat `best` (or it cannot run at all)
        for (std::uint32_t v = 0; v < n; ++v)
            waiting[v] = static_cast<std::uint32_t>(p.dag.predecessors[v].size());
        orders();
    }
    return best;
}

// The batched problem of `inputs` inputs over `base`, in the paper's batch sizes; costs grow
// sub-linearly with the batch: t(p) = t(1) * (0.4 + 0.6 p).
inline ThroughputProblem batched(const MappingProblem& base, std::int64_t inputs)
{
    ThroughputProblem p;
    p.base = base;
    p.inputs = inputs;
    p.sizes = paperBatchSizes(inputs);
    p.splits = enumerateSplits(inputs, p.sizes, base.deviceCount());
    p.seconds.assign(base.taskCount(), std::vector<std::vector<double>>(base.deviceCount()));
    for (std::uint32_t t = 0; t < base.taskCount(); ++t)
        for (std::uint32_t u = 0; u < base.deviceCount(); ++u)
            for (std::int64_t s : p.sizes)
                p.seconds[t][u].push_back(base.seconds(t, u) * (0.4 + 0.6 * static_cast<double>(s)));
    return p;
}

// The throughput optimum by brute force: every split of every op x every topological order
// (each device's batches of an op together).
inline double exhaustiveThroughput(const ThroughputProblem& p)
{
    double best = kUnsupported;
    const std::size_t n = p.base.taskCount(), choices = p.splits.size();
    std::size_t codes = 1;
    for (std::size_t i = 0; i < n; ++i)
        codes *= choices;
    std::vector<std::uint32_t> split(n, 0);
    std::vector<std::vector<std::uint32_t>> orders;
    test::forEachTopologicalOrder(p.base.dag, [&](const std::vector<std::uint32_t>& o) { orders.push_back(o); });
    for (std::size_t code = 0; code < codes; ++code) {
        std::size_t c = code;
        for (auto& s : split) {
            s = static_cast<std::uint32_t>(c % choices);
            c /= choices;
        }
        for (const auto& o : orders) {
            const auto t = evaluate(p, throughputWithOrder(p, split, o));
            if (t.feasible)
                best = std::min(best, t.makespan);
        }
    }
    return best;
}

} // namespace opsched::map::test
