#include "map/solvers/throughput_milp.h"

#include "map/solvers/milp_mapper.h"
#include "map/solvers/symmetry_cuts.h"

#include "util/error.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#ifdef OPSCHED_HAVE_CBC
#include "map/solvers/cbc_model.h"
#endif

namespace opsched::map {

namespace {

// DiviML's MILP has one batch per op and device (a start s[i][u]): free ops choose among the
// splits without pipelined batches; a fixed op keeps its split, pipelined or not (its batches then
// count as one block there, which only overestimates).
[[maybe_unused]] bool allowed(
    const ThroughputProblem& p, const std::vector<std::int64_t>& fixedSplit, std::size_t task, std::size_t split)
{
    if (!fixedSplit.empty() && fixedSplit[task] >= 0)
        return static_cast<std::size_t>(fixedSplit[task]) == split;
    return !p.pipelined(split);
}

std::size_t choices(const ThroughputProblem& p, const std::vector<std::int64_t>& fixedSplit, std::size_t task)
{
    if (!fixedSplit.empty() && fixedSplit[task] >= 0)
        return 1;
    std::size_t whole = 0;
    for (std::size_t s = 0; s < p.splits.size(); ++s)
        whole += !p.pipelined(s);
    return whole;
}

} // namespace

std::size_t throughputMilpRows(const ThroughputProblem& p, const std::vector<std::int64_t>& fixedSplit)
{
    const std::size_t k = p.base.deviceCount();
    std::size_t rows = 0;
    for (std::uint32_t i = 0; i < p.base.taskCount(); ++i)
        for (std::uint32_t j : p.base.dag.successors[i])
            rows += choices(p, fixedSplit, i) * choices(p, fixedSplit, j) * k * k;
    return rows;
}

#ifndef OPSCHED_HAVE_CBC

ThroughputResult mapThroughputMilp(
    const ThroughputProblem&, const MapperOptions&, const ThroughputResult&, const std::vector<std::int64_t>&)
{
    throw Error("the MILP mappers need COIN-OR CBC, which this build does not have "
                "(install coinor-libcbc-dev and configure again)");
}

#else

namespace {

constexpr double kMs = 1e3; // the model's times are in milliseconds

// The throughput MILP on one CBC model, built one family of columns or rows at a time (each add*
// below) in the order mapThroughputMilp calls them; column indices follow that order.
struct ThroughputMilp {
    // A pair of ops a < b; y is the first of its k order columns (one per device).
    struct Pair {
        std::size_t a, b;
        int y;
    };

    const ThroughputProblem& p;
    const std::vector<std::int64_t>& fixedSplit;
    const std::size_t n, k, splits;
    const double upper, bigM;
    cbc::Model m;
    std::vector<std::vector<int>> z; // z[i][s]: op i takes split s (-1: not offered)
    std::vector<std::vector<int>> start_; // start_[i][u]: when op i's batch starts on device u
    int makespan = -1;
    std::vector<Pair> pairs;
    cbc::Row row;

    ThroughputMilp(const ThroughputProblem& problem, const std::vector<std::int64_t>& fixed, double upperBound)
        : p(problem)
        , fixedSplit(fixed)
        , n(problem.base.taskCount())
        , k(problem.base.deviceCount())
        , splits(problem.splits.size())
        , upper(upperBound)
        , bigM(upperBound)
    {
    }

    // Input range of split s on device u (inputs dealt out in device order).
    std::int64_t first(std::size_t s, std::size_t u) const
    {
        std::int64_t f = 0;
        for (std::size_t w = 0; w < u; ++w)
            f += p.splits[s][w];
        return f;
    }
    std::int64_t overlap(std::size_t s, std::size_t u, std::size_t t, std::size_t v) const
    {
        const std::int64_t lo = std::max(first(s, u), first(t, v));
        const std::int64_t hi = std::min(first(s, u) + p.splits[s][u], first(t, v) + p.splits[t][v]);
        return std::max<std::int64_t>(0, hi - lo);
    }
    double cost(std::size_t i, std::size_t s, std::size_t u) const
    {
        return p.blockCost(static_cast<std::uint32_t>(i), s, static_cast<std::uint32_t>(u)) * kMs;
    }

