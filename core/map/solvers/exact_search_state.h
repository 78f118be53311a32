// The exact search's state and bounds, shared by its two sources (exact_search.cpp: the branching,
// dominance and the entry points; exact_search_bounds.cpp: the node bounds and what they
// precompute). Internal to core/map: callers use exact_search.h.
#pragma once

#include "map/problem/map_result.h"
#include "map/solvers/dominance_memo.h"

#include <chrono>
#include <cstdint>
#include <vector>

namespace opsched::map::exact_detail {

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

} // namespace opsched::map::exact_detail
