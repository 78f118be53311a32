#include "map/solvers/throughput_heuristics.h"

#include "util/error.h"
#include "util/random.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <string_view>

namespace opsched::map {
namespace {

using Clock = std::chrono::steady_clock;

// Builds a mapping op by op, appending each op's batches to its devices: the list heuristics.
class ListBuilder {
public:
    explicit ListBuilder(const ThroughputProblem& p)
        : p_(p)
        , k_(p.base.deviceCount())
        , free_(k_, 0.0)
        , finish_(p.base.taskCount(), std::vector<double>(k_, 0.0))
        , split_(p.base.taskCount(), 0)
    {
    }

    // Per device, when the batch of `split` for task t would finish; infinity if it cannot run.
    std::vector<double> finishes(std::uint32_t t, std::uint32_t split) const
    {
        std::vector<double> out(k_, 0.0);
        const auto& counts = p_.splits[split];
        std::vector<std::int64_t> first(k_, 0);
        for (std::uint32_t u = 1; u < k_; ++u)
            first[u] = first[u - 1] + counts[u - 1];
        for (std::uint32_t u = 0; u < k_; ++u) {
            if (!counts[u])
                continue;
            const double d = p_.blockCost(t, split, u); // pipelined batches: as one block here
            if (!std::isfinite(d))
                return std::vector<double>(k_, kUnsupported);
            double s = free_[u];
            for (std::uint32_t q : p_.base.dag.predecessors[t]) {
                const auto& qc = p_.splits[split_[q]];
                std::int64_t qFirst = 0;
                for (std::uint32_t w = 0; w < k_; ++w) {
                    const std::int64_t lo = std::max(qFirst, first[u]);
                    const std::int64_t hi = std::min(qFirst + qc[w], first[u] + counts[u]);
                    qFirst += qc[w];
                    if (hi <= lo)
                        continue;
                    double arrival = finish_[q][w];
                    if (w != u) {
                        const Link& link = p_.base.links[w][u];
                        if (!link.connected())
                            return std::vector<double>(k_, kUnsupported);
                        arrival += link.latencySeconds
                            + static_cast<double>(hi - lo) * p_.base.tasks[q].outputBytes
                                / link.bandwidthBytesPerSecond;
                    }
                    s = std::max(s, arrival);
                }
            }
            out[u] = s + d;
        }
        return out;
    }

    void place(std::uint32_t t, std::uint32_t split)
    {
        const auto f = finishes(t, split);
        split_[t] = split;
        for (std::uint32_t u = 0; u < k_; ++u)
            if (p_.splits[split][u]) {
                finish_[t][u] = f[u];
                free_[u] = f[u];
                makespan_ = std::max(makespan_, f[u]);
            }
        placed_.push_back(t);
    }

