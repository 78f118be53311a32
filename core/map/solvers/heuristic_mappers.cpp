#include "map/solvers/heuristic_mappers.h"

#include "util/error.h"
#include "util/random.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

namespace opsched::map {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

MapResult finish(const MappingProblem& problem, std::string name, Mapping mapping, Clock::time_point t0)
{
    MapResult r;
    r.mapper = std::move(name);
    r.times = evaluate(problem, mapping);
    r.mapping = std::move(mapping);
    r.solveSeconds = secondsSince(t0);
    if (!r.times.feasible)
        throw Error(r.mapper + " found no feasible mapping: " + r.times.problem);
    return r;
}

// Devices still able to take task t: it runs there, memory is left, and every predecessor's
// result can reach it.
bool canPlace(const MappingProblem& p, std::uint32_t t, std::uint32_t u, const std::vector<double>& usedMemory,
    const std::vector<std::uint32_t>& device)
{
    if (!std::isfinite(p.seconds(t, u)))
        return false;
    if (usedMemory[u] + p.tasks[t].memoryBytes() > p.devices[u].memoryBytes)
        return false;
    for (std::uint32_t q : p.dag.predecessors[t])
        if (!std::isfinite(p.commSeconds(q, device[q], u)))
            return false;
    return true;
}

[[noreturn]] void noRoom(const MappingProblem& p, std::uint32_t t, const char* mapper)
{
    throw Error(std::string(mapper) + ": no device can take task " + p.tasks[t].name
        + " (it does not run there, its inputs cannot reach it, or memory is full)");
}

double fitness(
    const MappingProblem& p, const std::vector<std::uint32_t>& device, const std::vector<std::uint32_t>& order)
{
    return evaluate(p, mappingWithOrder(p, device, order)).makespan; // infinity when infeasible
}

std::vector<std::uint32_t> fastestDevices(const MappingProblem& p)
{
    std::vector<std::uint32_t> device(p.taskCount(), 0);
    for (std::uint32_t t = 0; t < p.taskCount(); ++t)
        for (std::uint32_t u = 1; u < p.deviceCount(); ++u)
            if (p.seconds(t, u) < p.seconds(t, device[t]))
                device[t] = u;
    return device;
}

std::uint64_t iterationBudget(const MappingProblem& p, const MapperOptions& o)
{
    if (o.runSeconds > 0) // a wall-time run: the clock stops it
        return std::numeric_limits<std::uint64_t>::max();
    return o.iterations ? o.iterations : std::max<std::uint64_t>(5000, 200 * p.taskCount());
}

// SA and EA stop at the time limit, or at runSeconds when that is set (and shorter).
double stopAfter(const MapperOptions& o)
{
    return o.runSeconds > 0 ? std::min(o.runSeconds, o.timeLimitSeconds) : o.timeLimitSeconds;
}

} // namespace

const char* toString(SolveStatus status)
{
    switch (status) {
    case SolveStatus::Heuristic:
        return "heuristic";
    case SolveStatus::Optimal:
        return "optimal";
    case SolveStatus::Feasible:
        return "feasible";
    case SolveStatus::Timeout:
        return "timeout";
    }
    return "?";
}

MapResult mapBestDevice(const MappingProblem& p)
{
    const auto t0 = Clock::now();
    const auto order = breadthFirstOrder(p.dag);
    double best = kUnsupported;
    std::uint32_t bestDevice = 0;
    for (std::uint32_t u = 0; u < p.deviceCount(); ++u) {
        const double s = fitness(p, std::vector<std::uint32_t>(p.taskCount(), u), order);
        if (s < best) {
            best = s;
            bestDevice = u;
        }
    }
    if (!std::isfinite(best))
        throw Error("bd: no single device can run every task and hold them all in memory");
    return finish(p, "bd", mappingWithOrder(p, std::vector<std::uint32_t>(p.taskCount(), bestDevice), order), t0);
}

MapResult mapMinimumExecutionTime(const MappingProblem& p)
{
    const auto t0 = Clock::now();
    const auto order = breadthFirstOrder(p.dag);
    std::vector<std::uint32_t> device(p.taskCount(), 0);
    std::vector<double> used(p.deviceCount(), 0.0);
    for (std::uint32_t t : order) {
        double best = kUnsupported;
        for (std::uint32_t u = 0; u < p.deviceCount(); ++u)
            if (canPlace(p, t, u, used, device) && p.seconds(t, u) < best) {
                best = p.seconds(t, u);
                device[t] = u;
            }
        if (!std::isfinite(best))
            noRoom(p, t, "met");
        used[device[t]] += p.tasks[t].memoryBytes();
    }
    return finish(p, "met", mappingWithOrder(p, device, order), t0);
}

