#include "map/bounds/module_bound.h"

#include "map/bounds/simple_bound.h"
#include "map/problem/module_chain.h"
#include "map/problem/modules.h"
#include "map/solvers/exact_search.h"

#include "graph/reachability.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace opsched::map {
namespace {

class ChainBound {
public:
    ChainBound(const MappingProblem& p, const ModuleBoundOptions& o)
        : p_(p)
        , o_(o)
        , chain_(moduleChain(p.dag, o.maxModuleTasks))
        , reach_(p.dag)
        , probeNodesLeft_(o.probeNodes)
    {
        blockOf_.assign(p.taskCount(), 0);
        for (std::size_t b = 0; b < chain_.blocks.size(); ++b)
            for (std::uint32_t t : chain_.blocks[b])
                blockOf_[t] = b;
    }

    double run();

private:
    // The optimum of `tasks` scheduled on their own (proven by the exact search), else their
    // simpleLowerBound.
    double opt(std::vector<std::uint32_t> tasks);
    // A solve of `sub` as a bound: its optimum, or `budget` when proven unable to beat it.
    double solvedBound(const MappingProblem& sub, double budget) const;
    double stretchBound(std::size_t j0, std::size_t j1);
    double f(std::uint32_t input, std::size_t j1);
    std::vector<std::uint32_t> later(const std::vector<std::uint32_t>& from, std::size_t block, std::size_t j1) const;
    bool allReachLater(const std::vector<std::uint32_t>& tasks, std::size_t block, std::size_t j1) const;
    double stretchPair(std::size_t j0, std::size_t j1, std::int64_t entry, std::uint32_t d, std::int64_t exit,
        std::uint32_t e, double budget, double chainBound);