    // z for every split with a finite cost on every device (and that fixedSplit allows), the
    // start times, and the makespan (the objective).
    void addColumns()
    {
        z.assign(n, std::vector<int>(splits, -1));
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t s = 0; s < splits; ++s) {
                bool runs = true;
                for (std::size_t u = 0; u < k; ++u)
                    runs = runs && std::isfinite(cost(i, s, u));
                if (runs && allowed(p, fixedSplit, i, s))
                    z[i][s] = m.addColumn(0, 1, 0, true);
            }
        start_.assign(n, std::vector<int>(k));
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t u = 0; u < k; ++u)
                start_[i][u] = m.addColumn(0, upper, 0, false);
        makespan = m.addColumn(0, upper, 1, false);
    }

    // Each op takes exactly one split, and each of its batches ends by the makespan.
    void addAssignmentRows()
    {
        for (std::size_t i = 0; i < n; ++i) {
            row.clear();
            for (std::size_t s = 0; s < splits; ++s)
                if (z[i][s] >= 0)
                    row.add(z[i][s], 1);
            if (row.empty())
                throw Error("throughput MILP: no split of the inputs runs op " + p.base.tasks[i].name);
            m.addRow(row, 'E', 1);
            for (std::size_t u = 0; u < k; ++u) { // S + D <= C
                row.clear();
                row.add(start_[i][u], 1);
                for (std::size_t s = 0; s < splits; ++s)
                    if (z[i][s] >= 0 && p.splits[s][u])
                        row.add(z[i][s], cost(i, s, u));
                row.add(makespan, -1);
                m.addRow(row, 'L', 0);
            }
        }
    }

    // Dependencies between overlapping batches: S_jv >= S_iu + cost + transfer when both splits hold.
    void addDependencyRows()
    {
        for (std::uint32_t i = 0; i < n; ++i)
            for (std::uint32_t j : p.base.dag.successors[i])
                for (std::size_t s = 0; s < splits; ++s)
                    for (std::size_t t = 0; t < splits; ++t) {
                        if (z[i][s] < 0 || z[j][t] < 0)
                            continue;
                        for (std::size_t u = 0; u < k; ++u)
                            for (std::size_t v = 0; v < k; ++v)
                                addDependencyRow(i, j, s, t, u, v);
                    }
    }

    // The row for op i's batch of split s on device u feeding op j's batch of split t on v.
    void addDependencyRow(std::uint32_t i, std::uint32_t j, std::size_t s, std::size_t t, std::size_t u, std::size_t v)
    {
        const std::int64_t shared = p.splits[s][u] && p.splits[t][v] ? overlap(s, u, t, v) : 0;
        if (!shared)
            return;
        double transfer = 0;
        if (u != v) {
            const Link& link = p.base.links[u][v];
            if (!link.connected()) { // not both
                row.clear();
                row.add(z[i][s], 1);
                row.add(z[j][t], 1);
                m.addRow(row, 'L', 1);
                return;
            }
            transfer = (link.latencySeconds
                           + static_cast<double>(shared) * p.base.tasks[i].outputBytes / link.bandwidthBytesPerSecond)
                * kMs;
        }
        // M covers cost + transfer too: with one of the splits not chosen,
        // S_iu (its actual batch) + this split's cost may exceed the makespan.
        const double mRow = bigM + cost(i, s, u) + transfer;
        row.clear();
        row.add(start_[i][u], 1);
        row.add(start_[j][v], -1);
        row.add(z[i][s], mRow);
        row.add(z[j][t], mRow);
        m.addRow(row, 'L', 2 * mRow - cost(i, s, u) - transfer);
    }