MapResult mapGreedy(const MappingProblem& p)
{
    const auto t0 = Clock::now();
    const auto order = breadthFirstOrder(p.dag);
    std::vector<std::uint32_t> device(p.taskCount(), 0);
    std::vector<double> used(p.deviceCount(), 0.0), deviceFree(p.deviceCount(), 0.0), finishAt(p.taskCount(), 0.0);
    double makespan = 0;
    for (std::uint32_t t : order) {
        double bestMakespan = kUnsupported, bestFinish = kUnsupported;
        for (std::uint32_t u = 0; u < p.deviceCount(); ++u) {
            if (!canPlace(p, t, u, used, device))
                continue;
            double start = std::max(deviceFree[u], p.releaseOf(t, u));
            for (std::uint32_t q : p.dag.predecessors[t])
                start = std::max(start, finishAt[q] + p.commSeconds(q, device[q], u));
            const double f = start + p.seconds(t, u);
            const double m = std::max(makespan, f);
            if (m < bestMakespan || (m == bestMakespan && f < bestFinish)) {
                bestMakespan = m;
                bestFinish = f;
                device[t] = u;
            }
        }
        if (!std::isfinite(bestFinish))
            noRoom(p, t, "greedy");
        used[device[t]] += p.tasks[t].memoryBytes();
        deviceFree[device[t]] = finishAt[t] = bestFinish;
        makespan = bestMakespan;
    }
    return finish(p, "greedy", mappingWithOrder(p, device, order), t0);
}

MapResult mapHeft(const MappingProblem& p)
{
    const auto t0 = Clock::now();
    const std::size_t n = p.taskCount(), k = p.deviceCount();
    // Mean execution and communication costs over the devices (and links) that can serve them.
    std::vector<double> meanCost(n, 0.0), meanComm(n, 0.0);
    for (std::uint32_t t = 0; t < n; ++t) {
        int count = 0;
        for (std::uint32_t u = 0; u < k; ++u)
            if (std::isfinite(p.seconds(t, u))) {
                meanCost[t] += p.seconds(t, u);
                ++count;
            }
        meanCost[t] /= count;
        int links = 0;
        for (std::uint32_t u = 0; u < k; ++u)
            for (std::uint32_t v = 0; v < k; ++v)
                if (u != v && p.links[u][v].connected()) {
                    meanComm[t] += p.commSeconds(t, u, v);
                    ++links;
                }
        // A result stays on its device with probability 1/k on average.
        meanComm[t] = links ? meanComm[t] / links * (1.0 - 1.0 / static_cast<double>(k)) : 0.0;
    }
    const auto topo = *topologicalOrder(p.dag);
    std::vector<std::size_t> position(n);
    for (std::size_t i = 0; i < n; ++i)
        position[topo[i]] = i;
    std::vector<double> rank(n, 0.0);
    for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
        double tail = 0;
        for (std::uint32_t s : p.dag.successors[*it])
            tail = std::max(tail, meanComm[*it] + rank[s]);
        rank[*it] = meanCost[*it] + tail;
    }
    std::vector<std::uint32_t> byRank = topo;
    std::stable_sort(byRank.begin(), byRank.end(), [&](std::uint32_t a, std::uint32_t b) {
        return rank[a] != rank[b] ? rank[a] > rank[b] : position[a] < position[b];
    });

    struct Slot {
        double start, end;
        std::uint32_t task;
    };
    std::vector<std::vector<Slot>> slots(k); // sorted by start
    std::vector<std::uint32_t> device(n, 0);
    std::vector<double> used(k, 0.0), finishAt(n, 0.0);
    for (std::uint32_t t : byRank) {
        double bestFinish = kUnsupported, bestStart = 0;
        for (std::uint32_t u = 0; u < k; ++u) {
            if (!canPlace(p, t, u, used, device))
                continue;
            double ready = p.releaseOf(t, u);
            for (std::uint32_t q : p.dag.predecessors[t])
                ready = std::max(ready, finishAt[q] + p.commSeconds(q, device[q], u));
            const double d = p.seconds(t, u);
            // First gap at or after `ready` that holds d.
            double start = ready;
            for (const Slot& s : slots[u]) {
                if (start + d <= s.start)
                    break;
                start = std::max(start, s.end);
            }
            if (start + d < bestFinish) {
                bestFinish = start + d;
                bestStart = start;
                device[t] = u;
            }
        }
        if (!std::isfinite(bestFinish))
            noRoom(p, t, "heft");
        used[device[t]] += p.tasks[t].memoryBytes();
        finishAt[t] = bestFinish;
        auto& list = slots[device[t]];
        list.insert(std::upper_bound(
                        list.begin(), list.end(), bestStart, [](double s, const Slot& slot) { return s < slot.start; }),
            Slot { bestStart, bestFinish, t });
    }
    Mapping m;
    m.device = device;
    m.order.assign(k, {});
    for (std::uint32_t u = 0; u < k; ++u)
        for (const Slot& s : slots[u])
            m.order[u].push_back(s.task);
    return finish(p, "heft", std::move(m), t0);
}

