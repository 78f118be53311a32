#include "map/solvers/order_search.h"

#include "map/solvers/heuristic_mappers.h"
#include "util/random.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace opsched::map {
namespace {

// The priority list of a mapping: its tasks by start time (ties by topological position), so
// that mappingWithOrder gives back the same per-device orders.
std::vector<std::uint32_t> priorityOf(const MappingProblem& p, const MapResult& r)
{
    std::vector<std::uint32_t> order = *topologicalOrder(p.dag);
    std::stable_sort(order.begin(), order.end(),
        [&](std::uint32_t a, std::uint32_t b) { return r.times.start[a] < r.times.start[b]; });
    return order;
}

// Moves task t to a random other place in the priority list between its last input and its first
// consumer (the list stays topological), keeping the old list in `old`. False when it has no
// other place.
bool moveInPriority(const Dag& dag, std::uint32_t t, std::vector<std::uint32_t>& priority,
    std::vector<std::uint32_t>& position, SplitMix64& rng, std::vector<std::uint32_t>& old)
{
    const std::size_t n = priority.size();
    for (std::size_t i = 0; i < n; ++i)
        position[priority[i]] = static_cast<std::uint32_t>(i);
    std::size_t lo = 0, hi = n - 1;
    for (std::uint32_t q : dag.predecessors[t])
        lo = std::max<std::size_t>(lo, position[q] + 1);
    for (std::uint32_t s : dag.successors[t])
        hi = std::min<std::size_t>(hi, position[s] - 1);
    if (hi <= lo)
        return false;
    const std::size_t to = lo + rng.below(hi - lo + 1);
    if (to == position[t])
        return false;
    old = priority;
    priority.erase(priority.begin() + position[t]);
    priority.insert(priority.begin() + static_cast<std::ptrdiff_t>(to), t);
    return true;
}

// The annealing schedule both searches share: temperatures falling geometrically from `hot` to 1e-4
// of the start's makespan over the evaluations, a wall-time cap, Metropolis acceptance.
class Cooling {
public:
    Cooling(double startMakespan, double hot, std::uint64_t evaluations, double seconds)
        : hot_(hot * startMakespan)
        , cold_(1e-4 * startMakespan)
        , evaluations_(std::max<std::uint64_t>(1, evaluations))
        , seconds_(seconds)
    {
    }
    // Past the wall time (checked every 64 evaluations; never without one).
    bool outOfTime(std::uint64_t i) const
    {
        return seconds_ > 0 && (i & 63) == 0
            && std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count() > seconds_;
    }
    // Whether evaluation i moves from `current` to `cost` (infinite: never, unless current is).
    bool accept(std::uint64_t i, double cost, double current, SplitMix64& rng) const
    {
        if (cost <= current)
            return true;
        const double temperature
            = hot_ * std::pow(cold_ / hot_, static_cast<double>(i) / static_cast<double>(evaluations_));
        return std::isfinite(cost) && rng.uniform() < std::exp((current - cost) / temperature);
    }

private:
    std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
    double hot_, cold_;
    std::uint64_t evaluations_;
    double seconds_;
};

} // namespace

MapResult improveOrderAndDevices(
    const MappingProblem& p, const MapResult& start, std::uint64_t evaluations, std::uint64_t seed, double seconds)
{
    const std::size_t n = p.taskCount(), k = p.deviceCount();
    if (n < 2 || !start.times.feasible)
        return start;
    SplitMix64 rng(seed ^ 0x0D3E5EA7ULL);
    std::vector<std::uint32_t> device = start.mapping.device, priority = priorityOf(p, start);
    std::vector<std::uint32_t> bestDevice = device, bestPriority = priority, position(n);
    double current = start.times.makespan, best = current;
    // From 2% of the start's makespan down to 0.01%: moves that cost a transfer are taken early on,
    // only improvements at the end.
    const Cooling cooling(current, 0.02, evaluations, seconds);
    constexpr double multi = 0.2; // the EA's mutation (several tasks at once); then single moves to 0.5
    for (std::uint64_t i = 0; i < evaluations && !cooling.outOfTime(i); ++i) {
        const std::uint32_t t = static_cast<std::uint32_t>(rng.below(n));
        const std::uint32_t oldDevice = device[t];
        std::vector<std::uint32_t> oldPriority, oldDevices;
        const double pick = rng.uniform();
        if (k >= 2 && pick < multi) {
            oldDevices = device;
            mutateDevices(device, k, rng);
        } else if (k >= 2 && pick < 0.5) {
            device[t] = static_cast<std::uint32_t>((oldDevice + 1 + rng.below(k - 1)) % k);
        } else {
            if (!moveInPriority(p.dag, t, priority, position, rng, oldPriority))
                continue;
        }
        const MappingTimes times = evaluate(p, mappingWithOrder(p, device, priority));
        const double cost = times.feasible ? times.makespan : kUnsupported;
        if (cooling.accept(i, cost, current, rng)) {
            current = cost;
            if (cost < best) {
                best = cost;
                bestDevice = device;
                bestPriority = priority;
            }
        } else {
            device[t] = oldDevice;
            if (!oldDevices.empty())
                device.swap(oldDevices);
            if (!oldPriority.empty())
                priority.swap(oldPriority);
        }
    }
    if (best >= start.times.makespan)
        return start;
    MapResult r = start;
    r.mapping = mappingWithOrder(p, bestDevice, bestPriority);
    r.times = evaluate(p, r.mapping);
    return r;
}

std::optional<ThroughputMapping> improveThroughputOrder(const ThroughputProblem& p, std::vector<std::uint32_t> split,
    std::vector<std::uint32_t> priority, double startMakespan, std::uint64_t evaluations, std::uint64_t seed,
    double seconds)
{
    const std::size_t n = p.base.taskCount(), splits = p.splits.size();
    if (n < 2 || splits < 2)
        return std::nullopt;
    double current = throughputMakespan(p, throughputEarliestStart(p, split, priority));
    if (!std::isfinite(current))
        return std::nullopt;
    std::vector<std::uint32_t> bestSplit = split, bestPriority = priority, position(n);
    double best = current;
    SplitMix64 rng(seed ^ 0x7A1E0DE5ULL);
    const Cooling cooling(current, 0.01, evaluations, seconds);
    for (std::uint64_t i = 0; i < evaluations && !cooling.outOfTime(i); ++i) {
        const std::uint32_t t = static_cast<std::uint32_t>(rng.below(n));
        const std::uint32_t oldSplit = split[t];
        std::vector<std::uint32_t> oldPriority;
        if (rng.uniform() < 0.5) {
            split[t] = static_cast<std::uint32_t>((oldSplit + 1 + rng.below(splits - 1)) % splits);
        } else {
            if (!moveInPriority(p.base.dag, t, priority, position, rng, oldPriority))
                continue;
        }
        const double cost = throughputMakespan(p, throughputEarliestStart(p, split, priority));
        if (cooling.accept(i, cost, current, rng)) {
            current = cost;
            if (cost < best) {
                best = cost;
                bestSplit = split;
                bestPriority = priority;
            }
        } else {
            split[t] = oldSplit;
            if (!oldPriority.empty())
                priority.swap(oldPriority);
        }
    }
    if (best >= startMakespan * (1 - 1e-12))
        return std::nullopt;
    return throughputEarliestStart(p, bestSplit, bestPriority);
}

} // namespace opsched::map
