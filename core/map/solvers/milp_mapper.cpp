#include "map/solvers/milp_mapper.h"

#include "map/solvers/heuristic_mappers.h"
#include "map/solvers/symmetry_cuts.h"

#include "graph/reachability.h"
#include "util/error.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#ifdef OPSCHED_HAVE_CBC
#include "map/solvers/cbc_model.h"
#endif

namespace opsched::map {

#ifndef OPSCHED_HAVE_CBC

bool milpAvailable()
{
    return false;
}

MapResult mapMilp(const MappingProblem&, const MapperOptions&, const std::optional<Mapping>&)
{
    throw Error("the MILP mappers need COIN-OR CBC, which this build does not have "
                "(install coinor-libcbc-dev and configure again)");
}

#else

bool milpAvailable()
{
    return true;
}

namespace {

using Clock = std::chrono::steady_clock;

constexpr double kMs = 1e3; // seconds -> the model's milliseconds

// The start: the given mapping or the best list heuristic, relabelled to meet the symmetry cuts.
MapResult startMapping(const MappingProblem& p, const std::optional<Mapping>& start, const SymmetryClasses& symmetry,
    MapperOptions::Symmetry kind)
{
    MapResult initial;
    if (start) {
        initial.mapping = *start;
        initial.times = evaluate(p, *start);
        if (!initial.times.feasible)
            throw Error("the MILP's start mapping is infeasible: " + initial.times.problem);
        initial.mapper = "start";
    } else {
        initial = bestListHeuristic(p);
    }
    if (!symmetry.empty()) {
        const auto perm = canonicalPermutation(symmetry, latencyValues(p, initial.mapping, kind));
        initial.mapping = permuteMapping(initial.mapping, perm);
        initial.times = evaluate(p, initial.mapping);
    }
    return initial;
}

// The latency MILP over one problem, built row family by row family (milp_mapper.h has the model).
class LatencyMilp {
public:
    LatencyMilp(const MappingProblem& p, const MapperOptions& options, MapResult initial)
        : p_(p)
        , options_(options)
        , n_(p.taskCount())
        , k_(p.deviceCount())
        , initial_(std::move(initial))
        // Every start time plus duration stays below the makespan, so this upper bound is also a
        // valid big-M for the no-overlap disjunctions.
        , upper_(std::min(initial_.times.makespan, options.cutoffSeconds) * kMs * (1 + 1e-6) + 1e-6)
    {
    }

    MapResult solve(const SymmetryClasses& symmetry)
    {
        addColumns();
        addAssignmentRows();
        addDependencyRows();
        addValidInequalities();
        addMemoryRows();
        for (const SymmetryRow& cut : symmetryRows(symmetry, latencyForms(p_, x_, options_.symmetry))) {
            row_.cols = cut.cols;
            row_.coefs = cut.coefs;
            m_.addRow(row_, 'L', 0);
        }
        addNoOverlapRows();
        setStart();
        m_.solve(options_.timeLimitSeconds, options_.logLevel, options_.maxNodes);
        return result();
    }

private:
    struct Pair {
        std::uint32_t a, b;
        int y;
    };

    double cost(std::uint32_t t, std::uint32_t u) const { return p_.seconds(t, u) * kMs; }

    // s_t + D_t, D_t = sum_u t(t,u) x_tu
    void addEnd(std::uint32_t t)
    {
        row_.add(s_[t], 1);
        for (std::uint32_t u = 0; u < k_; ++u)
            if (x_[t][u] >= 0)
                row_.add(x_[t][u], cost(t, u));
    }

    // x[t][u]: task t on device u, only where it can run and fits in memory on its own; s[t]: its
    // start; the makespan.
    void addColumns()
    {
        x_.assign(n_, std::vector<int>(k_, -1));
        for (std::uint32_t t = 0; t < n_; ++t)
            for (std::uint32_t u = 0; u < k_; ++u)
                if (std::isfinite(p_.seconds(t, u)) && p_.tasks[t].memoryBytes() <= p_.devices[u].memoryBytes)
                    x_[t][u] = m_.addColumn(0, 1, 0, true);
        s_.resize(n_);
        for (std::uint32_t t = 0; t < n_; ++t)
            s_[t] = m_.addColumn(0, upper_, 0, false);
        makespan_ = m_.addColumn(0, upper_, 1, false);
    }

