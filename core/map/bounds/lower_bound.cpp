#include "map/bounds/lower_bound.h"

#include "map/bounds/module_bound.h"
#include "map/bounds/simple_bound.h"
#include "map/bounds/throughput_bound.h"
#include "map/problem/modules.h"
#include "map/solvers/simplex_climb.h"

#include "graph/reachability.h"

#include <algorithm>
#include <cmath>

namespace opsched::map {
namespace {

// tail[t][u]: the least time the tasks after t still need once t ends on u, transfers paid as in
// earliestFinish (mirrored): a successor s on v gets t's result comm(t, u, v) later.
std::vector<std::vector<double>> leastTail(const MappingProblem& p)
{
    const std::size_t n = p.taskCount(), k = p.deviceCount();
    std::vector<std::vector<double>> tail(n, std::vector<double>(k, 0.0));
    const auto topo = *topologicalOrder(p.dag);
    for (auto it = topo.rbegin(); it != topo.rend(); ++it)
        for (std::uint32_t u = 0; u < k; ++u)
            for (std::uint32_t s : p.dag.successors[*it]) {
                double least = kUnsupported;
                for (std::uint32_t v = 0; v < k; ++v)
                    least = std::min(least, p.commSeconds(*it, u, v) + p.seconds(s, v) + tail[s][v]);
                tail[*it][u] = std::max(tail[*it][u], least);
            }
    return tail;
}

// The work bound over devices of different speeds. Task i takes one of its options; option o puts
// load[i][o][u] on device u (0: none; an infinite entry rules the option out). For weights w >= 0
// summing to 1, makespan >= max_u load_u >= sum_u w_u load_u >= sum_i min_o sum_u w_u load[i][o][u],
// each term a task's share. Any w gives a bound.
using OptionLoads = std::vector<std::vector<std::vector<double>>>; // [task][option][device]

std::vector<double> weightedShares(const OptionLoads& load, const std::vector<double>& w)
{
    std::vector<double> share(load.size(), 0.0);
    for (std::size_t i = 0; i < load.size(); ++i) {
        double least = kUnsupported;
        for (const auto& option : load[i]) {
            double sum = 0;
            for (std::size_t u = 0; u < w.size(); ++u) {
                if (!std::isfinite(option[u])) { // ruled out (and inf * 0 would be NaN)
                    sum = kUnsupported;
                    break;
                }
                sum += option[u] * w[u];
            }
            least = std::min(least, sum);
        }
        share[i] = std::isfinite(least) ? least : 0.0;
    }
    return share;
}

// The shares for good weights: the sum is concave in w (a minimum of linear functions), so a few
// exchange steps from w ~ 1 / total[u] (u's time for everything) find a good one.
std::vector<double> bestWeightedShares(const OptionLoads& load, const std::vector<double>& total)
{
    const std::size_t k = total.size();
    auto value = [&](const std::vector<double>& w) {
        double sum = 0;
        for (double share : weightedShares(load, w))
            sum += share;
        return sum;
    };
    std::vector<double> w(k, 0.0);
    double norm = 0;
    for (std::size_t u = 0; u < k; ++u)
        norm += std::isfinite(total[u]) && total[u] > 0 ? 1.0 / total[u] : 0.0;
    if (norm <= 0)
        return std::vector<double>(load.size(), 0.0);
    for (std::size_t u = 0; u < k; ++u)
        w[u] = std::isfinite(total[u]) && total[u] > 0 ? 1.0 / total[u] / norm : 0.0;
    // Steps from 0.05, halved down to 1e-4.
    std::vector<double> steps;
    for (double step = 0.05; step > 1e-4; step /= 2)
        steps.push_back(step);
    climbSimplex(w, value, value(w), steps);
    return weightedShares(load, w);
}

// For any set S of tasks, every device works on S only from the earliest head in S on, and
// until the makespan minus the least tail in S, so makespan >= min head + weighted work of S, and
// >= weighted work of S + min tail. S = the tasks with the largest heads (or tails), at every size.
double headWorkTail(const std::vector<double>& head, const std::vector<double>& tail, const std::vector<double>& share)
{
    const std::size_t n = share.size();
    double best = 0;
    for (const auto* key : { &head, &tail }) {
        std::vector<std::uint32_t> byKey(n);
        for (std::uint32_t t = 0; t < n; ++t)
            byKey[t] = t;
        std::sort(byKey.begin(), byKey.end(), [&](std::uint32_t a, std::uint32_t b) { return (*key)[a] > (*key)[b]; });
        double work = 0;
        for (std::uint32_t t : byKey) {
            work += share[t];
            best = std::max(best, (*key)[t] + work);
        }
    }
    return best;
}

// Per task, the earliest any part of it can start (head) and the least time the tasks after it
// still need (tail), from earliestFinish and leastTail; `path` gets the longest chain, max over
// tasks of the earliest finish.
void headsAndTails(const MappingProblem& p, std::vector<double>& head, std::vector<double>& tail, double& path)
{
    const std::size_t n = p.taskCount(), k = p.deviceCount();
    const auto finish = earliestFinish(p, std::vector<char>(n, 1));
    const auto tails = leastTail(p);
    head.assign(n, kUnsupported);
    tail.assign(n, kUnsupported);
    path = 0;
    for (std::uint32_t t = 0; t < n; ++t) {
        double end = kUnsupported;
        for (std::uint32_t u = 0; u < k; ++u)
            if (std::isfinite(p.seconds(t, u))) {
                head[t] = std::min(head[t], finish[t][u] - p.seconds(t, u));
                tail[t] = std::min(tail[t], tails[t][u]);
                end = std::min(end, finish[t][u]);
            }
        path = std::max(path, end);
    }
}

// headWorkTail for the latency problem: each task's options are the devices it can run on.
double latencyHeadWorkTail(const MappingProblem& p)
{
    std::vector<double> head, tail;
    double path = 0;
    headsAndTails(p, head, tail, path);
    const std::size_t k = p.deviceCount();
    OptionLoads load(p.taskCount(), std::vector<std::vector<double>>(k, std::vector<double>(k, 0.0)));
    std::vector<double> total(k, 0.0);
    for (std::uint32_t t = 0; t < p.taskCount(); ++t)
        for (std::uint32_t u = 0; u < k; ++u) {
            load[t][u][u] = p.seconds(t, u);
            total[u] += p.seconds(t, u);
        }
    return headWorkTail(head, tail, bestWeightedShares(load, total));
}

} // namespace

double lowerBound(const MappingProblem& p, const std::vector<std::vector<std::uint32_t>>& modules)
{
    double best = simpleLowerBound(p);
    // The recursion measures modules from the moment the one before ends; release times would be
    // counted twice, so it only runs on problems without them.
    if (modules.size() < 2 || !p.release.empty())
        return best;
    const std::size_t n = p.taskCount();
    const Reachability reach(p.dag);
    std::vector<std::int64_t> moduleOf(n, -1);
    for (std::size_t m = 0; m < modules.size(); ++m)
        for (std::uint32_t t : modules[m])
            moduleOf[t] = static_cast<std::int64_t>(m);

    // lb[s]: bound for G_s = modules s.. scheduled on their own.
    std::vector<double> lb(modules.size() + 1, 0.0);
    std::vector<std::uint32_t> tail; // G_{s+1}'s tasks
    for (std::size_t s = modules.size(); s-- > 0;) {
        const auto& mod = modules[s];
        std::vector<std::uint32_t> whole = mod;
        whole.insert(whole.end(), tail.begin(), tail.end());
        double bound = simpleLowerBound(p, whole);
        if (!tail.empty()) {
            auto inTail = [&](std::uint32_t t) { return moduleOf[t] > static_cast<std::int64_t>(s); };
            bool everyHeadReaches = true, everyTailReached = true;
            for (std::uint32_t t : mod) {
                bool reaches = false;
                reach.descendants(t).forEach(
                    [&](std::size_t d) { reaches = reaches || inTail(static_cast<std::uint32_t>(d)); });
                everyHeadReaches = everyHeadReaches && reaches;
            }
            for (std::uint32_t t : tail) {
                bool reached = false;
                reach.ancestors(t).forEach(
                    [&](std::size_t a) { reached = reached || moduleOf[a] == static_cast<std::int64_t>(s); });
                everyTailReached = everyTailReached && reached;
            }
            if (everyHeadReaches) {
                double cheapest = kUnsupported;
                for (std::uint32_t t : tail) {
                    bool input = false;
                    for (std::uint32_t q : p.dag.predecessors[t])
                        input = input || moduleOf[q] == static_cast<std::int64_t>(s);
                    if (!input)
                        continue;
                    std::vector<std::uint32_t> dep { t };
                    reach.descendants(t).forEach([&](std::size_t d) {
                        if (inTail(static_cast<std::uint32_t>(d)))
                            dep.push_back(static_cast<std::uint32_t>(d));
                    });
                    cheapest = std::min(cheapest, simpleLowerBound(p, dep));
                }
                if (std::isfinite(cheapest))
                    bound = std::max(bound, simpleLowerBound(p, mod) + cheapest);
            }
            if (everyTailReached) {
                double cheapest = kUnsupported;
                for (std::uint32_t t : mod) {
                    bool output = false;
                    for (std::uint32_t q : p.dag.successors[t])
                        output = output || inTail(q);
                    if (!output)
                        continue;
                    std::vector<std::uint32_t> pre { t };
                    reach.ancestors(t).forEach([&](std::size_t a) {
                        if (moduleOf[a] == static_cast<std::int64_t>(s))
                            pre.push_back(static_cast<std::uint32_t>(a));
                    });
                    cheapest = std::min(cheapest, simpleLowerBound(p, pre));
                }
                if (std::isfinite(cheapest))
                    bound = std::max(bound, lb[s + 1] + cheapest);
            }
        }
        lb[s] = bound;
        tail = whole;
    }
    return std::max(best, lb[0]);
}

double lowerBound(const MappingProblem& p, std::uint64_t probeNodes)
{
    const auto topo = *topologicalOrder(p.dag);
    double best = std::max(simpleLowerBound(p), latencyHeadWorkTail(p));
    for (std::size_t size : { 4, 8, 12, 24 })
        if (topo.size() > size)
            best = std::max(best, lowerBound(p, chunksAlongOrder(p.dag, topo, size)));
    // The paper's recursion with the optimum of each module (module_bound.h).
    ModuleBoundOptions options;
    options.probeNodes = probeNodes;
    return std::max(best, moduleChainLowerBound(p, options));
}

namespace {

// The work bound for L inputs: op i's option u runs all of them on u at its cheapest cost per
// input there (r_iu, over the batch sizes). A split with n_iu inputs on u loads u at least
// n_iu r_iu, and sum_u w_u n_iu r_iu >= L min_u w_u r_iu, so these options bound every split.
std::vector<double> inputWeightedShares(const ThroughputProblem& p)
{
    const std::size_t n = p.base.taskCount(), k = p.base.deviceCount();
    OptionLoads load(n, std::vector<std::vector<double>>(k, std::vector<double>(k, 0.0)));
    std::vector<double> total(k, 0.0);
    for (std::uint32_t i = 0; i < n; ++i)
        for (std::uint32_t u = 0; u < k; ++u) {
            double rate = kUnsupported;
            for (std::size_t s = 0; s < p.sizes.size(); ++s)
                rate = std::min(rate, p.seconds[i][u][s] / static_cast<double>(p.sizes[s]));
            load[i][u][u] = rate * static_cast<double>(p.inputs);
            total[u] += load[i][u][u];
        }
    return bestWeightedShares(load, total);
}

} // namespace

double throughputLowerBound(const ThroughputProblem& p)
{
    const std::size_t n = p.base.taskCount(), k = p.base.deviceCount();
    std::vector<double> leastWork(n, kUnsupported);
    for (std::uint32_t i = 0; i < n; ++i) {
        for (std::size_t s = 0; s < p.splits.size(); ++s) {
            double work = 0;
            for (std::uint32_t u = 0; u < k; ++u)
                work += p.blockCost(i, s, u);
            leastWork[i] = std::min(leastWork[i], work);
        }
    }
    // Follow one input through the graph: its batch of t on u lasts at least t's cheapest batch
    // there, and waits for its batch of each predecessor plus, across devices, the transfer of at
    // least its own result (the base problem's per-input bytes). That is the latency problem with
    // those costs, whose chains (transfers paid), heads and tails hold for every input.
    MappingProblem perInput = p.base;
    perInput.release.clear(); // the batched evaluator has none
    for (std::uint32_t i = 0; i < n; ++i)
        for (std::uint32_t u = 0; u < k; ++u) {
            double cheapest = kUnsupported;
            for (std::size_t s = 0; s < p.sizes.size(); ++s)
                cheapest = std::min(cheapest, p.seconds[i][u][s]);
            perInput.tasks[i].seconds[u] = cheapest;
        }
    std::vector<double> head, tail;
    double path = 0;
    headsAndTails(perInput, head, tail, path);
    double work = 0;
    for (std::uint32_t t = 0; t < n; ++t)
        work += leastWork[t];
    return std::max({ path, work / static_cast<double>(k), headWorkTail(head, tail, inputWeightedShares(p)),
        throughputRecursiveBound(p) }); // the paper's recursion, throughput_bound.h
}

} // namespace opsched::map
