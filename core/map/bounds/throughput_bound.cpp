#include "map/bounds/throughput_bound.h"

#include "map/bounds/simple_bound.h"
#include "map/problem/modules.h"
#include "map/solvers/simplex_climb.h"

#include "graph/reachability.h"

#include <algorithm>
#include <cmath>

namespace opsched::map {
namespace {

// What LB(S, x) needs: the per-input latency problem (each op at its cheapest batch per device)
// for the chains, and each op's cheapest cost per input per device for the work.
class PartBounds {
public:
    explicit PartBounds(const ThroughputProblem& p)
        : p_(p)
        , perInput_(p.base)
    {
        const std::size_t n = p.base.taskCount(), k = p.base.deviceCount();
        perInput_.release.clear(); // the batched evaluator has none
        rate_.assign(n, std::vector<double>(k, kUnsupported));
        for (std::uint32_t i = 0; i < n; ++i)
            for (std::uint32_t u = 0; u < k; ++u) {
                double cheapest = kUnsupported;
                for (std::size_t s = 0; s < p.sizes.size(); ++s) {
                    cheapest = std::min(cheapest, p.seconds[i][u][s]);
                    rate_[i][u] = std::min(rate_[i][u], p.seconds[i][u][s] / static_cast<double>(p.sizes[s]));
                }
                perInput_.tasks[i].seconds[u] = cheapest;
            }
    }

    // LB(S, x) for x = 0..L (0 inputs take no time).
    std::vector<double> curve(const std::vector<std::uint32_t>& part) const
    {
        std::vector<double> out(static_cast<std::size_t>(p_.inputs) + 1, 0.0);
        if (part.empty())
            return out;
        const double chain = simpleLowerBound(perInput_, part), work = workPerInput(part);
        for (std::size_t x = 1; x < out.size(); ++x)
            out[x] = std::max(chain, static_cast<double>(x) * work);
        return out;
    }

private:
    // max over weights w (summing to 1) of sum_i min_u w_u r(i,u): any w is a bound; this tries
    // uniform weights and weights by speed, then a few exchange steps between devices.
    double workPerInput(const std::vector<std::uint32_t>& part) const
    {
        const std::size_t k = p_.base.deviceCount();
        auto value = [&](const std::vector<double>& w) {
            double sum = 0;
            for (std::uint32_t i : part) {
                double least = kUnsupported;
                for (std::size_t u = 0; u < k; ++u)
                    if (w[u] > 0 || std::isfinite(rate_[i][u]))
                        least = std::min(least, w[u] * rate_[i][u]);
                sum += std::isfinite(least) ? least : 0.0;
            }
            return sum;
        };
        std::vector<double> w(k, 0.0);
        double norm = 0;
        for (std::size_t u = 0; u < k; ++u) {
            double total = 0;
            for (std::uint32_t i : part)
                total += std::isfinite(rate_[i][u]) ? rate_[i][u] : 0.0;
            w[u] = total > 0 ? 1.0 / total : 0.0;
            norm += w[u];
        }
        if (norm <= 0)
            return 0.0;
        for (double& x : w)
            x /= norm;
        double best = std::max(value(w), value(std::vector<double>(k, 1.0 / static_cast<double>(k))));
        best = climbSimplex(w, value, best, { 0.1, 0.03, 0.01, 0.003 });
        return best;
    }

    const ThroughputProblem& p_;
    MappingProblem perInput_;
    std::vector<std::vector<double>> rate_;
};

// Ops of `set` that every op of `from` reaches (or, with `up`, that reach every op of `from`).
std::vector<std::uint32_t> commonRelatives(
    const Reachability& reach, const std::vector<std::uint32_t>& from, const std::vector<std::uint32_t>& set, bool up)
{
    std::vector<std::uint32_t> out;
    for (std::uint32_t v : set) {
        bool all = !from.empty();
        for (std::uint32_t f : from)
            all = all && (up ? reach.reaches(v, f) || v == f : reach.reaches(f, v) || v == f);
        if (all)
            out.push_back(v);
    }
    return out;
}

double recursiveBound(const ThroughputProblem& p, const PartBounds& bounds, const Reachability& reach,
    const std::vector<std::vector<std::uint32_t>>& modules)
{
    const std::size_t q = modules.size(), L = static_cast<std::size_t>(p.inputs);
    if (q == 0)
        return 0.0;
    std::vector<char> inModule(p.base.taskCount(), 0);
    std::vector<std::uint32_t> rest = modules.back(); // G_{s+1}
    std::vector<double> next = bounds.curve(modules.back()); // F_{s+1}
    for (std::size_t s = q - 1; s-- > 0;) {
        const auto& m = modules[s];
        std::fill(inModule.begin(), inModule.end(), 0);
        for (std::uint32_t t : m)
            inModule[t] = 1;
        std::vector<char> inRest(p.base.taskCount(), 0);
        for (std::uint32_t t : rest)
            inRest[t] = 1;
        // The ops of M_s that end a chain there, and the ops of G_{s+1} that start one.
        std::vector<std::uint32_t> last, first;
        for (std::uint32_t t : m)
            if (std::none_of(p.base.dag.successors[t].begin(), p.base.dag.successors[t].end(),
                    [&](std::uint32_t c) { return inModule[c] != 0; }))
                last.push_back(t);
        for (std::uint32_t t : rest)
            if (std::none_of(p.base.dag.predecessors[t].begin(), p.base.dag.predecessors[t].end(),
                    [&](std::uint32_t c) { return inRest[c] != 0; }))
                first.push_back(t);
        const auto after = commonRelatives(reach, last, rest, false);
        const auto before = commonRelatives(reach, first, m, true);
        const std::vector<double> module = bounds.curve(m), pre = bounds.curve(before);
        const std::vector<double> dep = after.size() == rest.size() ? next : bounds.curve(after);
        std::vector<double> here(L + 1, 0.0);
        for (std::size_t x = 1; x <= L; ++x) {
            double best = std::max(module[x], next[x]);
            for (std::size_t b = 1; b <= x; ++b)
                best = std::max({ best, module[b] + dep[x - b + 1], pre[x - b + 1] + next[b] });
            here[x] = best;
        }
        next = std::move(here);
        rest.insert(rest.end(), m.begin(), m.end());
    }
    return next[L];
}

} // namespace

double throughputRecursiveBound(const ThroughputProblem& p, const std::vector<std::vector<std::uint32_t>>& modules)
{
    const PartBounds bounds(p);
    const Reachability reach(p.base.dag);
    return recursiveBound(p, bounds, reach, modules);
}

double throughputRecursiveBound(const ThroughputProblem& p)
{
    const PartBounds bounds(p);
    const Reachability reach(p.base.dag);
    double best = 0;
    // The segments between separators (each with its exit), where single channels make C_s all
    // of what follows.
    std::vector<std::vector<std::uint32_t>> segments;
    for (const Segment& s : segmentsBetweenSeparators(p.base.dag)) {
        std::vector<std::uint32_t> m = s.inner;
        if (s.exit >= 0)
            m.push_back(static_cast<std::uint32_t>(s.exit));
        if (!m.empty())
            segments.push_back(std::move(m));
    }
    best = std::max(best, recursiveBound(p, bounds, reach, segments));
    const auto topo = *topologicalOrder(p.base.dag);
    for (std::size_t size : { 1, 4, 8, 16 })
        if (topo.size() > size)
            best = std::max(best, recursiveBound(p, bounds, reach, chunksAlongOrder(p.base.dag, topo, size)));
    return best;
}

} // namespace opsched::map
