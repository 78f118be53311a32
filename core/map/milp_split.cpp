#include "map/milp_split.h"

#include "map/exact_search.h"
#include "map/heuristic_mappers.h"
#include "map/lower_bound.h"
#include "map/milp_mapper.h"
#include "map/modules.h"

#include "util/error.h"
#include "util/random.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

namespace opsched::map {
namespace {

using Clock = std::chrono::steady_clock;

// A solved piece: devices and per-device orders in global task ids; `value` is when it ends,
// measured from the moment its entry separator finished.
struct Piece {
    bool valid = false;
    double value = kUnsupported;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> placed; // (task, device)
    std::vector<std::vector<std::uint32_t>> order;               // per device
    std::vector<double> finish;     // chunked pieces: finish of each placed task
    std::vector<double> deviceFree; // chunked pieces: when each device is free again
};

class Splitter {
public:
    Splitter(const MappingProblem& p, const MapperOptions& o) : p_(p), o_(o), t0_(Clock::now()) {}

    MapResult run();

private:
    void polish(MapResult& result);
    double elapsed() const { return std::chrono::duration<double>(Clock::now() - t0_).count(); }
    bool outOfTime() const { return elapsed() > o_.timeLimitSeconds; }

    // Release times of `tasks` given the entry separator on `entryDevice` and tasks already
    // placed (device and finish) before them; devices busy until `deviceFree`.
    std::vector<std::vector<double>> releases(const std::vector<std::uint32_t>& tasks, std::int64_t entry,
                                              std::uint32_t entryDevice, const std::vector<double>& deviceFree) const;
    // One MILP (or, out of time, the best heuristic) on a subproblem; fills device and times.
    MapResult solve(const MappingProblem& sub, double cutoff = kUnsupported);
    // One MILP over `tasks`; when exitDevice is given, the last task is pinned to it.
    // Pieces that cannot end sooner than `budget` are not needed: returned invalid.
    Piece solveWhole(const std::vector<std::uint32_t>& tasks, std::int64_t entry, std::uint32_t entryDevice,
                     std::optional<std::uint32_t> exitDevice, double budget);
    // The inner tasks in chunks, one after another (they do not depend on the exit's device).
    Piece solveChunks(const std::vector<std::uint32_t>& inner, std::int64_t entry, std::uint32_t entryDevice);
    // Those chunks followed by the exit separator on exitDevice.
    Piece withExit(const Piece& chunks, std::int64_t entry, std::uint32_t entryDevice, std::int64_t exit,
                   std::uint32_t exitDevice);