    double makespan() const { return makespan_; }
    ThroughputMapping mapping() const { return throughputWithOrder(p_, split_, placed_); }

private:
    const ThroughputProblem& p_;
    std::size_t k_;
    std::vector<double> free_;
    std::vector<std::vector<double>> finish_;
    std::vector<std::uint32_t> split_;
    std::vector<std::uint32_t> placed_;
    double makespan_ = 0;
};

double maxOf(const std::vector<double>& v)
{
    return *std::max_element(v.begin(), v.end());
}

ThroughputResult finish(const ThroughputProblem& p, std::string_view name, ThroughputMapping m, Clock::time_point t0)
{
    ThroughputResult r;
    r.mapper = std::string(name);
    r.times = evaluate(p, m);
    r.mapping = std::move(m);
    r.solveSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!r.times.feasible)
        throw Error(r.mapper + " (throughput) found no feasible mapping: " + r.times.problem);
    return r;
}

std::vector<std::uint32_t> metSplits(const ThroughputProblem& p)
{
    std::vector<std::uint32_t> split(p.base.taskCount(), 0);
    for (std::uint32_t t = 0; t < p.base.taskCount(); ++t) {
        double best = kUnsupported;
        for (std::uint32_t s = 0; s < p.splits.size(); ++s) {
            double longest = 0;
            for (std::uint32_t u = 0; u < p.base.deviceCount(); ++u)
                if (p.splits[s][u])
                    longest = std::max(longest, p.blockCost(t, s, u));
            if (longest < best) {
                best = longest;
                split[t] = s;
            }
        }
    }
    return split;
}

ThroughputResult search(const ThroughputProblem& p, const MapperOptions& o, bool annealing, Clock::time_point t0,
    const std::vector<std::uint32_t>* from = nullptr)
{
    const auto order = breadthFirstOrder(p.base.dag);
    const std::size_t n = p.base.taskCount(), choices = p.splits.size();
    SplitMix64 rng(o.seed ^ (annealing ? 0xB5A5ULL : 0xBEAEULL));
    auto cost
        = [&](const std::vector<std::uint32_t>& s) { return throughputMakespan(p, throughputWithOrder(p, s, order)); };
    std::vector<std::uint32_t> current = from ? *from : metSplits(p);
    if (annealing && !from)
        for (auto& s : current)
            s = static_cast<std::uint32_t>(rng.below(choices));
    double currentCost = cost(current);
    if (!std::isfinite(currentCost)) {
        current = metSplits(p);
        currentCost = cost(current);
    }
    auto best = current;
    double bestCost = currentCost;
    // An evaluation budget, or with runSeconds a wall-time run (the paper's equal-runtime
    // comparison): the clock stops it and the cooling is spread over the time.
    const bool timed = o.runSeconds > 0;
    const std::uint64_t budget = timed ? std::numeric_limits<std::uint64_t>::max()
        : o.iterations                 ? o.iterations
                                       : std::max<std::uint64_t>(5000, 200 * n);
    const double stop = timed ? std::min(o.runSeconds, o.timeLimitSeconds) : o.timeLimitSeconds;
    const double hot = std::isfinite(currentCost) ? 0.1 * currentCost / std::log(2.0) : 1.0;
    double temperature = hot;
    const double cooling = timed ? 1.0 : std::pow(1e-4, 1.0 / static_cast<double>(budget));
    for (std::uint64_t i = 0; i < budget && choices > 1; ++i) {
        if ((i & 255) == 0) {
            const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
            if (elapsed > stop)
                break;
            if (timed)
                temperature = hot * std::pow(1e-4, elapsed / stop);
        }
        auto child = current;
        bool changed = false;
        for (std::size_t t = 0; t < n && !annealing; ++t)
            if (rng.below(n) == 0) {
                child[t] = static_cast<std::uint32_t>((child[t] + 1 + rng.below(choices - 1)) % choices);
                changed = true;
            }
        if (!changed) {
            const std::size_t t = rng.below(n);
            child[t] = static_cast<std::uint32_t>((child[t] + 1 + rng.below(choices - 1)) % choices);
        }
        const double c = cost(child);
        const bool accept = annealing
            ? std::isfinite(c) && (c <= currentCost || rng.uniform() < std::exp(-(c - currentCost) / temperature))
            : c <= currentCost;
        if (accept) {
            current.swap(child);
            currentCost = c;
            if (c < bestCost) {
                bestCost = c;
                best = current;
            }
        }
        temperature *= cooling;
    }
    return finish(p, annealing ? "sa" : "ea", throughputWithOrder(p, best, order), t0);
}

ThroughputResult listMapping(const ThroughputProblem& p, std::string_view name)
{
    const auto t0 = Clock::now();
    const std::size_t n = p.base.taskCount(), k = p.base.deviceCount();
    std::vector<std::uint32_t> order = breadthFirstOrder(p.base.dag);
    if (name == "heft") {
        // Upward rank over each op's mean cost of all L inputs.
        std::vector<double> mean(n, 0.0), rank(n, 0.0);
        for (std::uint32_t t = 0; t < n; ++t) {
            int c = 0;
            for (std::uint32_t u = 0; u < k; ++u)
                if (std::isfinite(p.costOf(t, u, p.inputs))) {
                    mean[t] += p.costOf(t, u, p.inputs);
                    ++c;
                }
            mean[t] = c ? mean[t] / c : 0.0;
        }
        const auto topo = *topologicalOrder(p.base.dag);
        std::vector<std::size_t> position(n);
        for (std::size_t i = 0; i < n; ++i)
            position[topo[i]] = i;
        for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
            double tail = 0;
            for (std::uint32_t s : p.base.dag.successors[*it])
                tail = std::max(tail, rank[s]);
            rank[*it] = mean[*it] + tail;
        }
        order = topo;
        std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
            return rank[a] != rank[b] ? rank[a] > rank[b] : position[a] < position[b];
        });
    }
    ListBuilder builder(p);
    for (std::uint32_t t : order) {
        double bestKey = kUnsupported, bestEnd = kUnsupported;
        std::uint32_t bestSplit = 0;
        for (std::uint32_t s = 0; s < p.splits.size(); ++s) {
            const double end = maxOf(builder.finishes(t, s));
            const double key = name == "heft" ? end : std::max(builder.makespan(), end);
            if (key < bestKey || (key == bestKey && end < bestEnd)) {
                bestKey = key;
                bestEnd = end;
                bestSplit = s;
            }
        }
        if (!std::isfinite(bestEnd))
            throw Error(std::string(name) + " (throughput): no split fits op " + p.base.tasks[t].name);
        builder.place(t, bestSplit);
    }
    return finish(p, name, builder.mapping(), t0);
}

} // namespace