    // One batch at a time per device: for every pair of ops with batches on u, y[u] orders them
    // there (a pair may share several devices, in either order on each).
    void addDeviceOrderRows()
    {
        for (std::size_t a = 0; a < n; ++a)
            for (std::size_t b = a + 1; b < n; ++b) {
                const int firstY = m.columns;
                for (std::size_t u = 0; u < k; ++u) {
                    const int y = m.addColumn(0, 1, 0, true);
                    // S_a + D_a <= S_b + M (1 - y) + M (2 - P_a - P_b), P = presence on u
                    row.clear();
                    row.add(start_[a][u], 1);
                    row.add(start_[b][u], -1);
                    row.add(y, bigM);
                    for (std::size_t s = 0; s < splits; ++s) {
                        if (z[a][s] >= 0)
                            row.add(z[a][s], cost(a, s, u) + (p.splits[s][u] ? bigM : 0.0));
                        if (z[b][s] >= 0 && p.splits[s][u])
                            row.add(z[b][s], bigM);
                    }
                    m.addRow(row, 'L', 3 * bigM);
                    row.clear();
                    row.add(start_[b][u], 1);
                    row.add(start_[a][u], -1);
                    row.add(y, -bigM);
                    for (std::size_t s = 0; s < splits; ++s) {
                        if (z[b][s] >= 0)
                            row.add(z[b][s], cost(b, s, u) + (p.splits[s][u] ? bigM : 0.0));
                        if (z[a][s] >= 0 && p.splits[s][u])
                            row.add(z[a][s], bigM);
                    }
                    m.addRow(row, 'L', 2 * bigM);
                }
                pairs.push_back({ a, b, firstY });
            }
    }

    // Memory: every input's activations and the weights of each op with a batch there.
    void addMemoryRows()
    {
        for (std::size_t u = 0; u < k; ++u) {
            if (!std::isfinite(p.base.devices[u].memoryBytes))
                continue;
            row.clear();
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t s = 0; s < splits; ++s)
                    if (z[i][s] >= 0 && p.splits[s][u]) {
                        const MapTask& task = p.base.tasks[i];
                        row.add(z[i][s],
                            (static_cast<double>(p.splits[s][u]) * (task.inputBytes + task.outputBytes)
                                + task.weightBytes)
                                / 1e6);
                    }
            if (!row.empty())
                m.addRow(row, 'L', p.base.devices[u].memoryBytes / 1e6);
        }
    }

    // --- symmetry breaking (symmetry_cuts.h): interchangeable devices and nodes ordered
    // as the start has them, so the start meets the cuts ---
    void addSymmetryCuts(Symmetry symmetry, const ThroughputMapping& startMapping)
    {
        if (symmetry == Symmetry::None)
            return;
        const auto costOf = [this](std::size_t i, std::size_t s, std::size_t u) { return cost(i, s, u); };
        const auto classes = orientedBy(findSymmetries(p), throughputValues(p, startMapping, symmetry, costOf));
        for (const SymmetryRow& cut : symmetryRows(classes, throughputForms(p, z, symmetry, costOf))) {
            row.cols = cut.cols;
            row.coefs = cut.coefs;
            m.addRow(row, 'L', 0);
        }
    }
    // --- end symmetry breaking ---

    // Start from the heuristic: its splits, and each pair in the order its batches start on each
    // device (orders may differ between devices; one order for all would make the start infeasible).
    void setMipStart(const ThroughputResult& start)
    {
        std::vector<int> idx;
        std::vector<double> val;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t s = 0; s < splits; ++s)
                if (z[i][s] >= 0) {
                    idx.push_back(z[i][s]);
                    val.push_back(start.mapping.split[i] == s ? 1.0 : 0.0);
                }
        for (const Pair& pr : pairs)
            for (std::size_t u = 0; u < k; ++u) {
                idx.push_back(pr.y + static_cast<int>(u));
                val.push_back(start.times.start[pr.a][u] <= start.times.start[pr.b][u] ? 1.0 : 0.0);
            }
        Cbc_setMIPStartI(m.model, static_cast<int>(idx.size()), idx.data(), val.data());
    }

    // The mapping a solution describes: each op's most chosen split, and on each device the ops
    // with a batch there in the order their batches start (topological among equal starts).
    ThroughputMapping mappingOf(const double* solution) const
    {
        std::vector<std::uint32_t> split(n, 0);
        for (std::size_t i = 0; i < n; ++i) {
            double best = -1;
            for (std::size_t s = 0; s < splits; ++s)
                if (z[i][s] >= 0 && solution[z[i][s]] > best) {
                    best = solution[z[i][s]];
                    split[i] = static_cast<std::uint32_t>(s);
                }
        }
        ThroughputMapping found;
        found.split = split;
        found.order.assign(k, {});
        const auto topo = *topologicalOrder(p.base.dag);
        for (std::size_t u = 0; u < k; ++u) {
            for (std::uint32_t i : topo)
                if (p.splits[split[i]][u])
                    found.order[u].push_back(i);
            std::stable_sort(found.order[u].begin(), found.order[u].end(), [&](std::uint32_t a, std::uint32_t b) {
                return solution[start_[a][u]] < solution[start_[b][u]] - 1e-9;
            });
        }
        return found;
    }
};

} // namespace