    // One device per task; each ends before the makespan and starts after its release.
    void addAssignmentRows()
    {
        for (std::uint32_t t = 0; t < n_; ++t) {
            row_.clear();
            for (std::uint32_t u = 0; u < k_; ++u)
                if (x_[t][u] >= 0)
                    row_.add(x_[t][u], 1);
            if (row_.empty())
                throw Error("MILP: task " + p_.tasks[t].name + " fits on no device");
            m_.addRow(row_, 'E', 1);
            row_.clear();
            addEnd(t);
            row_.add(makespan_, -1);
            m_.addRow(row_, 'L', 0);
            if (!p_.release.empty()) { // s_t >= sum_u release(t,u) x_tu
                row_.clear();
                row_.add(s_[t], 1);
                for (std::uint32_t u = 0; u < k_; ++u)
                    if (x_[t][u] >= 0 && p_.releaseOf(t, u) > 0)
                        row_.add(x_[t][u], -p_.releaseOf(t, u) * kMs);
                if (row_.size() > 1)
                    m_.addRow(row_, 'G', 0);
            }
        }
    }

    // Dependencies: b starts after a ends, plus the transfer when they sit on different devices.
    void addDependencyRows()
    {
        for (std::uint32_t a = 0; a < n_; ++a)
            for (std::uint32_t b : p_.dag.successors[a]) {
                row_.clear();
                addEnd(a);
                row_.add(s_[b], -1);
                m_.addRow(row_, 'L', 0);
                for (std::uint32_t u = 0; u < k_; ++u)
                    for (std::uint32_t v = 0; v < k_; ++v)
                        if (u != v && x_[a][u] >= 0 && x_[b][v] >= 0)
                            addTransferRow(a, b, u, v);
            }
    }

    void addTransferRow(std::uint32_t a, std::uint32_t b, std::uint32_t u, std::uint32_t v)
    {
        const double c = p_.commSeconds(a, u, v) * kMs;
        row_.clear();
        if (!std::isfinite(c)) { // no link: not both
            row_.add(x_[a][u], 1);
            row_.add(x_[b][v], 1);
            m_.addRow(row_, 'L', 1);
            return;
        }
        if (c <= 0)
            return;
        // s_a + D_a + c (x_au + x_bv - 1) <= s_b
        row_.add(s_[a], 1);
        for (std::uint32_t w = 0; w < k_; ++w)
            if (x_[a][w] >= 0)
                row_.add(x_[a][w], cost(a, w) + (w == u ? c : 0.0));
        row_.add(x_[b][v], c);
        row_.add(s_[b], -1);
        m_.addRow(row_, 'L', c);
    }

    // Valid inequalities that tighten the LP relaxation a lot (the big-M rows alone say little):
    // every device's load fits in the makespan, and no task starts before its longest chain of
    // predecessors could end (each on its fastest device) nor ends later than the makespan minus
    // its longest chain of successors.
    void addValidInequalities()
    {
        for (std::uint32_t u = 0; u < k_; ++u) {
            row_.clear();
            for (std::uint32_t t = 0; t < n_; ++t)
                if (x_[t][u] >= 0)
                    row_.add(x_[t][u], cost(t, u));
            row_.add(makespan_, -1);
            if (row_.size() > 1)
                m_.addRow(row_, 'L', 0);
        }
        head_.assign(n_, 0.0);
        tail_.assign(n_, 0.0);
        fastest_.assign(n_, kUnsupported);
        const auto topo = *topologicalOrder(p_.dag);
        for (std::uint32_t t = 0; t < n_; ++t)
            for (std::uint32_t u = 0; u < k_; ++u)
                if (x_[t][u] >= 0)
                    fastest_[t] = std::min(fastest_[t], cost(t, u));
        for (std::uint32_t t : topo) {
            double release = kUnsupported;
            for (std::uint32_t u = 0; u < k_; ++u)
                if (x_[t][u] >= 0)
                    release = std::min(release, p_.releaseOf(t, u) * kMs);
            head_[t] = std::max(head_[t], release);
            for (std::uint32_t q : p_.dag.predecessors[t])
                head_[t] = std::max(head_[t], head_[q] + fastest_[q]);
        }
        for (auto it = topo.rbegin(); it != topo.rend(); ++it)
            for (std::uint32_t q : p_.dag.successors[*it])
                tail_[*it] = std::max(tail_[*it], fastest_[q] + tail_[q]);
        for (std::uint32_t t = 0; t < n_; ++t) {
            Cbc_setColLower(m_.model, s_[t], head_[t]);
            row_.clear(); // s_t + D_t + tail_t <= C
            addEnd(t);
            row_.add(makespan_, -1);
            m_.addRow(row_, 'L', -tail_[t]);
        }
    }

