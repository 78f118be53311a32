#include "map/solvers/exact_search.h"

#include "map/bounds/simplex_climb.h"
#include "map/solvers/dominance_memo.h"
#include "map/solvers/heuristic_mappers.h"
#include "map/solvers/order_search.h"

#include "util/error.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>

namespace opsched::map {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kEps = 1e-12; // seconds
// Device windows are bounded for every subset of devices: up to this many devices.
constexpr std::size_t kWindowDevices = 4;
// Probes for a proven bound stop when the interval left is this fraction of its top.
constexpr double kProbeResolution = 1e-3;
// SA's evaluations for the first mapping of a large search (about 0.1-0.3 s at 30 tasks).
constexpr std::uint64_t kSeedAnnealingIterations = 60000;
// The order search's evaluations from that mapping, and from each better one the search finds
// (about 1.3 us each at 30 tasks).
constexpr std::uint64_t kSeedOrderEvaluations = 400000, kIncumbentOrderEvaluations = 50000;
// The partial schedules kept for dominance: at most this many doubles (256 MiB).
constexpr std::size_t kMemoValues = std::size_t { 1 } << 25;

class Search {
public:
    // A probe only asks whether a schedule beats the cutoff: no annealing start, no polish.
    Search(const MappingProblem& p, const MapperOptions& o, bool probe = false)
        : p_(p)
        , o_(o)
        , n_(p.taskCount())
        , k_(p.deviceCount())
        , probe_(probe)
    {
    }

    void prepare();
    // What nodeBound says before anything is scheduled (after prepare).
    double rootBound() const { return nodeBound(); }
    std::uint64_t nodes() const { return nodes_; }
    MapResult run();

private:
    using Mask = std::uint64_t; // tasks done: up to kExactSearchLimit
    void dfs(std::size_t depth);
    double nodeBound() const;
    // Whether a partial schedule seen before dominates this one (with `bound` its node bound);
    // when not, this one is kept.
    bool dominatedElseStore(double bound);
    void prepareBounds();

    const MappingProblem& p_;
    MapperOptions o_;
    std::size_t n_, k_;
    bool probe_;
    Clock::time_point t0_;
    std::uint64_t nodes_ = 0;
    bool stopped_ = false;

