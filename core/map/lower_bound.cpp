#include "map/lower_bound.h"

#include "map/modules.h"

#include "graph/reachability.h"

#include <algorithm>
#include <cmath>

namespace opsched::map {
namespace {

double fastest(const MappingProblem& p, std::uint32_t t)
{
    double best = kUnsupported;
    for (std::uint32_t u = 0; u < p.deviceCount(); ++u)
        best = std::min(best, p.seconds(t, u));
    return best;
}

double earliestRelease(const MappingProblem& p, std::uint32_t t)
{
    double best = kUnsupported;
    for (std::uint32_t u = 0; u < p.deviceCount(); ++u)
        if (std::isfinite(p.seconds(t, u)))
            best = std::min(best, p.releaseOf(t, u));
    return best;
}

} // namespace

double simpleLowerBound(const MappingProblem& p, const std::vector<std::uint32_t>& subset)
{
    const std::size_t n = p.taskCount();
    std::vector<char> in(n, subset.empty() ? 1 : 0);
    for (std::uint32_t t : subset)
        in[t] = 1;
    const auto topo = *topologicalOrder(p.dag);
    std::vector<double> end(n, 0.0);
    double path = 0, work = 0;
    for (std::uint32_t t : topo) {
        if (!in[t])
            continue;
        double start = earliestRelease(p, t);
        for (std::uint32_t q : p.dag.predecessors[t])
            if (in[q])
                start = std::max(start, end[q]);
        end[t] = start + fastest(p, t);
        path = std::max(path, end[t]);
        work += fastest(p, t);
    }
    return std::max(path, work / static_cast<double>(p.deviceCount()));
}

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
                reach.descendants(t).forEach([&](std::size_t d) { reaches = reaches || inTail(static_cast<std::uint32_t>(d)); });
                everyHeadReaches = everyHeadReaches && reaches;
            }
            for (std::uint32_t t : tail) {
                bool reached = false;
                reach.ancestors(t).forEach([&](std::size_t a) {
                    reached = reached || moduleOf[a] == static_cast<std::int64_t>(s);
                });
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
                    std::vector<std::uint32_t> dep{t};
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
                    std::vector<std::uint32_t> pre{t};
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

double lowerBound(const MappingProblem& p)
{
    const auto topo = *topologicalOrder(p.dag);
    double best = simpleLowerBound(p);
    for (std::size_t size : {4, 8, 12, 24})
        if (topo.size() > size)
            best = std::max(best, lowerBound(p, chunksAlongOrder(p.dag, topo, size)));
    return best;
}

namespace {

// Device u is busy at least sum_i n_iu r_iu, where n_iu of op i's L inputs run on u and r_iu is
// its cheapest cost per input there (over the batch sizes). For weights w on the devices summing
// to 1, C >= sum_u w_u load_u >= sum_i L min_u w_u r_iu: any w gives a bound, and the function is
// concave in w, so a few exchange steps from w ~ 1 / (u's time for everything) find a good one.
double speedWeightedWork(const BatchedProblem& p)
{
    const std::size_t n = p.base.taskCount(), k = p.base.deviceCount();
    std::vector<std::vector<double>> rate(n, std::vector<double>(k, kUnsupported));
    std::vector<double> total(k, 0.0);
    for (std::uint32_t i = 0; i < n; ++i)
        for (std::uint32_t u = 0; u < k; ++u) {
            for (std::size_t s = 0; s < p.sizes.size(); ++s)
                rate[i][u] = std::min(rate[i][u], p.seconds[i][u][s] * static_cast<double>(p.inputs) /
                                                      static_cast<double>(p.sizes[s]));
            total[u] += rate[i][u];
        }
    auto value = [&](const std::vector<double>& w) {
        double sum = 0;
        for (std::uint32_t i = 0; i < n; ++i) {
            double least = kUnsupported;
            for (std::uint32_t u = 0; u < k; ++u)
                if (std::isfinite(rate[i][u])) // a device that cannot run the op takes none of its inputs
                    least = std::min(least, w[u] * rate[i][u]);
            sum += std::isfinite(least) ? least : 0.0;
        }
        return sum;
    };
    std::vector<double> w(k, 0.0);
    double norm = 0;
    for (std::uint32_t u = 0; u < k; ++u)
        norm += std::isfinite(total[u]) && total[u] > 0 ? 1.0 / total[u] : 0.0;
    if (norm <= 0)
        return 0;
    for (std::uint32_t u = 0; u < k; ++u)
        w[u] = std::isfinite(total[u]) && total[u] > 0 ? 1.0 / total[u] / norm : 0.0;
    double best = value(w);
    for (double step = 0.05; step > 1e-4;) {
        bool moved = false;
        for (std::uint32_t a = 0; a < k; ++a)
            for (std::uint32_t b = 0; b < k; ++b) {
                if (a == b || w[a] < step)
                    continue;
                w[a] -= step;
                w[b] += step;
                const double v = value(w);
                if (v > best * (1 + 1e-12)) {
                    best = v;
                    moved = true;
                } else {
                    w[a] += step;
                    w[b] -= step;
                }
            }
        if (!moved)
            step /= 2;
    }
    return best;
}

} // namespace

double batchedLowerBound(const BatchedProblem& p)
{
    const std::size_t n = p.base.taskCount(), k = p.base.deviceCount();
    std::vector<double> cheapestBatch(n, kUnsupported), leastWork(n, kUnsupported);
    for (std::uint32_t i = 0; i < n; ++i) {
        for (std::uint32_t u = 0; u < k; ++u)
            for (std::size_t s = 0; s < p.sizes.size(); ++s)
                cheapestBatch[i] = std::min(cheapestBatch[i], p.seconds[i][u][s]);
        for (const auto& split : p.splits) {
            double work = 0;
            for (std::uint32_t u = 0; u < k; ++u)
                if (split[u])
                    work += p.costOf(i, u, split[u]);
            leastWork[i] = std::min(leastWork[i], work);
        }
    }
    std::vector<double> end(n, 0.0);
    double path = 0, work = 0;
    const double speeds = speedWeightedWork(p);
    const auto order = *topologicalOrder(p.base.dag); // a copy: the optional is a temporary
    for (std::uint32_t t : order) {
        double start = 0;
        for (std::uint32_t q : p.base.dag.predecessors[t])
            start = std::max(start, end[q]);
        end[t] = start + cheapestBatch[t];
        path = std::max(path, end[t]);
        work += leastWork[t];
    }
    return std::max({path, work / static_cast<double>(k), speeds});
}

} // namespace opsched::map