ThroughputResult mapThroughputMilp(const ThroughputProblem& p, const MapperOptions& options,
    const ThroughputResult& start, const std::vector<std::int64_t>& fixedSplit)
{
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    const double upper = start.times.makespan * kMs * (1 + 1e-6) + 1e-6;
    const std::size_t dependencyRows = throughputMilpRows(p, fixedSplit);
    if (dependencyRows > kThroughputMilpMaxRows)
        throw Error("the throughput MILP of this model would have over " + std::to_string(dependencyRows)
            + " dependency rows (ops x splits^2 x devices^2): use milp-split or the heuristic mappers");

    ThroughputMilp milp(p, fixedSplit, upper);
    milp.addColumns();
    milp.addAssignmentRows();
    milp.addDependencyRows();
    milp.addDeviceOrderRows();
    milp.addMemoryRows();
    milp.addSymmetryCuts(options.symmetry, start.mapping);
    milp.setMipStart(start);
    cbc::Model& m = milp.m;
    // No CglPreProcess: CBC 2.10.8 crashed in its postProcess on these models when the time limit
    // fell during the solve (seen on milp-split's windows); these MILPs gain little from it.
    Cbc_setParameter(m.model, "preprocess", "off");
    m.solve(options.timeLimitSeconds, options.logLevel, options.maxNodes);

    ThroughputResult result = start;
    result.mapper = "milp";
    if (const double* solution = Cbc_bestSolution(m.model)) {
        ThroughputMapping found = milp.mappingOf(solution);
        const ThroughputTimes times = evaluate(p, found);
        if (times.feasible && times.makespan <= start.times.makespan) {
            result.mapping = std::move(found);
            result.times = times;
        }
    }
    // Proven over one batch per op and device; with pipelined splits on offer that is not all schedules.
    const bool allSplits = std::none_of(p.splits.begin(), p.splits.end(),
        [&](const auto& s) { return p.pipelined(static_cast<std::size_t>(&s - p.splits.data())); });
    result.status = Cbc_isProvenOptimal(m.model) && allSplits ? SolveStatus::Optimal
        : Cbc_isSecondsLimitReached(m.model)                  ? SolveStatus::Timeout
                                                              : SolveStatus::Feasible;
    const double bound = Cbc_getBestPossibleObjValue(m.model) / kMs;
    result.gap = result.status == SolveStatus::Optimal ? 0.0
        : std::isfinite(bound) ? std::max(0.0, (result.times.makespan - bound) / result.times.makespan)
                               : std::nan("");
    result.solveSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return result;
}

#endif

} // namespace opsched::map