    const MappingProblem& p_;
    ModuleBoundOptions o_;
    ModuleChain chain_;
    Reachability reach_;
    std::vector<std::size_t> blockOf_;
    std::map<std::vector<std::uint32_t>, double> optCache_;
    std::map<std::uint32_t, double> fCache_;
    std::vector<double> lb_; // LB(G_s) per block of the stretch being bounded
    std::uint64_t probeNodesLeft_ = 0; // of ModuleBoundOptions::probeNodes
};

double ChainBound::solvedBound(const MappingProblem& sub, double budget) const
{
    MapperOptions o;
    o.maxNodes = o_.nodesPerSolve; // not the clock: the same bound however loaded the machine is
    o.timeLimitSeconds = 1e9;
    o.cutoffSeconds = budget;
    try {
        const MapResult r = mapExactSearch(sub, o);
        if (r.status != SolveStatus::Optimal)
            return std::max(simpleLowerBound(sub), exactSearchRootBound(sub));
        return r.cutoffProven ? budget : std::max(r.times.makespan, simpleLowerBound(sub));
    } catch (const Error&) {
        // The list heuristics found no feasible start (memory): that proves nothing infeasible.
        return simpleLowerBound(sub);
    }
}

double ChainBound::opt(std::vector<std::uint32_t> tasks)
{
    if (tasks.empty())
        return 0;
    std::sort(tasks.begin(), tasks.end());
    const auto cached = optCache_.find(tasks);
    if (cached != optCache_.end())
        return cached->second;
    double value = simpleLowerBound(p_, tasks);
    if (tasks.size() <= kExactSearchMaxTasks)
        value = std::max(value, solvedBound(subproblem(p_, tasks, {}), kUnsupported));
    optCache_[tasks] = value;
    return value;
}

// Tasks of blocks (block, j1] with a predecessor among `from`.
std::vector<std::uint32_t> ChainBound::later(
    const std::vector<std::uint32_t>& from, std::size_t block, std::size_t j1) const
{
    std::vector<std::uint32_t> out;
    for (std::uint32_t t : from)
        for (std::uint32_t s : p_.dag.successors[t])
            if (blockOf_[s] > block && blockOf_[s] <= j1)
                out.push_back(s);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

bool ChainBound::allReachLater(const std::vector<std::uint32_t>& tasks, std::size_t block, std::size_t j1) const
{
    for (std::uint32_t t : tasks) {
        bool reaches = false;
        reach_.descendants(t).forEach(
            [&](std::size_t d) { reaches = reaches || (blockOf_[d] > block && blockOf_[d] <= j1); });
        if (!reaches)
            return false;
    }
    return true;
}

// f(I): a bound on dep(I) (I and its descendants up to block j1) scheduled on its own.
double ChainBound::f(std::uint32_t input, std::size_t j1)
{
    const auto cached = fCache_.find(input);
    if (cached != fCache_.end())
        return cached->second;
    const std::size_t b = blockOf_[input];
    std::vector<std::uint32_t> dep { input }, inBlock { input };
    reach_.descendants(input).forEach([&](std::size_t d) {
        if (blockOf_[d] <= j1)
            dep.push_back(static_cast<std::uint32_t>(d));
        if (blockOf_[d] == b)
            inBlock.push_back(static_cast<std::uint32_t>(d));
    });
    double value = simpleLowerBound(p_, dep);
    const auto next = later(inBlock, b, j1);
    // dep(I) past I's module is all of G_{b+1} when I reaches every input there.
    std::size_t after = 0;
    for (std::size_t j = b + 1; j <= j1; ++j)
        after += chain_.blocks[j].size();
    const bool coversRest = dep.size() - inBlock.size() == after && b + 1 <= j1;
    if (next.empty()) {
        value = std::max(value, opt(inBlock));
    } else {
        double least = kUnsupported, most = 0;
        for (std::uint32_t i : next) {
            least = std::min(least, f(i, j1));
            most = std::max(most, f(i, j1));
        }
        if (allReachLater(inBlock, b, j1))
            value = std::max(value, opt(inBlock) + least);
        double firstOut = kUnsupported;
        for (std::uint32_t o : inBlock) {
            if (later({ o }, b, j1).empty())
                continue;
            std::vector<std::uint32_t> pre { o };
            reach_.ancestors(o).forEach([&](std::size_t a) {
                if (std::find(inBlock.begin(), inBlock.end(), static_cast<std::uint32_t>(a)) != inBlock.end())
                    pre.push_back(static_cast<std::uint32_t>(a));
            });
            firstOut = std::min(firstOut, opt(pre));
        }
        if (std::isfinite(firstOut))
            value = std::max(value, (coversRest ? std::max(most, lb_[b + 1]) : most) + firstOut);
    }
    fCache_[input] = value;
    return value;
}

// LB(G_{j0}) for blocks j0..j1 on their own, by the paper's two inequalities.
double ChainBound::stretchBound(std::size_t j0, std::size_t j1)
{
    fCache_.clear();
    lb_.assign(chain_.blocks.size() + 1, 0.0);
    std::vector<std::uint32_t> tail; // G_{s+1}
    double lbNext = 0;
    for (std::size_t s = j1 + 1; s-- > j0;) {
        const auto& mod = chain_.blocks[s];
        std::vector<std::uint32_t> whole = mod;
        whole.insert(whole.end(), tail.begin(), tail.end());
        double value = simpleLowerBound(p_, whole);
        if (s == j1) {
            value = std::max(value, opt(mod));
        } else {
            const auto inputs = later(mod, s, j1);
            double least = kUnsupported, most = 0;
            for (std::uint32_t i : inputs) {
                least = std::min(least, f(i, j1));
                most = std::max(most, f(i, j1));
            }
            if (!inputs.empty() && allReachLater(mod, s, j1))
                value = std::max(value, opt(mod) + least);
            bool allReached = true;
            for (std::uint32_t t : tail) {
                bool reached = false;
                reach_.ancestors(t).forEach([&](std::size_t a) { reached = reached || blockOf_[a] == s; });
                allReached = allReached && reached;
            }
            double firstOut = kUnsupported;
            for (std::uint32_t o : mod) {
                if (later({ o }, s, j1).empty())
                    continue;
                std::vector<std::uint32_t> pre { o };
                reach_.ancestors(o).forEach([&](std::size_t a) {
                    if (blockOf_[a] == s)
                        pre.push_back(static_cast<std::uint32_t>(a));
                });
                firstOut = std::min(firstOut, opt(pre));
            }
            if (allReached && std::isfinite(firstOut))
                value = std::max(value, std::max(lbNext, most) + firstOut);
        }
        lbNext = value;
        lb_[s] = value;
        tail = std::move(whole);
    }
    return lbNext;
}

// The stretch's bound with its entry separator on d (results arriving from there) and its exit
// separator on e.
double ChainBound::stretchPair(std::size_t j0, std::size_t j1, std::int64_t entry, std::uint32_t d, std::int64_t exit,
    std::uint32_t e, double budget, double chainBound)
{
    std::vector<std::uint32_t> tasks;
    for (std::size_t j = j0; j <= j1; ++j)
        tasks.insert(tasks.end(), chain_.blocks[j].begin(), chain_.blocks[j].end());
    MappingProblem sub = subproblem(p_, tasks, {});
    const std::size_t k = p_.deviceCount();
    sub.release.assign(tasks.size(), std::vector<double>(k, 0.0));
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        if (entry >= 0
            && std::binary_search(p_.dag.predecessors[tasks[i]].begin(), p_.dag.predecessors[tasks[i]].end(),
                static_cast<std::uint32_t>(entry)))
            for (std::uint32_t v = 0; v < k; ++v) {
                const double arrival = p_.commSeconds(static_cast<std::uint32_t>(entry), d, v);
                if (std::isfinite(arrival))
                    sub.release[i][v] = arrival;
                else
                    sub.tasks[i].seconds[v] = kUnsupported;
            }
        if (static_cast<std::int64_t>(tasks[i]) == exit)
            for (std::uint32_t v = 0; v < k; ++v)
                if (v != e)
                    sub.tasks[i].seconds[v] = kUnsupported;
    }
    for (const auto& t : sub.tasks)
        if (std::none_of(t.seconds.begin(), t.seconds.end(), [](double s) { return std::isfinite(s); }))
            return kUnsupported;
    double value = std::max(simpleLowerBound(sub), chainBound);
    if (j0 == j1 && tasks.size() <= kExactSearchMaxTasks && value < budget)
        value = std::max(value, solvedBound(sub, budget));
    else if (tasks.size() <= kExactSearchLimit && value < budget && probeNodesLeft_ > 0) {
        // Not solved here: the bound the search proves with targets as cutoffs (a root bound at least).
        try {
            value = std::max(value, exactSearchProvenBound(sub, budget, o_.nodesPerProbe, o_.probes, &probeNodesLeft_));
        } catch (const Error&) { // the list heuristics found no feasible start: the root bound
            value = std::max(value, exactSearchRootBound(sub));
        }
    } else if (tasks.size() <= kExactSearchLimit)
        value = std::max(value, exactSearchRootBound(sub)); // not solved here: the search's root bound
    return value;
}

double ChainBound::run()
{
    const std::size_t q = chain_.blocks.size(), k = p_.deviceCount();
    std::vector<double> dp(1, 0.0); // per device of the separator reached so far (one state at the start)
    std::int64_t entry = -1;
    for (std::size_t j0 = 0; j0 < q;) {
        std::size_t j1 = j0;
        while (!chain_.separatorJoin[j1 + 1])
            ++j1;
        const bool last = j1 + 1 == q;
        const std::int64_t exit = last ? -1 : static_cast<std::int64_t>(chain_.boundary[j1 + 1].front());
        const double chainBound = j0 == j1 ? 0.0 : stretchBound(j0, j1);
        std::vector<double> next(last ? 1 : k, kUnsupported);
        std::vector<std::uint32_t> byCost(dp.size());
        for (std::uint32_t d = 0; d < dp.size(); ++d)
            byCost[d] = d;
        std::sort(byCost.begin(), byCost.end(), [&](std::uint32_t a, std::uint32_t b) { return dp[a] < dp[b]; });
        for (std::uint32_t e = 0; e < next.size(); ++e)
            for (std::uint32_t d : byCost) {
                if (!std::isfinite(dp[d]) || dp[d] >= next[e])
                    continue;
                const double value = stretchPair(j0, j1, entry, d, exit, e, next[e] - dp[d], chainBound);
                next[e] = std::min(next[e], dp[d] + value);
            }
        dp = std::move(next);
        entry = exit;
        j0 = j1 + 1;
    }
    const double best = *std::min_element(dp.begin(), dp.end());
    return std::isfinite(best) ? best : 0.0;
}

} // namespace

double moduleChainLowerBound(const MappingProblem& problem, const ModuleBoundOptions& options)
{
    // The joins measure each stretch from the moment the one before ends; absolute release times
    // would be counted from the wrong moment.
    if (!problem.release.empty() || problem.taskCount() == 0)
        return 0;
    return ChainBound(problem, options).run();
}

bool moduleChainBoundProbes(const MappingProblem& problem, const ModuleBoundOptions& options)
{
    if (!problem.release.empty() || problem.taskCount() == 0 || options.probeNodes == 0)
        return false;
    const ModuleChain chain = moduleChain(problem.dag, options.maxModuleTasks);
    for (std::size_t j0 = 0; j0 < chain.blocks.size();) {
        std::size_t j1 = j0, tasks = chain.blocks[j0].size();
        while (!chain.separatorJoin[j1 + 1])
            tasks += chain.blocks[++j1].size();
        if ((j0 != j1 || tasks > kExactSearchMaxTasks) && tasks <= kExactSearchLimit)
            return true;
        j0 = j1 + 1;
    }
    return false;
}

} // namespace opsched::map