    const MappingProblem& p_;
    MapperOptions o_;
    Clock::time_point t0_;
    double moduleLimit_ = 1;
    bool exact_ = true;
    bool timedOut_ = false;
    std::size_t solves_ = 0;
    std::vector<std::uint32_t> fixedDevice_;
    std::vector<double> fixedFinish_;
};

std::vector<std::vector<double>> Splitter::releases(const std::vector<std::uint32_t>& tasks, std::int64_t entry,
                                                    std::uint32_t entryDevice,
                                                    const std::vector<double>& deviceFree) const
{
    const std::size_t k = p_.deviceCount();
    std::vector<std::vector<double>> r(tasks.size(), deviceFree);
    for (std::size_t i = 0; i < tasks.size(); ++i)
        for (std::uint32_t q : p_.dag.predecessors[tasks[i]])
            for (std::uint32_t v = 0; v < k; ++v) {
                double arrival = 0;
                if (static_cast<std::int64_t>(q) == entry)
                    arrival = p_.commSeconds(q, entryDevice, v);
                else if (fixedDevice_[q] != UINT32_MAX)
                    arrival = fixedFinish_[q] + p_.commSeconds(q, fixedDevice_[q], v);
                else
                    continue; // inside this piece, or before the entry separator (see the header)
                // No link: the MILP must not pick v; a finite stand-in that no schedule reaches.
                r[i][v] = std::max(r[i][v], std::isfinite(arrival) ? arrival : 1e6);
            }
    return r;
}

MapResult Splitter::solve(const MappingProblem& sub, double cutoff)
{
    ++solves_;
    if (outOfTime()) {
        timedOut_ = true;
        exact_ = false;
        return bestListHeuristic(sub);
    }
    MapperOptions o = o_;
    o.timeLimitSeconds = std::min(moduleLimit_, std::max(0.05, o_.timeLimitSeconds - elapsed()));
    o.cutoffSeconds = cutoff;
    const bool search = o_.moduleSolver == MapperOptions::ModuleSolver::Auto && sub.taskCount() <= kExactSearchMaxTasks;
    MapResult r = search ? mapExactSearch(sub, o) : mapMilp(sub, o);
    if (r.status != SolveStatus::Optimal) {
        exact_ = false;
        timedOut_ = timedOut_ || r.status == SolveStatus::Timeout;
    }
    return r;
}

Piece Splitter::solveWhole(const std::vector<std::uint32_t>& tasks, std::int64_t entry, std::uint32_t entryDevice,
                           std::optional<std::uint32_t> exitDevice, double budget)
{
    Piece piece;
    const std::vector<double> idle(p_.deviceCount(), 0.0);
    MappingProblem sub = subproblem(p_, tasks, releases(tasks, entry, entryDevice, idle));
    if (exitDevice)
        for (std::uint32_t u = 0; u < p_.deviceCount(); ++u)
            if (u != *exitDevice)
                sub.tasks.back().seconds[u] = kUnsupported;
    if (simpleLowerBound(sub) >= budget)
        return piece;
    MapResult r;
    try {
        r = solve(sub, budget);
    } catch (const Error&) {
        return piece; // this (entry, exit) pair is infeasible (memory, links)
    }
    if (r.cutoffProven)
        return piece;
    piece.valid = true;
    piece.value = r.times.makespan;
    for (std::size_t i = 0; i < tasks.size(); ++i)
        piece.placed.emplace_back(tasks[i], r.mapping.device[i]);
    piece.order.assign(p_.deviceCount(), {});
    for (std::uint32_t u = 0; u < p_.deviceCount(); ++u)
        for (std::uint32_t local : r.mapping.order[u])
            piece.order[u].push_back(tasks[local]);
    return piece;
}

Piece Splitter::solveChunks(const std::vector<std::uint32_t>& inner, std::int64_t entry, std::uint32_t entryDevice)
{
    exact_ = false;
    Piece piece;
    piece.order.assign(p_.deviceCount(), {});
    piece.deviceFree.assign(p_.deviceCount(), 0.0);
    piece.value = 0;
    std::vector<std::uint32_t> touched;
    auto cleanup = [&] {
        for (std::uint32_t t : touched)
            fixedDevice_[t] = UINT32_MAX;
    };
    for (const auto& chunk : chunksAlongOrder(p_.dag, inner, o_.maxModuleTasks)) {
        const MappingProblem sub = subproblem(p_, chunk, releases(chunk, entry, entryDevice, piece.deviceFree));
        MapResult r;
        try {
            r = solve(sub);
        } catch (const Error&) {
            cleanup();
            return Piece{};
        }
        for (std::size_t i = 0; i < chunk.size(); ++i) {
            const std::uint32_t u = r.mapping.device[i];
            fixedDevice_[chunk[i]] = u;
            fixedFinish_[chunk[i]] = r.times.finish[i];
            touched.push_back(chunk[i]);
            piece.placed.emplace_back(chunk[i], u);
            piece.finish.push_back(r.times.finish[i]);
            piece.deviceFree[u] = std::max(piece.deviceFree[u], r.times.finish[i]);
            piece.value = std::max(piece.value, r.times.finish[i]);
        }
        for (std::uint32_t u = 0; u < p_.deviceCount(); ++u)
            for (std::uint32_t local : r.mapping.order[u])
                piece.order[u].push_back(chunk[local]);
    }
    cleanup();
    piece.valid = true;
    return piece;
}

Piece Splitter::withExit(const Piece& chunks, std::int64_t entry, std::uint32_t entryDevice, std::int64_t exit,
                         std::uint32_t exitDevice)
{
    if (!chunks.valid || exit < 0)
        return chunks;
    for (std::size_t i = 0; i < chunks.placed.size(); ++i) {
        fixedDevice_[chunks.placed[i].first] = chunks.placed[i].second;
        fixedFinish_[chunks.placed[i].first] = chunks.finish[i];
    }
    const auto x = static_cast<std::uint32_t>(exit);
    const auto r = releases({x}, entry, entryDevice, chunks.deviceFree);
    for (const auto& placed : chunks.placed)
        fixedDevice_[placed.first] = UINT32_MAX;
    if (r[0][exitDevice] >= 1e6 || !std::isfinite(p_.seconds(x, exitDevice)))
        return Piece{};
    Piece piece = chunks;
    piece.placed.emplace_back(x, exitDevice);
    piece.order[exitDevice].push_back(x);
    piece.value = r[0][exitDevice] + p_.seconds(x, exitDevice);
    return piece;
}

void Splitter::polish(MapResult& result)
{
    // Chunks solved one after another cannot see what later chunks need; a local search over
    // single-task device moves, keeping the order the chunks chose, recovers part of that.
    std::vector<std::uint32_t> priority = *topologicalOrder(p_.dag);
    std::stable_sort(priority.begin(), priority.end(), [&](std::uint32_t a, std::uint32_t b) {
        return result.times.start[a] < result.times.start[b];
    });
    const std::size_t n = p_.taskCount(), k = p_.deviceCount();
    if (k < 2)
        return;
    std::vector<std::uint32_t> device = result.mapping.device;
    double best = result.times.makespan;
    SplitMix64 rng(o_.seed ^ 0x5EED5EEDULL);
    const std::uint64_t budget = std::max<std::uint64_t>(5000, 200 * n);
    bool improved = false;
    for (std::uint64_t i = 0; i < budget && !outOfTime(); ++i) {
        const std::size_t t = rng.below(n);
        const std::uint32_t old = device[t];
        device[t] = static_cast<std::uint32_t>((old + 1 + rng.below(k - 1)) % k);
        const double cost = evaluate(p_, mappingWithOrder(p_, device, priority)).makespan;
        if (cost <= best) {
            improved = improved || cost < best;
            best = cost;
        } else {
            device[t] = old;
        }
    }
    if (improved) {
        result.mapping = mappingWithOrder(p_, device, priority);
        result.times = evaluate(p_, result.mapping);
        result.note += "; polished by a local search";
    }
}

MapResult Splitter::run()
{
    p_.validate();
    const std::size_t n = p_.taskCount(), k = p_.deviceCount();
    fixedDevice_.assign(n, UINT32_MAX);
    fixedFinish_.assign(n, 0.0);
    const auto segments = segmentsBetweenSeparators(p_.dag);

    std::size_t milps = 0;
    for (const auto& s : segments)
        if (!s.inner.empty())
            milps += (s.entry >= 0 ? k : 1) * (s.exit >= 0 ? k : 1);
    moduleLimit_ = std::max(0.5, o_.timeLimitSeconds / static_cast<double>(std::max<std::size_t>(1, milps)));

    // dp[u]: earliest finish of the current separator on device u; choice[i][v] = (entry device, piece).
    std::vector<double> dp(1, 0.0); // before the first segment: one state, time 0
    std::vector<std::vector<std::pair<std::uint32_t, Piece>>> choice(segments.size());
    bool firstState = true;
    for (std::size_t i = 0; i < segments.size(); ++i) {
        const Segment& seg = segments[i];
        const std::size_t exits = seg.exit >= 0 ? k : 1;
        std::vector<double> next(exits, kUnsupported);
        choice[i].assign(exits, {0, Piece{}});
        const std::size_t entries = firstState ? 1 : k;
        const bool chunked = seg.inner.size() + 1 > o_.maxModuleTasks;
        // Entries from the cheapest state first, so that later ones can be pruned: a piece whose
        // lower bound (or, proven by the MILP, whose optimum) cannot beat the best total found for
        // this exit is skipped, which keeps the dynamic program exact.
        std::vector<std::uint32_t> byCost(entries);
        for (std::uint32_t d = 0; d < entries; ++d)
            byCost[d] = d;
        std::stable_sort(byCost.begin(), byCost.end(), [&](std::uint32_t a, std::uint32_t b) { return dp[a] < dp[b]; });
        std::vector<std::optional<Piece>> chunkCache(entries);
        for (std::uint32_t e = 0; e < exits; ++e) {
            if (seg.exit >= 0 && !std::isfinite(p_.seconds(static_cast<std::uint32_t>(seg.exit), e)))
                continue;
            for (std::uint32_t d : byCost) {
                if (!std::isfinite(dp[d]))
                    continue;
                const double budget = next[e] - dp[d];
                Piece piece;
                if (chunked) {
                    if (!chunkCache[d])
                        chunkCache[d] = solveChunks(seg.inner, seg.entry, d);
                    piece = withExit(*chunkCache[d], seg.entry, d, seg.exit, e);
                } else if (seg.inner.empty() && seg.exit >= 0) { // a separator right after another
                    const auto x = static_cast<std::uint32_t>(seg.exit);
                    const auto r = releases({x}, seg.entry, d, std::vector<double>(k, 0.0));
                    if (r[0][e] < 1e6) {
                        piece.valid = true;
                        piece.value = r[0][e] + p_.seconds(x, e);
                        piece.placed.emplace_back(x, e);
                        piece.order.assign(k, {});
                        piece.order[e].push_back(x);
                    }
                } else {
                    std::vector<std::uint32_t> tasks = seg.inner;
                    if (seg.exit >= 0)
                        tasks.push_back(static_cast<std::uint32_t>(seg.exit));
                    piece = solveWhole(tasks, seg.entry, d,
                                       seg.exit >= 0 ? std::optional<std::uint32_t>(e) : std::nullopt, budget);
                }
                if (!piece.valid)
                    continue;
                const double total = dp[d] + piece.value;
                if (total < next[e]) {
                    next[e] = total;
                    choice[i][e] = {d, std::move(piece)};
                }
            }
        }
        dp = std::move(next);
        firstState = seg.exit < 0;
        if (std::none_of(dp.begin(), dp.end(), [](double v) { return std::isfinite(v); }))
            throw Error("milp-split: no feasible mapping for the tasks up to " +
                        (seg.exit >= 0 ? p_.tasks[static_cast<std::size_t>(seg.exit)].name : std::string("the end")));
    }

    // Walk the choices back from the best final state.
    Mapping m;
    m.device.assign(n, 0);
    m.order.assign(k, {});
    std::vector<const Piece*> chosen(segments.size(), nullptr);
    std::uint32_t state = static_cast<std::uint32_t>(std::min_element(dp.begin(), dp.end()) - dp.begin());
    for (std::size_t i = segments.size(); i-- > 0;) {
        chosen[i] = &choice[i][state].second;
        state = choice[i][state].first;
    }
    for (const Piece* piece : chosen) {
        for (auto [t, u] : piece->placed)
            m.device[t] = u;
        for (std::uint32_t u = 0; u < k; ++u)
            m.order[u].insert(m.order[u].end(), piece->order[u].begin(), piece->order[u].end());
    }

    MapResult result;
    result.mapper = "milp-split";
    result.times = evaluate(p_, m);
    result.mapping = std::move(m);
    result.note = std::to_string(segments.size()) + " segments, " + std::to_string(solves_) + " module solves";
    if (!result.times.feasible) {
        // Each segment fits on its own, but together they overflow a device's memory.
        result = bestListHeuristic(p_);
        result.mapper = "milp-split";
        result.note = "the modules' mappings together do not fit (" + evaluate(p_, result.mapping).problem +
                      "); fell back to the best heuristic";
        exact_ = false;
    }
    if (!exact_) {
        // Chunks solved one after another are a heuristic; so is everything else that is cheap.
        // Keep the best of the chunked mapping, the best list heuristic and the EA's, each
        // polished, so that milp-split never answers worse than a mapper it could have run.
        std::vector<MapResult> candidates{result};
        candidates.push_back(bestListHeuristic(p_));
        candidates.push_back(mapEvolutionary(p_, o_));
        for (auto& c : candidates)
            polish(c);
        const auto best = std::min_element(candidates.begin(), candidates.end(), [](const MapResult& a, const MapResult& b) {
            return a.times.makespan < b.times.makespan;
        });
        if (best != candidates.begin())
            result.note += "; the polished " + best->mapper + " mapping beat the chunked one";
        result.mapping = best->mapping;
        result.times = best->times;
    }
    if (exact_) {
        result.status = SolveStatus::Optimal;
        result.gap = 0;
    } else {
        result.status = timedOut_ ? SolveStatus::Timeout : SolveStatus::Feasible;
        const double lb = lowerBound(p_);
        result.gap = std::max(0.0, (result.times.makespan - lb) / result.times.makespan);
    }
    result.solveSeconds = elapsed();
    return result;
}

} // namespace

MapResult mapMilpSplit(const MappingProblem& problem, const MapperOptions& options)
{
    if (!milpAvailable())
        return mapMilp(problem, options); // throws the clear "needs CBC" error
    return Splitter(problem, options).run();
}

} // namespace opsched::map
