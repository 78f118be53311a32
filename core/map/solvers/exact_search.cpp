#include "map/solvers/exact_search.h"

#include "map/solvers/exact_search_state.h"
#include "map/solvers/heuristic_mappers.h"
#include "map/solvers/order_search.h"

#include "util/error.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace opsched::map {
namespace exact_detail {

void Search::dfs(std::size_t depth)
{
    if (stopped_)
        return;
    if (o_.maxNodes && nodes_ >= o_.maxNodes) { // a limit whose answer does not depend on load
        stopped_ = true;
        return;
    }
    if ((++nodes_ & 4095U) == 0 && std::chrono::duration<double>(Clock::now() - t0_).count() > o_.timeLimitSeconds) {
        stopped_ = true;
        return;
    }
    if (depth == n_) {
        if (makespan_ < best_ - kEps) {
            best_ = makespan_;
            found_ = true;
            bestDevice_ = device_;
            bestStart_ = start_;
            if (polishLeaves_)
                polishIncumbent();
        }
        return;
    }
    if (const double bound = nodeBound(); bound >= best_ - kEps || dominatedElseStore(bound))
        return;
    struct Move {
        std::uint32_t task, device;
        double start, end;
    };
    std::vector<Move> moves; // built before recursing: the children overwrite allowedOn_
    for (std::uint32_t t = 0; t < n_; ++t) {
        if ((done_ >> t & 1U) || (predMask_[t] & ~done_))
            continue;
        for (std::uint32_t u = 0; u < k_; ++u) {
            const double d = cost(t, u);
            if (!allowedOn_[t * k_ + u] || !std::isfinite(d)
                || usedMemory_[u] + p_.tasks[t].memoryBytes() > p_.devices[u].memoryBytes)
                continue;
            double s = std::max(devFree_[u], p_.releaseOf(t, u));
            for (std::uint32_t q : p_.dag.predecessors[t])
                s = std::max(s, finish_[q] + comm(q, device_[q], u));
            if (!std::isfinite(s) || s < lastStart_ - kEps)
                continue;
            if (s <= lastStart_ + kEps && static_cast<std::int64_t>(t) < lastTask_)
                continue; // built once: equal starts in index order
            if (std::max(makespan_, s + d + tailOn_[t * k_ + u]) >= best_ - kEps)
                continue;
            moves.push_back({ t, u, s, s + d });
        }
    }
    std::sort(moves.begin(), moves.end(), [](const Move& a, const Move& b) { return a.end < b.end; });
    for (const Move& m : moves) {
        const double savedFree = devFree_[m.device], savedLast = lastStart_, savedMakespan = makespan_;
        const std::int64_t savedLastTask = lastTask_;
        done_ |= Mask { 1 } << m.task;
        for (std::size_t w = 0; w < lambda_.size(); ++w)
            remainingWeighted_[w] -= weighted_[w][m.task];
        for (Window& win : windows_) {
            if (std::isfinite(win.perTask[m.task]))
                win.remaining -= win.perTask[m.task];
            else
                --win.impossible;
        }
        device_[m.task] = m.device;
        start_[m.task] = m.start;
        finish_[m.task] = m.end;
        devFree_[m.device] = m.end;
        usedMemory_[m.device] += p_.tasks[m.task].memoryBytes();
        lastStart_ = m.start;
        startSum_ += m.start;
        lastTask_ = m.task;
        makespan_ = std::max(makespan_, m.end);
        dfs(depth + 1);
        done_ &= ~(Mask { 1 } << m.task);
        for (std::size_t w = 0; w < lambda_.size(); ++w)
            remainingWeighted_[w] += weighted_[w][m.task];
        for (Window& win : windows_) {
            if (std::isfinite(win.perTask[m.task]))
                win.remaining += win.perTask[m.task];
            else
                ++win.impossible;
        }
        devFree_[m.device] = savedFree;
        usedMemory_[m.device] -= p_.tasks[m.task].memoryBytes();
        lastStart_ = savedLast;
        startSum_ -= m.start;
        lastTask_ = savedLastTask;
        makespan_ = savedMakespan;
        if (stopped_)
            return;
    }
}

bool Search::dominatedElseStore(double bound)
{
    // A partial schedule A on the same tasks dominates this one, B, when A's makespan, each
    // device's free moment and memory, and each unscheduled task's inputs' arrival on each device
    // are no later than when B's completions could need them, and the sum of A's starts is lower.
    // Why B may then be dropped: among the optimal schedules take O with the least sum of starts,
    // and suppose B is a prefix of O (in start order). Running O's other tasks after A, on the same
    // devices in the same order, each as early as it can, starts each no later than in O (all it
    // waits for is no later), so that schedule is also optimal and its sum of starts is lower than
    // O's: a contradiction. So no such O extends B, whether or not A was itself extended.
    // "When B's completions could need them": O's makespan is at least B's node bound; a task
    // starts on u no earlier than its earliest start there (startOn_, which already includes B's
    // arrivals, its last start and u's free moment) and never on a device ruled out; u's first
    // task after B starts no earlier than the earliest of those.
    stateValues_.clear();
    queryValues_.clear();
    stateValues_.push_back(makespan_);
    queryValues_.push_back(std::max(makespan_, bound));
    for (std::uint32_t u = 0; u < k_; ++u) {
        stateValues_.push_back(devFree_[u]);
        queryValues_.push_back(head_[0][u]); // nodeBound's: the earliest any task left starts on u
        if (std::isfinite(p_.devices[u].memoryBytes)) {
            stateValues_.push_back(usedMemory_[u]);
            queryValues_.push_back(usedMemory_[u]);
        }
    }
    for (std::uint32_t t = 0; t < n_; ++t) {
        if ((done_ >> t & 1U) || !(predMask_[t] & done_))
            continue;
        for (std::uint32_t u = 0; u < k_; ++u) {
            double arrival = 0;
            for (std::uint32_t q : p_.dag.predecessors[t])
                if (done_ >> q & 1U)
                    arrival = std::max(arrival, finish_[q] + comm(q, device_[q], u));
            stateValues_.push_back(arrival);
            queryValues_.push_back(allowedOn_[t * k_ + u] ? startOn_[t * k_ + u] : kUnsupported);
        }
    }
    if (memo_.dominated(done_, queryValues_, startSum_)) {
        ++memoPrunes_;
        return true;
    }
    memo_.store(done_, stateValues_, startSum_);
    return false;
}

MapResult Search::bestMapping() const
{
    // Each device's tasks in order of start (ties by index), as the search built them.
    std::vector<std::uint32_t> byStart(topo_);
    std::stable_sort(byStart.begin(), byStart.end(), [&](std::uint32_t a, std::uint32_t b) {
        return bestStart_[a] != bestStart_[b] ? bestStart_[a] < bestStart_[b] : a < b;
    });
    MapResult r;
    r.mapping = mappingWithOrder(p_, bestDevice_, byStart);
    r.times = evaluate(p_, r.mapping);
    return r;
}

void Search::polishIncumbent()
{
    // A new best schedule: a short local search over devices and order from it often finds a
    // better one that the depth-first order would reach much later (a tighter bound prunes more).
    const MapResult r = bestMapping();
    if (!r.times.feasible)
        return;
    const MapResult better
        = improveOrderAndDevices(p_, r, kIncumbentOrderEvaluations, o_.seed + ++polishes_, secondsFor(0.1));
    if (better.times.makespan < best_ - kEps) {
        best_ = better.times.makespan;
        bestDevice_ = better.mapping.device;
        bestStart_ = better.times.start;
    }
}

void Search::prepare()
{
    t0_ = Clock::now();
    p_.validate();
    if (n_ > kExactSearchLimit)
        throw Error("the exact search takes at most " + std::to_string(kExactSearchLimit) + " tasks, not "
            + std::to_string(n_));
    topo_ = *topologicalOrder(p_.dag);
    cost_.resize(n_ * k_);
    comm_.resize(n_ * k_ * k_);
    for (std::uint32_t t = 0; t < n_; ++t)
        for (std::uint32_t u = 0; u < k_; ++u) {
            cost_[t * k_ + u] = p_.seconds(t, u);
            for (std::uint32_t v = 0; v < k_; ++v)
                comm_[(t * k_ + u) * k_ + v] = p_.commSeconds(t, u, v);
        }
    fastest_.assign(n_, kUnsupported);
    tail_.assign(n_, 0.0);
    predMask_.assign(n_, 0);
    for (std::uint32_t t = 0; t < n_; ++t) {
        for (std::uint32_t u = 0; u < k_; ++u)
            fastest_[t] = std::min(fastest_[t], cost(t, u));
        for (std::uint32_t q : p_.dag.predecessors[t])
            predMask_[t] |= Mask { 1 } << q;
    }
    for (auto it = topo_.rbegin(); it != topo_.rend(); ++it)
        for (std::uint32_t s : p_.dag.successors[*it])
            tail_[*it] = std::max(tail_[*it], fastest_[s] + tail_[s]);
    prepareBounds();
    device_.assign(n_, 0);
    start_.assign(n_, 0.0);
    finish_.assign(n_, 0.0);
    devFree_.assign(k_, 0.0);
    usedMemory_.assign(k_, 0.0);
    prepareWindows();
}

MapResult Search::run()
{
    prepare();
    rootBound_ = rootBound();

    MapResult heuristic = bestListHeuristic(p_);
    // A cutoff at or below the root bound is proven at the root: no start mapping to look for.
    const bool provenAtRoot = rootBound_ >= o_.cutoffSeconds - kEps;
    if (n_ > kExactSearchMaxTasks && k_ >= 2 && !probe_ && !provenAtRoot) {
        // Beyond a proof in milliseconds, start from SA's mapping when it is better: the depth-first
        // search improves slowly on the list heuristics' (its first dives follow them).
        MapperOptions sa;
        sa.iterations = kSeedAnnealingIterations;
        if (!o_.maxNodes) // within the limit (a node limit asks for a load-independent answer)
            sa.timeLimitSeconds = std::max(0.01, 0.1 * o_.timeLimitSeconds);
        sa.seed = o_.seed;
        try {
            if (MapResult r = mapSimulatedAnnealing(p_, sa); r.times.makespan < heuristic.times.makespan)
                heuristic = std::move(r);
        } catch (const Error&) {
        }
        heuristic = improveOrderAndDevices(p_, heuristic, kSeedOrderEvaluations, o_.seed, secondsFor(0.2));
        polishLeaves_ = true;
    }
    best_ = std::min(heuristic.times.makespan, o_.cutoffSeconds);
    const bool cutoff = o_.cutoffSeconds < heuristic.times.makespan;
    dfs(0);

    MapResult r;
    if (found_)
        r = bestMapping();
    if (!found_ || !r.times.feasible || r.times.makespan > heuristic.times.makespan) {
        r.mapping = heuristic.mapping;
        r.times = heuristic.times;
    }
    r.mapper = "search";
    r.status = stopped_ ? SolveStatus::Timeout : SolveStatus::Optimal;
    r.cutoffProven = !stopped_ && cutoff && !found_;
    if (!stopped_)
        r.gap = 0;
    else if (r.times.feasible && r.times.makespan > 0)
        r.gap = std::max(0.0, (r.times.makespan - std::min(rootBound_, r.times.makespan)) / r.times.makespan);
    r.note = std::to_string(nodes_) + " nodes, " + std::to_string(memoPrunes_) + " dominated";
    r.solveSeconds = std::chrono::duration<double>(Clock::now() - t0_).count();
    return r;
}

} // namespace exact_detail

