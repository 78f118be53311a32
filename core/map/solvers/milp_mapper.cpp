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

} // namespace

MapResult mapMilp(const MappingProblem& p, const MapperOptions& options, const std::optional<Mapping>& start)
{
    const auto t0 = Clock::now();
    p.validate();
    const std::size_t n = p.taskCount(), k = p.deviceCount();

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
    // --- symmetry breaking (symmetry_cuts.h): the start relabelled to meet the cuts ---
    const SymmetryClasses symmetry = options.symmetry == Symmetry::None ? SymmetryClasses {} : findSymmetries(p);
    if (!symmetry.empty()) {
        const auto perm = canonicalPermutation(symmetry, latencyValues(p, initial.mapping, options.symmetry));
        initial.mapping = permuteMapping(initial.mapping, perm);
        initial.times = evaluate(p, initial.mapping);
    }
    // --- end symmetry breaking ---
    // Every start time plus duration stays below the makespan, so this upper bound is also a
    // valid big-M for the no-overlap disjunctions.
    const double upper = std::min(initial.times.makespan, options.cutoffSeconds) * kMs * (1 + 1e-6) + 1e-6;
    const bool cutoff = options.cutoffSeconds < initial.times.makespan;

    cbc::Model m;
    // x[t][u]: task t on device u, only where it can run and fits in memory on its own.
    std::vector<std::vector<int>> x(n, std::vector<int>(k, -1));
    for (std::uint32_t t = 0; t < n; ++t)
        for (std::uint32_t u = 0; u < k; ++u)
            if (std::isfinite(p.seconds(t, u)) && p.tasks[t].memoryBytes() <= p.devices[u].memoryBytes)
                x[t][u] = m.addColumn(0, 1, 0, true);
    std::vector<int> s(n);
    for (std::uint32_t t = 0; t < n; ++t)
        s[t] = m.addColumn(0, upper, 0, false);
    const int makespan = m.addColumn(0, upper, 1, false);

    auto cost = [&](std::uint32_t t, std::uint32_t u) { return p.seconds(t, u) * kMs; };
    cbc::Row row;
    // s_t + D_t, D_t = sum_u t(t,u) x_tu
    auto addEnd = [&](std::uint32_t t) {
        row.add(s[t], 1);
        for (std::uint32_t u = 0; u < k; ++u)
            if (x[t][u] >= 0)
                row.add(x[t][u], cost(t, u));
    };

    for (std::uint32_t t = 0; t < n; ++t) {
        row.clear(); // one device each
        for (std::uint32_t u = 0; u < k; ++u)
            if (x[t][u] >= 0)
                row.add(x[t][u], 1);
        if (row.empty())
            throw Error("MILP: task " + p.tasks[t].name + " fits on no device");
        m.addRow(row, 'E', 1);
        row.clear(); // ends before the makespan
        addEnd(t);
        row.add(makespan, -1);
        m.addRow(row, 'L', 0);
        if (!p.release.empty()) { // s_t >= sum_u release(t,u) x_tu
            row.clear();
            row.add(s[t], 1);
            for (std::uint32_t u = 0; u < k; ++u)
                if (x[t][u] >= 0 && p.releaseOf(t, u) > 0)
                    row.add(x[t][u], -p.releaseOf(t, u) * kMs);
            if (row.size() > 1)
                m.addRow(row, 'G', 0);
        }
    }
    // Dependencies: b starts after a ends, plus the transfer when they sit on different devices.
    for (std::uint32_t a = 0; a < n; ++a)
        for (std::uint32_t b : p.dag.successors[a]) {
            row.clear();
            addEnd(a);
            row.add(s[b], -1);
            m.addRow(row, 'L', 0);
            for (std::uint32_t u = 0; u < k; ++u)
                for (std::uint32_t v = 0; v < k; ++v) {
                    if (u == v || x[a][u] < 0 || x[b][v] < 0)
                        continue;
                    const double c = p.commSeconds(a, u, v) * kMs;
                    row.clear();
                    if (!std::isfinite(c)) { // no link: not both
                        row.add(x[a][u], 1);
                        row.add(x[b][v], 1);
                        m.addRow(row, 'L', 1);
                        continue;
                    }
                    if (c <= 0)
                        continue;
                    // s_a + D_a + c (x_au + x_bv - 1) <= s_b
                    row.add(s[a], 1);
                    for (std::uint32_t w = 0; w < k; ++w)
                        if (x[a][w] >= 0)
                            row.add(x[a][w], cost(a, w) + (w == u ? c : 0.0));
                    row.add(x[b][v], c);
                    row.add(s[b], -1);
                    m.addRow(row, 'L', c);
                }
        }
    // Valid inequalities that tighten the LP relaxation a lot (the big-M rows alone say little):
    // every device's load fits in the makespan, and no task starts before its longest chain of
    // predecessors could end (each on its fastest device) nor ends later than the makespan minus
    // its longest chain of successors.
    for (std::uint32_t u = 0; u < k; ++u) {
        row.clear();
        for (std::uint32_t t = 0; t < n; ++t)
            if (x[t][u] >= 0)
                row.add(x[t][u], cost(t, u));
        row.add(makespan, -1);
        if (row.size() > 1)
            m.addRow(row, 'L', 0);
    }
    std::vector<double> head(n, 0.0), tail(n, 0.0); // ms: chains before and after each task
    std::vector<double> fastest(n, kUnsupported); // ms: each task on its fastest device
    {
        const auto topo = *topologicalOrder(p.dag);
        for (std::uint32_t t = 0; t < n; ++t)
            for (std::uint32_t u = 0; u < k; ++u)
                if (x[t][u] >= 0)
                    fastest[t] = std::min(fastest[t], cost(t, u));
        for (std::uint32_t t : topo) {
            double release = kUnsupported;
            for (std::uint32_t u = 0; u < k; ++u)
                if (x[t][u] >= 0)
                    release = std::min(release, p.releaseOf(t, u) * kMs);
            head[t] = std::max(head[t], release);
            for (std::uint32_t q : p.dag.predecessors[t])
                head[t] = std::max(head[t], head[q] + fastest[q]);
        }
        for (auto it = topo.rbegin(); it != topo.rend(); ++it)
            for (std::uint32_t q : p.dag.successors[*it])
                tail[*it] = std::max(tail[*it], fastest[q] + tail[q]);
        for (std::uint32_t t = 0; t < n; ++t) {
            Cbc_setColLower(m.model, s[t], head[t]);
            row.clear(); // s_t + D_t + tail_t <= C
            addEnd(t);
            row.add(makespan, -1);
            m.addRow(row, 'L', -tail[t]);
        }
    }
    // Memory per device.
    for (std::uint32_t u = 0; u < k; ++u) {
        if (!std::isfinite(p.devices[u].memoryBytes))
            continue;
        row.clear();
        double total = 0;
        for (std::uint32_t t = 0; t < n; ++t)
            if (x[t][u] >= 0) {
                row.add(x[t][u], p.tasks[t].memoryBytes() / 1e6);
                total += p.tasks[t].memoryBytes();
            }
        if (total > p.devices[u].memoryBytes)
            m.addRow(row, 'L', p.devices[u].memoryBytes / 1e6);
    }
    // --- symmetry breaking (symmetry_cuts.h): order interchangeable devices and nodes ---
    for (const SymmetryRow& cut : symmetryRows(symmetry, latencyForms(p, x, options.symmetry))) {
        row.cols = cut.cols;
        row.coefs = cut.coefs;
        m.addRow(row, 'L', 0);
    }
    // --- end symmetry breaking ---
    // No overlap on a device. Pairs a path orders need no disjunction: the dependency rows
    // already put one after the other, whatever the devices (exact for latency, where each task
    // is one job). For the others, y_ab = 1 puts a first:
    //   s_a + t_au <= s_b + M (1 - y) + M (2 - x_au - x_bu)
    //   s_b + t_bu <= s_a + M y       + M (2 - x_au - x_bu)
    // with M from the start's makespan, the upper bound every solution stays under.
    const Reachability reach(p.dag);
    struct Pair {
        std::uint32_t a, b;
        int y;
    };
    std::vector<Pair> pairs;
    for (std::uint32_t a = 0; a < n; ++a)
        for (std::uint32_t b = a + 1; b < n; ++b) {
            if (reach.comparable(a, b))
                continue;
            int y = -1;
            for (std::uint32_t u = 0; u < k; ++u) {
                if (x[a][u] < 0 || x[b][u] < 0)
                    continue;
                if (y < 0)
                    y = m.addColumn(0, 1, 0, true);
                // M must hold in every solution the row is to leave free, also those that put a
                // (or b) on another device, where s_a can reach upper - tail_a - fastest_a while
                // the row still charges t_au (a slow device's time). So: s_a + t_au - s_b <=
                // (upper - tail_a - fastest_a) + t_au - head_b = m1; one free term (1 - y, or
                // 1 - x) adds m1, which covers it. Without t_au - fastest_a, a slow device's row
                // cut off feasible schedules of the other devices.
                const double m1 = std::max(0.0, upper - tail[a] - fastest[a] + cost(a, u) - head[b]);
                const double m2 = std::max(0.0, upper - tail[b] - fastest[b] + cost(b, u) - head[a]);
                row.clear();
                row.add(s[a], 1);
                row.add(s[b], -1);
                row.add(y, m1);
                row.add(x[a][u], m1);
                row.add(x[b][u], m1);
                m.addRow(row, 'L', 3 * m1 - cost(a, u));
                row.clear();
                row.add(s[b], 1);
                row.add(s[a], -1);
                row.add(y, -m2);
                row.add(x[a][u], m2);
                row.add(x[b][u], m2);
                m.addRow(row, 'L', 2 * m2 - cost(b, u));
            }
            if (y >= 0)
                pairs.push_back({ a, b, y });
        }

    // Start from the heuristic: its devices and its order of every pair.
    {
        std::vector<int> idx;
        std::vector<double> val;
        for (std::uint32_t t = 0; t < n; ++t)
            for (std::uint32_t u = 0; u < k; ++u)
                if (x[t][u] >= 0) {
                    idx.push_back(x[t][u]);
                    val.push_back(initial.mapping.device[t] == u ? 1.0 : 0.0);
                }
        std::vector<std::size_t> position(n, 0);
        for (const auto& order : initial.mapping.order)
            for (std::size_t i = 0; i < order.size(); ++i)
                position[order[i]] = i;
        for (const Pair& pr : pairs) {
            const auto& st = initial.times.start;
            const bool sameDevice = initial.mapping.device[pr.a] == initial.mapping.device[pr.b];
            const bool aFirst = sameDevice ? position[pr.a] < position[pr.b] : st[pr.a] <= st[pr.b];
            idx.push_back(pr.y);
            val.push_back(aFirst ? 1.0 : 0.0);
        }
        Cbc_setMIPStartI(m.model, static_cast<int>(idx.size()), idx.data(), val.data());
    }

    m.solve(options.timeLimitSeconds, options.logLevel, options.maxNodes);

    MapResult result;
    result.mapper = "milp";
    const double* solution = Cbc_bestSolution(m.model);
    bool improved = false;
    if (solution) {
        Mapping found;
        found.device.assign(n, 0);
        for (std::uint32_t t = 0; t < n; ++t) {
            double best = -1;
            for (std::uint32_t u = 0; u < k; ++u)
                if (x[t][u] >= 0 && solution[x[t][u]] > best) {
                    best = solution[x[t][u]];
                    found.device[t] = u;
                }
        }
        const auto topo = *topologicalOrder(p.dag);
        std::vector<std::size_t> position(n);
        for (std::size_t i = 0; i < n; ++i)
            position[topo[i]] = i;
        std::vector<std::uint32_t> byStart = topo;
        std::stable_sort(byStart.begin(), byStart.end(), [&](std::uint32_t a, std::uint32_t b) {
            const double sa = solution[s[a]], sb = solution[s[b]];
            if (std::abs(sa - sb) > 1e-9)
                return sa < sb;
            return position[a] < position[b];
        });
        found = mappingWithOrder(p, found.device, byStart);
        const MappingTimes times = evaluate(p, found);
        if (times.feasible && times.makespan <= initial.times.makespan) {
            result.mapping = std::move(found);
            result.times = times;
            improved = true;
        }
    }
    if (!improved) {
        result.mapping = initial.mapping;
        result.times = initial.times;
    }
    if (cutoff && !improved && Cbc_isProvenInfeasible(m.model)) {
        result.status = SolveStatus::Optimal;
        result.cutoffProven = true;
    } else if (Cbc_isProvenOptimal(m.model))
        result.status = SolveStatus::Optimal;
    else if (Cbc_isSecondsLimitReached(m.model))
        result.status = SolveStatus::Timeout;
    else if (Cbc_isProvenInfeasible(m.model) && !solution)
        // The start is feasible, so this can only be the solver's tolerance on the bound.
        result.status = SolveStatus::Feasible;
    else
        result.status = SolveStatus::Feasible;
    const double bound = Cbc_getBestPossibleObjValue(m.model) / kMs;
    const double ms = result.times.makespan;
    if (result.status == SolveStatus::Optimal)
        result.gap = 0;
    else if (std::isfinite(bound) && ms > 0)
        result.gap = std::max(0.0, (ms - bound) / ms);
    result.note = "started from " + initial.mapper + " (" + std::to_string(initial.times.makespan * 1e3) + " ms); "
        + std::to_string(pairs.size()) + " ordered pairs, " + std::to_string(m.columns) + " variables";
    result.solveSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return result;
}

#endif

} // namespace opsched::map