    // Memory per device, where the tasks that may go there could exceed it.
    void addMemoryRows()
    {
        for (std::uint32_t u = 0; u < k_; ++u) {
            if (!std::isfinite(p_.devices[u].memoryBytes))
                continue;
            row_.clear();
            double total = 0;
            for (std::uint32_t t = 0; t < n_; ++t)
                if (x_[t][u] >= 0) {
                    row_.add(x_[t][u], p_.tasks[t].memoryBytes() / 1e6);
                    total += p_.tasks[t].memoryBytes();
                }
            if (total > p_.devices[u].memoryBytes)
                m_.addRow(row_, 'L', p_.devices[u].memoryBytes / 1e6);
        }
    }

    // No overlap on a device. Pairs a path orders need no disjunction: the dependency rows
    // already put one after the other, whatever the devices (exact for latency, where each task
    // is one job). For the others, y_ab = 1 puts a first:
    //   s_a + t_au <= s_b + M (1 - y) + M (2 - x_au - x_bu)
    //   s_b + t_bu <= s_a + M y       + M (2 - x_au - x_bu)
    // with M from the start's makespan, the upper bound every solution stays under.
    void addNoOverlapRows()
    {
        const Reachability reach(p_.dag);
        for (std::uint32_t a = 0; a < n_; ++a)
            for (std::uint32_t b = a + 1; b < n_; ++b) {
                if (reach.comparable(a, b))
                    continue;
                int y = -1;
                for (std::uint32_t u = 0; u < k_; ++u) {
                    if (x_[a][u] < 0 || x_[b][u] < 0)
                        continue;
                    if (y < 0)
                        y = m_.addColumn(0, 1, 0, true);
                    addDisjunction(a, b, u, y);
                }
                if (y >= 0)
                    pairs_.push_back({ a, b, y });
            }
    }

    void addDisjunction(std::uint32_t a, std::uint32_t b, std::uint32_t u, int y)
    {
        // M must hold in every solution the row is to leave free, also those that put a (or b) on
        // another device, where s_a can reach upper - tail_a - fastest_a while the row still
        // charges t_au (a slow device's time). So: s_a + t_au - s_b <= (upper - tail_a -
        // fastest_a) + t_au - head_b = m1; one free term (1 - y, or 1 - x) adds m1, which covers
        // it. Without t_au - fastest_a, a slow device's row cut off feasible schedules of the
        // other devices.
        const double m1 = std::max(0.0, upper_ - tail_[a] - fastest_[a] + cost(a, u) - head_[b]);
        const double m2 = std::max(0.0, upper_ - tail_[b] - fastest_[b] + cost(b, u) - head_[a]);
        row_.clear();
        row_.add(s_[a], 1);
        row_.add(s_[b], -1);
        row_.add(y, m1);
        row_.add(x_[a][u], m1);
        row_.add(x_[b][u], m1);
        m_.addRow(row_, 'L', 3 * m1 - cost(a, u));
        row_.clear();
        row_.add(s_[b], 1);
        row_.add(s_[a], -1);
        row_.add(y, -m2);
        row_.add(x_[a][u], m2);
        row_.add(x_[b][u], m2);
        m_.addRow(row_, 'L', 2 * m2 - cost(b, u));
    }

    // Start from the heuristic: its devices and its order of every pair.
    void setStart()
    {
        std::vector<int> idx;
        std::vector<double> val;
        for (std::uint32_t t = 0; t < n_; ++t)
            for (std::uint32_t u = 0; u < k_; ++u)
                if (x_[t][u] >= 0) {
                    idx.push_back(x_[t][u]);
                    val.push_back(initial_.mapping.device[t] == u ? 1.0 : 0.0);
                }
        std::vector<std::size_t> position(n_, 0);
        for (const auto& order : initial_.mapping.order)
            for (std::size_t i = 0; i < order.size(); ++i)
                position[order[i]] = i;
        for (const Pair& pr : pairs_) {
            const auto& st = initial_.times.start;
            const bool sameDevice = initial_.mapping.device[pr.a] == initial_.mapping.device[pr.b];
            const bool aFirst = sameDevice ? position[pr.a] < position[pr.b] : st[pr.a] <= st[pr.b];
            idx.push_back(pr.y);
            val.push_back(aFirst ? 1.0 : 0.0);
        }
        Cbc_setMIPStartI(m_.model, static_cast<int>(idx.size()), idx.data(), val.data());
    }

