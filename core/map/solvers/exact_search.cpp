#include "map/solvers/exact_search.h"

#include "map/solvers/heuristic_mappers.h"

#include "util/error.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace opsched::map {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kEps = 1e-12; // seconds

class Search {
public:
    Search(const MappingProblem& p, const MapperOptions& o)
        : p_(p)
        , o_(o)
        , n_(p.taskCount())
        , k_(p.deviceCount())
    {
    }

    MapResult run();

private:
    void dfs(std::size_t depth);
    double nodeBound() const;

    const MappingProblem& p_;
    MapperOptions o_;
    std::size_t n_, k_;
    Clock::time_point t0_;
    std::uint64_t nodes_ = 0;
    bool stopped_ = false;

    std::vector<double> fastest_, tail_;
    std::vector<std::uint32_t> predMask_;
    std::vector<std::uint32_t> topo_;
    // The partial schedule.
    std::uint32_t done_ = 0;
    std::vector<std::uint32_t> device_;
    std::vector<double> start_, finish_, devFree_, usedMemory_;
    double lastStart_ = 0, makespan_ = 0;
    std::int64_t lastTask_ = -1;
    // The best complete one.
    double best_ = kUnsupported;
    bool found_ = false;
    std::vector<std::uint32_t> bestDevice_;
    std::vector<double> bestStart_;
};

double Search::nodeBound() const
{
    // Unscheduled tasks start no earlier than the last start (schedules are built in start
    // order), their scheduled inputs' finish, and their unscheduled inputs' earliest end.
    double bound = makespan_, work = 0;
    std::vector<double> est(n_, 0.0);
    for (std::uint32_t t : topo_) {
        if (done_ >> t & 1U)
            continue;
        double e = lastStart_;
        double release = kUnsupported;
        for (std::uint32_t u = 0; u < k_; ++u)
            if (std::isfinite(p_.seconds(t, u)))
                release = std::min(release, p_.releaseOf(t, u));
        e = std::max(e, release);
        for (std::uint32_t q : p_.dag.predecessors[t])
            e = std::max(e, (done_ >> q & 1U) ? finish_[q] : est[q] + fastest_[q]);
        est[t] = e;
        bound = std::max(bound, e + fastest_[t] + tail_[t]);
        work += fastest_[t];
    }
    double available = 0;
    for (std::uint32_t u = 0; u < k_; ++u)
        available += std::max(devFree_[u], lastStart_);
    return std::max(bound, (available + work) / static_cast<double>(k_));
}

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
        }
        return;
    }
    if (nodeBound() >= best_ - kEps)
        return;
    struct Move {
        std::uint32_t task, device;
        double start, end;
    };
    std::vector<Move> moves;
    for (std::uint32_t t = 0; t < n_; ++t) {
        if ((done_ >> t & 1U) || (predMask_[t] & ~done_))
            continue;
        for (std::uint32_t u = 0; u < k_; ++u) {
            const double d = p_.seconds(t, u);
            if (!std::isfinite(d) || usedMemory_[u] + p_.tasks[t].memoryBytes() > p_.devices[u].memoryBytes)
                continue;
            double s = std::max(devFree_[u], p_.releaseOf(t, u));
            for (std::uint32_t q : p_.dag.predecessors[t])
                s = std::max(s, finish_[q] + p_.commSeconds(q, device_[q], u));
            if (!std::isfinite(s) || s < lastStart_ - kEps)
                continue;
            if (s <= lastStart_ + kEps && static_cast<std::int64_t>(t) < lastTask_)
                continue; // built once: equal starts in index order
            if (std::max(makespan_, s + d + tail_[t]) >= best_ - kEps)
                continue;
            moves.push_back({ t, u, s, s + d });
        }
    }
    std::sort(moves.begin(), moves.end(), [](const Move& a, const Move& b) { return a.end < b.end; });
    for (const Move& m : moves) {
        const double savedFree = devFree_[m.device], savedLast = lastStart_, savedMakespan = makespan_;
        const std::int64_t savedLastTask = lastTask_;
        done_ |= 1U << m.task;
        device_[m.task] = m.device;
        start_[m.task] = m.start;
        finish_[m.task] = m.end;
        devFree_[m.device] = m.end;
        usedMemory_[m.device] += p_.tasks[m.task].memoryBytes();
        lastStart_ = m.start;
        lastTask_ = m.task;
        makespan_ = std::max(makespan_, m.end);
        dfs(depth + 1);
        done_ &= ~(1U << m.task);
        devFree_[m.device] = savedFree;
        usedMemory_[m.device] -= p_.tasks[m.task].memoryBytes();
        lastStart_ = savedLast;
        lastTask_ = savedLastTask;
        makespan_ = savedMakespan;
        if (stopped_)
            return;
    }
}

MapResult Search::run()
{
    t0_ = Clock::now();
    p_.validate();
    if (n_ > kExactSearchMaxTasks)
        throw Error("the exact search takes at most " + std::to_string(kExactSearchMaxTasks) + " tasks, not "
            + std::to_string(n_));
    topo_ = *topologicalOrder(p_.dag);
    fastest_.assign(n_, kUnsupported);
    tail_.assign(n_, 0.0);
    predMask_.assign(n_, 0);
    for (std::uint32_t t = 0; t < n_; ++t) {
        for (std::uint32_t u = 0; u < k_; ++u)
            fastest_[t] = std::min(fastest_[t], p_.seconds(t, u));
        for (std::uint32_t q : p_.dag.predecessors[t])
            predMask_[t] |= 1U << q;
    }
    for (auto it = topo_.rbegin(); it != topo_.rend(); ++it)
        for (std::uint32_t s : p_.dag.successors[*it])
            tail_[*it] = std::max(tail_[*it], fastest_[s] + tail_[s]);
    device_.assign(n_, 0);
    start_.assign(n_, 0.0);
    finish_.assign(n_, 0.0);
    devFree_.assign(k_, 0.0);
    usedMemory_.assign(k_, 0.0);

    MapResult heuristic = bestListHeuristic(p_);
    best_ = std::min(heuristic.times.makespan, o_.cutoffSeconds);
    const bool cutoff = o_.cutoffSeconds < heuristic.times.makespan;
    dfs(0);

    MapResult r;
    if (found_) {
        std::vector<std::uint32_t> byStart(topo_);
        std::stable_sort(byStart.begin(), byStart.end(), [&](std::uint32_t a, std::uint32_t b) {
            return bestStart_[a] != bestStart_[b] ? bestStart_[a] < bestStart_[b] : a < b;
        });
        r.mapping = mappingWithOrder(p_, bestDevice_, byStart);
        r.times = evaluate(p_, r.mapping);
    }
    if (!found_ || !r.times.feasible || r.times.makespan > heuristic.times.makespan) {
        r.mapping = heuristic.mapping;
        r.times = heuristic.times;
    }
    r.mapper = "search";
    r.status = stopped_ ? SolveStatus::Timeout : SolveStatus::Optimal;
    r.cutoffProven = !stopped_ && cutoff && !found_;
    if (!stopped_)
        r.gap = 0;
    r.note = std::to_string(nodes_) + " nodes";
    r.solveSeconds = std::chrono::duration<double>(Clock::now() - t0_).count();
    return r;
}

} // namespace

MapResult mapExactSearch(const MappingProblem& problem, const MapperOptions& options)
{
    return Search(problem, options).run();
}

} // namespace opsched::map