MapResult mapSimulatedAnnealing(const MappingProblem& p, const MapperOptions& options)
{
    const auto t0 = Clock::now();
    const auto order = breadthFirstOrder(p.dag);
    const std::size_t n = p.taskCount(), k = p.deviceCount();
    SplitMix64 rng(options.seed ^ 0x5A5A5A5AULL);
    std::vector<std::uint32_t> current(n);
    for (auto& d : current)
        d = static_cast<std::uint32_t>(rng.below(k));
    double currentCost = fitness(p, current, order);
    // A random start may be infeasible (memory, links): begin from the fastest devices then, and
    // where those need a link that is not there (bandwidth 0), from the greedy list mapping.
    if (!std::isfinite(currentCost)) {
        current = fastestDevices(p);
        currentCost = fitness(p, current, order);
    }
    if (!std::isfinite(currentCost)) {
        current = mapGreedy(p).mapping.device;
        currentCost = fitness(p, current, order);
    }
    auto best = current;
    double bestCost = currentCost;
    const std::uint64_t budget = iterationBudget(p, options);
    // Start hot enough to accept a 10% worse mapping half the time; cool geometrically to 1e-4 of it.
    const double t0Temp = std::isfinite(currentCost) ? 0.1 * currentCost / std::log(2.0) : 1.0;
    const double cooling = std::pow(1e-4, 1.0 / static_cast<double>(budget));
    double temperature = t0Temp;
    const double stop = stopAfter(options);
    for (std::uint64_t i = 0; i < budget && k > 1; ++i) {
        if ((i & 255) == 0) {
            const double elapsed = secondsSince(t0);
            if (elapsed > stop)
                break;
            if (options.runSeconds > 0) // the same cooling, spread over the wall time
                temperature = t0Temp * std::pow(1e-4, elapsed / stop);
        }
        const std::size_t t = rng.below(n);
        const std::uint32_t old = current[t];
        current[t] = static_cast<std::uint32_t>((old + 1 + rng.below(k - 1)) % k);
        const double cost = fitness(p, current, order);
        const double delta = cost - currentCost;
        if (std::isfinite(cost) && (delta <= 0 || rng.uniform() < std::exp(-delta / temperature))) {
            currentCost = cost;
            if (cost < bestCost) {
                bestCost = cost;
                best = current;
            }
        } else {
            current[t] = old;
        }
        if (options.runSeconds <= 0)
            temperature *= cooling;
    }
    if (!std::isfinite(bestCost))
        throw Error("sa found no feasible mapping (memory or links rule out every one it tried)");
    return finish(p, "sa", mappingWithOrder(p, best, order), t0);
}

void mutateDevices(std::vector<std::uint32_t>& device, std::size_t k, SplitMix64& rng)
{
    const std::size_t n = device.size();
    bool changed = false;
    for (std::size_t t = 0; t < n; ++t)
        if (rng.below(n) == 0) {
            device[t] = static_cast<std::uint32_t>((device[t] + 1 + rng.below(k - 1)) % k);
            changed = true;
        }
    if (!changed) {
        const std::size_t t = rng.below(n);
        device[t] = static_cast<std::uint32_t>((device[t] + 1 + rng.below(k - 1)) % k);
    }
}

MapResult mapEvolutionary(const MappingProblem& p, const MapperOptions& options)
{
    const auto t0 = Clock::now();
    const auto order = breadthFirstOrder(p.dag);
    const std::size_t k = p.deviceCount();
    SplitMix64 rng(options.seed ^ 0xEAEAEAEAULL);
    auto parent = fastestDevices(p);
    double parentCost = fitness(p, parent, order);
    if (!std::isfinite(parentCost)) {
        parent = mapGreedy(p).mapping.device;
        parentCost = fitness(p, parent, order);
    }
    const std::uint64_t budget = iterationBudget(p, options);
    std::vector<std::uint32_t> child;
    const double stop = stopAfter(options);
    for (std::uint64_t i = 0; i < budget && k > 1; ++i) {
        if ((i & 255) == 0 && secondsSince(t0) > stop)
            break;
        child = parent;
        mutateDevices(child, k, rng);
        const double cost = fitness(p, child, order);
        if (cost <= parentCost) {
            parent.swap(child);
            parentCost = cost;
        }
    }
    return finish(p, "ea", mappingWithOrder(p, parent, order), t0);
}

MapResult bestListHeuristic(const MappingProblem& p)
{
    std::optional<MapResult> best;
    std::string errors;
    for (auto* mapper : { &mapHeft, &mapGreedy, &mapMinimumExecutionTime, &mapBestDevice }) {
        try {
            MapResult r = mapper(p);
            if (!best || r.times.makespan < best->times.makespan)
                best = std::move(r);
        } catch (const Error& e) {
            errors += std::string(errors.empty() ? "" : "; ") + e.what();
        }
    }
    if (!best)
        throw Error("no heuristic found a feasible mapping: " + errors);
    return *best;
}

} // namespace opsched::map