    std::vector<double> fastest_, tail_;
    std::vector<double> tailOn_; // [t * k + u]: after t ends on u, its successors' chain, transfers included
    std::vector<std::vector<double>> lambda_; // weightings of the devices for the load bound, each summing to 1
    std::vector<std::vector<double>> weighted_; // per weighting, per task: min_u lambda_u c(t, u)
    std::vector<double> remainingWeighted_; // per weighting: the sum over unscheduled tasks
    // Device windows (up to kWindowDevices devices): for each set S of devices that could be the
    // ones running the unscheduled tasks, weightings over S (zero elsewhere).
    struct Window {
        std::uint32_t subset = 0;
        bool body = false; // over the tasks with successors only (sinks have no tail)
        std::vector<double> lambda, perTask; // perTask: min over u in S of lambda_u c(t, u)
        double remaining = 0; // over unscheduled tasks that S can run
        std::uint32_t impossible = 0; // unscheduled tasks no device of S can run
    };
    std::vector<Window> windows_;
    void prepareWindows();
    double windowBound() const;
    double countBound() const;
    // Filled by nodeBound for the unscheduled tasks: per device the earliest any of them can start
    // there (head) and the least chain after any of them there (tail); infinity where none can run.
    // [0]: all of them; [1]: those with successors.
    mutable std::vector<double> head_[2], minTailOn_[2];
    // Filled by nodeBound: the unscheduled tasks some of whose devices are out (a better schedule
    // cannot run them there), and which devices are still in for each task.
    mutable std::vector<std::uint32_t> restricted_;
    mutable std::vector<char> allowedOn_; // [t * k + u]: u can still run t in a better schedule
    mutable std::vector<double> startOn_, dynamicTail_; // [t * k + u]
    double forwardPass(const std::vector<double>& tails) const;
    void backwardPass() const;
    struct Forced {
        double head, cost, tail;
    };
    // min over the devices still allowed for t (and in `subset`, a bit per device, when given) of
    // lambda_u c(t, u); infinity for none.
    [[gnu::always_inline]] inline double leastWeighted(
        const std::vector<double>& lambda, std::uint32_t t, std::uint32_t subset = ~0U) const;
    std::vector<Mask> predMask_;
    double rootBound_ = 0;
    bool polishLeaves_ = false; // large problems: polishIncumbent at each new best
    std::uint64_t polishes_ = 0;
    void polishIncumbent();
    MapResult bestMapping() const; // of bestDevice_ and bestStart_
    // The order search's wall-time cap: `share` of the time limit, at most what is left of it; 0
    // (none) under a node limit, whose answers must not depend on the machine's load.
    double secondsFor(double share) const
    {
        if (o_.maxNodes)
            return 0;
        const double left = o_.timeLimitSeconds - std::chrono::duration<double>(Clock::now() - t0_).count();
        return std::max(1e-3, std::min(share * o_.timeLimitSeconds, left));
    }
    std::vector<std::uint32_t> topo_;
    // The problem's costs and transfers in flat tables (the bounds read them millions of times).
    std::vector<double> cost_, comm_;
    double cost(std::uint32_t t, std::uint32_t u) const { return cost_[t * k_ + u]; }
    double comm(std::uint32_t q, std::uint32_t from, std::uint32_t to) const
    {
        return comm_[(q * k_ + from) * k_ + to];
    }
    // The partial schedule.
    Mask done_ = 0;
    std::vector<std::uint32_t> device_;
    std::vector<double> start_, finish_, devFree_, usedMemory_;
    double lastStart_ = 0, makespan_ = 0;
    double startSum_ = 0; // the potential of the partial schedule (dominance)
    std::int64_t lastTask_ = -1;
    DominanceMemo memo_ { kMemoValues };
    std::vector<double> stateValues_, queryValues_;
    std::uint64_t memoPrunes_ = 0;
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
    // the transfer v -> u (none when v = u); after it ends on u its successors need their chain
    // (transfers included). The least over u of the two bounds the makespan.
    // A task whose start, cost and chain after on u reach the best makespan known cannot run on u
    // in any better schedule: u is left out of its inputs' arrivals, heads, tails and loads (deep
    // in the tree this keeps a slow device from absorbing a fraction of a task it has no time for).
    // The chains after are then recomputed over the devices left, and the pass repeated once.
    double bound = makespan_;
    allowedOn_.assign(n_ * k_, 1);
    bound = std::max(bound, forwardPass(tailOn_));
    if (bound >= best_ - kEps)
        return bound;
    if (!restricted_.empty()) {
        backwardPass();
        bound = std::max(bound, forwardPass(dynamicTail_));
        if (bound >= best_ - kEps)
            return bound;
    }
    const std::vector<double>& tails = restricted_.empty() ? tailOn_ : dynamicTail_;
    thread_local std::vector<std::vector<Forced>> forced; // per device, the tasks only it can run
    forced.resize(k_);
    for (auto& f : forced)
        f.clear();
    for (int b = 0; b < 2; ++b) {
        head_[b].assign(k_, kUnsupported);
        minTailOn_[b].assign(k_, kUnsupported);
    }
    for (std::uint32_t t : topo_) {
        if (done_ >> t & 1U)
            continue;
        std::uint32_t count = 0, only = 0;
        for (std::uint32_t u = 0; u < k_; ++u) {
            if (!allowedOn_[t * k_ + u])
                continue;
            ++count;
            only = u;
            const double s = startOn_[t * k_ + u];
            for (int b = 0; b < (p_.dag.successors[t].empty() ? 1 : 2); ++b) {
                head_[b][u] = std::min(head_[b][u], s);
                minTailOn_[b][u] = std::min(minTailOn_[b][u], tails[t * k_ + u]);
            }
        }
        if (count == 1)
            forced[only].push_back({ startOn_[t * k_ + only], cost(t, only), tails[t * k_ + only] });
    }
    // The tasks only u can run, one after another there: those that start at a or later end no
    // earlier than a plus their costs, and the chain after the last of them follows.
    for (auto& f : forced) {
        if (f.size() < 2)
            continue;
        std::sort(f.begin(), f.end(), [](const Forced& a, const Forced& b) { return a.head > b.head; });
        double sum = 0, tail = kUnsupported;
        for (const Forced& x : f) {
            sum += x.cost;
            tail = std::min(tail, x.tail);
            bound = std::max(bound, x.head + sum + tail);
        }
    }
    // Loads: the makespan is at least each device's next free moment plus what it still runs, so
    // at least any convex combination of those: sum_u lambda_u (max(free_u, last start) +
    // load_u) >= sum_u lambda_u max(free_u, last start) + sum_t min_u lambda_u c(t, u).
    for (std::size_t w = 0; w < lambda_.size(); ++w) {
        double sum = remainingWeighted_[w];
        for (std::uint32_t t : restricted_)
            sum += leastWeighted(lambda_[w], t) - weighted_[w][t];
        for (std::uint32_t u = 0; u < k_; ++u)
            sum += lambda_[w][u] * std::max(devFree_[u], lastStart_);
        bound = std::max(bound, sum);
    }
    bound = std::max(bound, windowBound());
    if (bound >= best_ - kEps)
        return bound;
    return std::max(bound, countBound());
}

double Search::countBound() const
{
    // Whole tasks: in a schedule better than the best known, device u runs its tasks inside
    // [head_u, best - least tail_u], so at most m_u of them (its cheapest ones fit). The window
    // bounds split tasks fractionally; with tasks of near-equal cost this counts them whole. The
    // others' slots are at most the sum of their m_u (a task may count for two: a relaxation),
    // and the tasks only they can run take slots first; device r then runs the rest, at least
    // its cheapest ones on r.
    thread_local std::vector<std::vector<double>> costs; // per device: of the tasks it may run, ascending
    thread_local std::vector<std::int64_t> fits; // per device: m_u
    costs.resize(k_);
    double bound = 0;
    for (int b = 0; b < 2; ++b) {
        fits.assign(k_, 0);
        std::int64_t tasks = 0;
        for (std::uint32_t t = 0; t < n_; ++t)
            tasks += !(done_ >> t & 1U) && (b == 0 || !p_.dag.successors[t].empty());
        for (std::uint32_t u = 0; u < k_; ++u) {
            costs[u].clear();
            for (std::uint32_t t = 0; t < n_; ++t)
                if (!(done_ >> t & 1U) && allowedOn_[t * k_ + u] && (b == 0 || !p_.dag.successors[t].empty()))
                    costs[u].push_back(cost(t, u));
            std::sort(costs[u].begin(), costs[u].end());
            const double room = best_ - head_[b][u] - minTailOn_[b][u];
            double used = 0;
            for (double c : costs[u]) {
                if (used + c >= room)
                    break;
                used += c;
                ++fits[u];
            }
        }
        for (std::uint32_t r = 0; r < k_; ++r) {
            if (costs[r].empty())
                continue;
            std::int64_t slots = 0;
            for (std::uint32_t u = 0; u < k_; ++u)
                if (u != r)
                    slots += fits[u];
            const std::int64_t elsewhere = tasks - static_cast<std::int64_t>(costs[r].size());
            if (slots < elsewhere)
                return best_; // the tasks r cannot run do not fit elsewhere
            const std::int64_t stay = static_cast<std::int64_t>(costs[r].size()) - (slots - elsewhere);
            double load = 0;
            for (std::int64_t i = 0; i < stay; ++i)
                load += costs[r][static_cast<std::size_t>(i)];
            if (stay > 0)
                bound = std::max(bound, head_[b][r] + load + minTailOn_[b][r]);
        }
    }
    return bound;
}

inline double Search::leastWeighted(const std::vector<double>& lambda, std::uint32_t t, std::uint32_t subset) const
{
    double m = kUnsupported;
    for (std::uint32_t u = 0; u < k_; ++u)
        if (allowedOn_[t * k_ + u] && (u >= 32 || (subset >> u & 1U)))
            m = std::min(m, lambda[u] * cost(t, u));
    return m;
}

double Search::forwardPass(const std::vector<double>& tails) const
{
    // Earliest starts and completions over the devices still allowed (allowedOn_), from the
    // partial schedule; narrows allowedOn_ to the devices where the task's start, cost and tail
    // stay below the best makespan known. Returns the path bound; fills restricted_.
    double bound = 0;
    thread_local std::vector<double> ect;
    ect.assign(n_ * k_, kUnsupported);
    startOn_.assign(n_ * k_, kUnsupported);
    restricted_.clear();
    for (std::uint32_t t : topo_) {
        if (done_ >> t & 1U)
            continue;
        double best = kUnsupported;
        bool any = false, narrowed = false;
        for (std::uint32_t u = 0; u < k_; ++u) {
            const double c = cost(t, u);
            if (!allowedOn_[t * k_ + u]) {
                narrowed = narrowed || std::isfinite(c);
                continue;
            }
            if (!std::isfinite(c)) {
                allowedOn_[t * k_ + u] = 0;
                continue;
            }
            double s = std::max({ lastStart_, devFree_[u], p_.releaseOf(t, u) });
            for (std::uint32_t q : p_.dag.predecessors[t]) {
                if (done_ >> q & 1U) {
                    s = std::max(s, finish_[q] + comm(q, device_[q], u));
                    continue;
                }
                double arrive = kUnsupported;
                for (std::uint32_t v = 0; v < k_; ++v)
                    arrive = std::min(arrive, ect[q * k_ + v] + comm(q, v, u));
                s = std::max(s, arrive);
            }
            const double through = s + c + tails[t * k_ + u];
            best = std::min(best, through);
            if (through >= best_ - kEps) {
                allowedOn_[t * k_ + u] = 0; // not on u in a better schedule
                narrowed = true;
                continue;
            }
            any = true;
            startOn_[t * k_ + u] = s;
            ect[t * k_ + u] = s + c;
        }
        bound = std::max(bound, best);
        if (!any)
            return bound; // no device left for t: nothing better below
        if (narrowed)
            restricted_.push_back(t);
    }
    return bound;
}

void Search::backwardPass() const
{
    // The chain after each unscheduled task on each device, its successors on their allowed
    // devices only (tailOn_ over all of them).
    dynamicTail_.assign(n_ * k_, 0.0);
    for (auto it = topo_.rbegin(); it != topo_.rend(); ++it) {
        const std::uint32_t t = *it;
        if (done_ >> t & 1U)
            continue;
        for (std::uint32_t u = 0; u < k_; ++u) {
            if (!allowedOn_[t * k_ + u])
                continue;
            double tail = 0;
            for (std::uint32_t s : p_.dag.successors[t]) {
                double next = kUnsupported;
                for (std::uint32_t v = 0; v < k_; ++v)
                    if (allowedOn_[s * k_ + v])
                        next = std::min(next, comm(t, u, v) + cost(s, v) + dynamicTail_[s * k_ + v]);
                tail = std::max(tail, next);
            }
            dynamicTail_[t * k_ + u] = std::max(tail, tailOn_[t * k_ + u]);
        }
    }
}

double Search::windowBound() const
{
    // Whichever devices S run the unscheduled tasks, each u of S is busy from its head to the
    // makespan less its tail with at least its share of them: makespan >= head_u + load_u +
    // tail_u for u in S, so >= any convex combination over S. The least over S bounds it. The
    // body windows do the same without the sinks (whose tail is zero) in loads, heads and tails.
    double bound = 0;
    if (windows_.empty())
        return bound;
    for (int body = 0; body < 2; ++body) {
        const auto& head = head_[body];
        const auto& tail = minTailOn_[body];
        if (std::none_of(head.begin(), head.end(), [](double h) { return std::isfinite(h); }))
            continue; // none of them left
        double least = kUnsupported;
        for (std::size_t w = 0; w < windows_.size();) {
            const std::uint32_t subset = windows_[w].subset;
            double best = 0;
            bool valid = true;
            for (std::uint32_t u = 0; u < k_; ++u)
                valid = valid && (!(subset >> u & 1U) || std::isfinite(head[u])); // else S runs none of them
            for (; w < windows_.size() && windows_[w].subset == subset; ++w) {
                const Window& win = windows_[w];
                if (!valid || win.body != (body == 1))
                    continue;
                if (win.impossible > 0) {
                    best = kUnsupported;
                    continue;
                }
                double value = win.remaining;
                for (std::uint32_t t : restricted_) {
                    if (!std::isfinite(win.perTask[t]) || (win.body && p_.dag.successors[t].empty()))
                        continue; // counted as impossible already, or a sink left out
                    value += leastWeighted(win.lambda, t, subset) - win.perTask[t];
                }
                for (std::uint32_t u = 0; u < k_; ++u)
                    if (subset >> u & 1U)
                        value += win.lambda[u] * (head[u] + tail[u]);
                best = std::max(best, value);
            }
            if (valid)
                least = std::min(least, best);
        }
        bound = std::max(bound, least);
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
        double head = kUnsupported;
        for (std::uint32_t t = 0; t < n_; ++t)
            if (!(done_ >> t & 1U) && allowedOn_[t * k_ + u])
                head = std::min(head, startOn_[t * k_ + u]);
        queryValues_.push_back(head);
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

void Search::prepareBounds()
{
    tailOn_.assign(n_ * k_, 0.0);
    for (auto it = topo_.rbegin(); it != topo_.rend(); ++it)
        for (std::uint32_t u = 0; u < k_; ++u)
            for (std::uint32_t s : p_.dag.successors[*it]) {
                double next = kUnsupported;
                for (std::uint32_t v = 0; v < k_; ++v)
                    if (std::isfinite(cost(s, v)))
                        next = std::min(next, comm(*it, u, v) + cost(s, v) + tailOn_[s * k_ + v]);
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
            if (std::isfinite(cost(t, u))) {
                mine += cost(t, u);
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
                if (std::isfinite(cost(t, u)))
                    m = std::min(m, lambda[u] * cost(t, u));
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

void Search::prepareWindows()
{
    windows_.clear();
    if (k_ > kWindowDevices)
        return;
    nodeBound(); // the heads and tails at the root
    for (std::uint32_t subset = 1; subset < (1U << k_); ++subset) {
        std::vector<std::uint32_t> members;
        for (std::uint32_t u = 0; u < k_; ++u)
            if (subset >> u & 1U)
                members.push_back(u);
        for (int body = 0; body < 2; ++body) {
            auto window = [&](const std::vector<double>& lambda) {
                Window win;
                win.subset = subset;
                win.body = body == 1;
                win.lambda = lambda;
                win.perTask.assign(n_, kUnsupported);
                for (std::uint32_t t = 0; t < n_; ++t) {
                    if (win.body && p_.dag.successors[t].empty())
                        win.perTask[t] = 0;
                    for (std::uint32_t u : members)
                        if (std::isfinite(cost(t, u)))
                            win.perTask[t] = std::min(win.perTask[t], lambda[u] * cost(t, u));
                    if (std::isfinite(win.perTask[t]))
                        win.remaining += win.perTask[t];
                    else
                        ++win.impossible;
                }
                return win;
            };
            auto rootValue = [&](const std::vector<double>& share) {
                std::vector<double> lambda(k_, 0.0);
                for (std::size_t i = 0; i < members.size(); ++i)
                    lambda[members[i]] = share[i];
                const Window win = window(lambda);
                double value = win.impossible > 0 ? kUnsupported : win.remaining;
                for (std::uint32_t u : members)
                    value += lambda[u] * (head_[body][u] + minTailOn_[body][u]);
                return value;
            };
            // Equal weights over S, and for two or more devices the best at the root.
            std::vector<double> share(members.size(), 1.0 / static_cast<double>(members.size()));
            std::vector<std::vector<double>> shares { share };
            if (members.size() >= 2 && std::isfinite(rootValue(share))) {
                climbSimplex(share, rootValue, rootValue(share), { 0.1, 0.02, 0.005, 0.001 });
                shares.push_back(share);
            }
            for (const auto& w : shares) {
                std::vector<double> lambda(k_, 0.0);
                for (std::size_t i = 0; i < members.size(); ++i)
                    lambda[members[i]] = w[i];
                windows_.push_back(window(lambda));
            }
        }
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

} // namespace

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