ThroughputResult mapThroughputBestDevice(const ThroughputProblem& p, const MapperOptions&)
{
    const auto t0 = Clock::now();
    const std::size_t n = p.base.taskCount(), k = p.base.deviceCount();
    const auto bfs = breadthFirstOrder(p.base.dag);
    std::optional<ThroughputResult> best;
    for (std::uint32_t s = 0; s < p.splits.size(); ++s) {
        if (std::count(p.splits[s].begin(), p.splits[s].end(), 0) != static_cast<std::ptrdiff_t>(k - 1))
            continue; // one device takes all L
        const auto times = evaluate(p, throughputWithOrder(p, std::vector<std::uint32_t>(n, s), bfs));
        if (times.feasible && (!best || times.makespan < best->times.makespan))
            best = finish(p, "bd", throughputWithOrder(p, std::vector<std::uint32_t>(n, s), bfs), t0);
    }
    if (!best)
        throw Error("bd (throughput): no single device can take all the inputs of every op");
    return *best;
}

ThroughputResult mapThroughputMinimumExecutionTime(const ThroughputProblem& p, const MapperOptions&)
{
    const auto t0 = Clock::now();
    return finish(p, "met", throughputWithOrder(p, metSplits(p), breadthFirstOrder(p.base.dag)), t0);
}

ThroughputResult mapThroughputGreedy(const ThroughputProblem& p, const MapperOptions&)
{
    return listMapping(p, "greedy");
}

ThroughputResult mapThroughputHeft(const ThroughputProblem& p, const MapperOptions&)
{
    return listMapping(p, "heft");
}

ThroughputResult mapThroughputAnnealing(const ThroughputProblem& p, const MapperOptions& o)
{
    return search(p, o, true, Clock::now());
}

ThroughputResult mapThroughputEvolutionary(const ThroughputProblem& p, const MapperOptions& o)
{
    return search(p, o, false, Clock::now());
}

std::optional<ThroughputResult> bestListHeuristic(const ThroughputProblem& p, const MapperOptions& o)
{
    std::optional<ThroughputResult> best;
    for (auto* heuristic :
        { &mapThroughputBestDevice, &mapThroughputMinimumExecutionTime, &mapThroughputGreedy, &mapThroughputHeft }) {
        try {
            ThroughputResult r = heuristic(p, o);
            if (!best || r.times.makespan < best->times.makespan)
                best = std::move(r);
        } catch (const Error&) {
        }
    }
    return best;
}

ThroughputResult improveThroughputSplits(
    const ThroughputProblem& p, const MapperOptions& o, const std::vector<std::uint32_t>& from)
{
    const auto t0 = Clock::now();
    ThroughputResult r = search(p, o, false, t0, &from);
    r.mapper = "ea";
    return r;
}

} // namespace opsched::map