    // The solver's mapping (devices, and each device's tasks by start time), when it is feasible
    // and no slower than the start.
    std::optional<MapResult> solverMapping(const double* solution) const
    {
        Mapping found;
        found.device.assign(n_, 0);
        for (std::uint32_t t = 0; t < n_; ++t) {
            double best = -1;
            for (std::uint32_t u = 0; u < k_; ++u)
                if (x_[t][u] >= 0 && solution[x_[t][u]] > best) {
                    best = solution[x_[t][u]];
                    found.device[t] = u;
                }
        }
        const auto topo = *topologicalOrder(p_.dag);
        std::vector<std::size_t> position(n_);
        for (std::size_t i = 0; i < n_; ++i)
            position[topo[i]] = i;
        std::vector<std::uint32_t> byStart = topo;
        std::stable_sort(byStart.begin(), byStart.end(), [&](std::uint32_t a, std::uint32_t b) {
            const double sa = solution[s_[a]], sb = solution[s_[b]];
            if (std::abs(sa - sb) > 1e-9)
                return sa < sb;
            return position[a] < position[b];
        });
        found = mappingWithOrder(p_, found.device, byStart);
        const MappingTimes times = evaluate(p_, found);
        if (!times.feasible || times.makespan > initial_.times.makespan)
            return std::nullopt;
        MapResult r;
        r.mapping = std::move(found);
        r.times = times;
        return r;
    }

    MapResult result()
    {
        const double* solution = Cbc_bestSolution(m_.model);
        std::optional<MapResult> found = solution ? solverMapping(solution) : std::nullopt;
        const bool improved = found.has_value();
        MapResult result;
        result.mapping = improved ? std::move(found->mapping) : initial_.mapping;
        result.times = improved ? found->times : initial_.times;
        result.mapper = "milp";
        result.status = SolveStatus::Feasible; // also when CBC calls the start infeasible: its tolerance on the bound
        if (options_.cutoffSeconds < initial_.times.makespan && !improved && Cbc_isProvenInfeasible(m_.model)) {
            result.status = SolveStatus::Optimal;
            result.cutoffProven = true;
        } else if (Cbc_isProvenOptimal(m_.model))
            result.status = SolveStatus::Optimal;
        else if (Cbc_isSecondsLimitReached(m_.model))
            result.status = SolveStatus::Timeout;
        const double bound = Cbc_getBestPossibleObjValue(m_.model) / kMs;
        const double ms = result.times.makespan;
        if (result.status == SolveStatus::Optimal)
            result.gap = 0;
        else if (std::isfinite(bound) && ms > 0)
            result.gap = std::max(0.0, (ms - bound) / ms);
        result.note = "started from " + initial_.mapper + " (" + std::to_string(initial_.times.makespan * 1e3)
            + " ms); " + std::to_string(pairs_.size()) + " ordered pairs, " + std::to_string(m_.columns) + " variables";
        return result;
    }

    const MappingProblem& p_;
    const MapperOptions& options_;
    const std::size_t n_, k_;
    const MapResult initial_;
    const double upper_;
    cbc::Model m_;
    cbc::Row row_;
    std::vector<std::vector<int>> x_;
    std::vector<int> s_;
    int makespan_ = -1;
    std::vector<double> head_, tail_, fastest_; // ms: chains before and after each task, its fastest time
    std::vector<Pair> pairs_;
};

} // namespace

MapResult mapMilp(const MappingProblem& p, const MapperOptions& options, const std::optional<Mapping>& start)
{
    const auto t0 = Clock::now();
    p.validate();
    const SymmetryClasses symmetry = options.symmetry == Symmetry::None ? SymmetryClasses {} : findSymmetries(p);
    MapResult result = LatencyMilp(p, options, startMapping(p, start, symmetry, options.symmetry)).solve(symmetry);
    result.solveSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return result;
}

#endif

} // namespace opsched::map