using exact_detail::kProbeResolution;
using exact_detail::Search;

double exactSearchRootBound(const MappingProblem& problem)
{
    Search search(problem, {});
    search.prepare();
    return search.rootBound();
}

double exactSearchProvenBound(
    const MappingProblem& problem, double upTo, std::uint64_t nodesPerProbe, int probes, std::uint64_t* nodeBudget)
{
    // Bisection on a target: a search with the target as its cutoff that ends without a schedule
    // below it proves the target a bound. Low targets prune almost everything at once (every
    // device a task cannot finish on in time is out), so the proven bound climbs far above the
    // root's in a few thousand nodes; near the optimum a probe runs out of nodes.
    Search root(problem, {});
    root.prepare();
    double lo = root.rootBound();
    double hi = upTo;
    if (!std::isfinite(hi)) {
        const MapResult list = bestListHeuristic(problem);
        if (!list.times.feasible)
            return lo; // nothing to bisect towards
        hi = list.times.makespan;
    }
    for (int i = 0; i < probes && hi - lo > kProbeResolution * hi; ++i) {
        const std::uint64_t nodes = nodeBudget ? std::min(nodesPerProbe, *nodeBudget) : nodesPerProbe;
        if (nodes == 0)
            break;
        const double target = 0.5 * (lo + hi);
        MapperOptions o;
        o.maxNodes = nodes;
        o.timeLimitSeconds = 1e9; // the node limit alone: the same bound however loaded the machine
        o.cutoffSeconds = target;
        Search probe(problem, o, true);
        const MapResult r = probe.run();
        if (nodeBudget)
            *nodeBudget -= std::min(*nodeBudget, probe.nodes());
        const bool below = r.times.feasible && r.times.makespan < target;
        if (r.status == SolveStatus::Optimal && !r.cutoffProven)
            return r.times.makespan; // finished with a schedule below the target: the optimum
        if (r.cutoffProven)
            lo = target;
        else
            hi = below ? r.times.makespan : target;
    }
    return lo;
}

MapResult mapExactSearch(const MappingProblem& problem, const MapperOptions& options)
{
    return Search(problem, options).run();
}

} // namespace opsched::map