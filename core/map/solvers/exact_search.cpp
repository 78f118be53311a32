#include "map/solvers/exact_search.h"

#include "map/solvers/heuristic_mappers.h"

#include "util/error.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>

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
    using Mask = std::uint64_t; // tasks done: up to kExactSearchLimit
    void dfs(std::size_t depth);
    double nodeBound() const;
    void prepareBounds();

    const MappingProblem& p_;
    MapperOptions o_;
    std::size_t n_, k_;
    Clock::time_point t0_;
    std::uint64_t nodes_ = 0;
    bool stopped_ = false;

    std::vector<double> fastest_, tail_;
    std::vector<double> tailOn_; // [t * k + u]: after t ends on u, its successors' chain, transfers included
    std::vector<std::vector<double>> lambda_; // weightings of the devices for the load bound, each summing to 1
    std::vector<std::vector<double>> weighted_; // per weighting, per task: min_u lambda_u c(t, u)
    std::vector<double> remainingWeighted_; // per weighting: the sum over unscheduled tasks
    std::vector<Mask> predMask_;
    std::vector<std::uint32_t> topo_;
    // The partial schedule.
    Mask done_ = 0;
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
    // order). On each device u a task starts no earlier than u frees, its release, its scheduled
    // inputs' arrival on u, and its unscheduled inputs' earliest completion on some device v plus
    // the transfer v -> u (none when v = u); after it ends on u its successors need tailOn_
    // (transfers included). The least over u of the two bounds the makespan.
    double bound = makespan_;
    thread_local std::vector<double> ect;
    ect.assign(n_ * k_, kUnsupported);
    for (std::uint32_t t : topo_) {
        if (done_ >> t & 1U)
            continue;
        double best = kUnsupported;
        for (std::uint32_t u = 0; u < k_; ++u) {
            const double c = p_.seconds(t, u);
            if (!std::isfinite(c))
                continue;
            double s = std::max({ lastStart_, devFree_[u], p_.releaseOf(t, u) });
            for (std::uint32_t q : p_.dag.predecessors[t]) {
                if (done_ >> q & 1U) {
                    s = std::max(s, finish_[q] + p_.commSeconds(q, device_[q], u));
                    continue;
                }
                double arrive = kUnsupported;
                for (std::uint32_t v = 0; v < k_; ++v)
                    arrive = std::min(arrive, ect[q * k_ + v] + p_.commSeconds(q, v, u));
                s = std::max(s, arrive);
            }
            ect[t * k_ + u] = s + c;
            best = std::min(best, s + c + tailOn_[t * k_ + u]);
        }
        bound = std::max(bound, best);
    }
    // Loads: the makespan is at least each device's next free moment plus what it still runs, so
    // at least any convex combination of those: sum_u lambda_u (max(free_u, last start) +
    // load_u) >= sum_u lambda_u max(free_u, last start) + sum_t min_u lambda_u c(t, u).
    for (std::size_t w = 0; w < lambda_.size(); ++w) {
        double sum = remainingWeighted_[w];
        for (std::uint32_t u = 0; u < k_; ++u)
            sum += lambda_[w][u] * std::max(devFree_[u], lastStart_);
        bound = std::max(bound, sum);
    }
    return bound;
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
        device_[m.task] = m.device;
        start_[m.task] = m.start;
        finish_[m.task] = m.end;
        devFree_[m.device] = m.end;
        usedMemory_[m.device] += p_.tasks[m.task].memoryBytes();
        lastStart_ = m.start;
        lastTask_ = m.task;
        makespan_ = std::max(makespan_, m.end);
        dfs(depth + 1);
        done_ &= ~(Mask { 1 } << m.task);
        for (std::size_t w = 0; w < lambda_.size(); ++w)
            remainingWeighted_[w] += weighted_[w][m.task];
        devFree_[m.device] = savedFree;
        usedMemory_[m.device] -= p_.tasks[m.task].memoryBytes();
        lastStart_ = savedLast;
        lastTask_ = savedLastTask;
        makespan_ = savedMakespan;
        if (stopped_)
            return;
    }
}

void Search::prepareBounds()
{
    tailOn_.assign(n_ * k_, 0.0);
    for (auto it = topo_.rbegin(); it != topo_.rend(); ++it)
        for (std::uint32_t u = 0; u < k_; ++u)
            for (std::uint32_t s : p_.dag.successors[*it]) {
                double next = kUnsupported;
                for (std::uint32_t v = 0; v < k_; ++v)
                    if (std::isfinite(p_.seconds(s, v)))
                        next = std::min(next, p_.commSeconds(*it, u, v) + p_.seconds(s, v) + tailOn_[s * k_ + v]);
                tailOn_[*it * k_ + u] = std::max(tailOn_[*it * k_ + u], next);
            }
    // Weightings for the load bound: equal, each device's speed (the fastest costs over its own,
    // over the tasks it can run), and for up to four devices the one that makes the bound largest
    // at the start (a grid over the simplex: the fractional work bound of unrelated devices).
    lambda_.assign(1, std::vector<double>(k_, 1.0 / static_cast<double>(k_)));
    std::vector<double> speed(k_, 0.0);
    double total = 0;
    for (std::uint32_t u = 0; u < k_; ++u) {
        double mine = 0, fast = 0;
        for (std::uint32_t t = 0; t < n_; ++t)
            if (std::isfinite(p_.seconds(t, u))) {
                mine += p_.seconds(t, u);
                fast += fastest_[t];
            }
        speed[u] = mine > 0 ? fast / mine : 0.0;
        total += speed[u];
    }
    if (total > 0) {
        for (double& v : speed)
            v /= total;
        lambda_.push_back(speed);
    }
    auto weigh = [&](const std::vector<double>& lambda, std::vector<double>* perTask) {
        double sum = 0;
        for (std::uint32_t t = 0; t < n_; ++t) {
            double m = kUnsupported;
            for (std::uint32_t u = 0; u < k_; ++u)
                if (std::isfinite(p_.seconds(t, u)))
                    m = std::min(m, lambda[u] * p_.seconds(t, u));
            sum += m;
            if (perTask)
                perTask->push_back(m);
        }
        return sum;
    };
    if (k_ >= 2 && k_ <= 4) {
        const int steps = k_ == 2 ? 400 : k_ == 3 ? 80 : 24;
        std::vector<double> lambda(k_), best;
        double bestValue = -1;
        std::vector<int> c(k_, 0);
        std::function<void(std::size_t, int)> grid = [&](std::size_t u, int left) {
            if (u + 1 == k_) {
                c[u] = left;
                for (std::size_t v = 0; v < k_; ++v)
                    lambda[v] = c[v] / static_cast<double>(steps);
                if (const double value = weigh(lambda, nullptr); value > bestValue) {
                    bestValue = value;
                    best = lambda;
                }
                return;
            }
            for (int i = 0; i <= left; ++i) {
                c[u] = i;
                grid(u + 1, left - i);
            }
        };
        grid(0, steps);
        lambda_.push_back(best);
    }
    weighted_.clear();
    remainingWeighted_.clear();
    for (const auto& lambda : lambda_) {
        weighted_.emplace_back();
        remainingWeighted_.push_back(weigh(lambda, &weighted_.back()));
    }
}

MapResult Search::run()
{
    t0_ = Clock::now();
    p_.validate();
    if (n_ > kExactSearchLimit)
        throw Error("the exact search takes at most " + std::to_string(kExactSearchLimit) + " tasks, not "
            + std::to_string(n_));
    topo_ = *topologicalOrder(p_.dag);
    fastest_.assign(n_, kUnsupported);
    tail_.assign(n_, 0.0);
    predMask_.assign(n_, 0);
    for (std::uint32_t t = 0; t < n_; ++t) {
        for (std::uint32_t u = 0; u < k_; ++u)
            fastest_[t] = std::min(fastest_[t], p_.seconds(t, u));
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
