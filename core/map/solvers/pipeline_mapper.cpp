#include "map/solvers/pipeline_mapper.h"

#include "map/problem/modules.h"
#include "map/solvers/symmetry_cuts.h"

#include "util/error.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <tuple>

#ifdef OPSCHED_HAVE_CBC
#include "map/solvers/cbc_model.h"
#endif

namespace opsched::map {
namespace {

using Clock = std::chrono::steady_clock;

// The state a window starts from: each device's work per input and memory already placed.
struct Loads {
    std::vector<double> busy, memory;
};

bool fits(const MappingProblem& p, const Loads& l, std::uint32_t t, std::uint32_t u)
{
    return std::isfinite(p.seconds(t, u)) && l.memory[u] + p.tasks[t].memoryBytes() <= p.devices[u].memoryBytes;
}

// Greedy placement of `tasks` (topological order) from `loads`: each where the largest load after
// it is smallest, then where it runs fastest. Updates `loads`; false when a task fits nowhere.
bool greedyPlace(
    const MappingProblem& p, const std::vector<std::uint32_t>& tasks, Loads& loads, std::vector<std::uint32_t>& device)
{
    for (std::uint32_t t : tasks) {
        double bestPeriod = kUnsupported, bestCost = kUnsupported;
        std::int64_t best = -1;
        for (std::uint32_t u = 0; u < p.deviceCount(); ++u) {
            if (!fits(p, loads, t, u))
                continue;
            const double after = loads.busy[u] + p.seconds(t, u);
            if (after < bestPeriod - 1e-15 || (after <= bestPeriod + 1e-15 && p.seconds(t, u) < bestCost)) {
                bestPeriod = after;
                bestCost = p.seconds(t, u);
                best = u;
            }
        }
        if (best < 0)
            return false;
        device[t] = static_cast<std::uint32_t>(best);
        loads.busy[best] += p.seconds(t, static_cast<std::uint32_t>(best));
        loads.memory[best] += p.tasks[t].memoryBytes();
    }
    return true;
}

struct WindowOutcome {
    bool optimal = false, timedOut = false;
    std::size_t cuts = 0;
    double compression = 1;
};

#ifdef OPSCHED_HAVE_CBC

// The window's problem as symmetry_cuts.h sees it: devices' remaining memory and current loads
// (as release times) make devices with different histories different.
MappingProblem windowView(const MappingProblem& p, const std::vector<std::uint32_t>& tasks, const Loads& loads)
{
    MappingProblem v;
    v.devices = p.devices;
    for (std::uint32_t u = 0; u < p.deviceCount(); ++u)
        v.devices[u].memoryBytes = p.devices[u].memoryBytes - loads.memory[u];
    v.links = p.links;
    for (std::uint32_t t : tasks) {
        v.tasks.push_back(p.tasks[t]);
        v.release.push_back(loads.busy);
    }
    return v;
}

// min period over `tasks` given `loads`, warm-started from `device` (their greedy placement),
// which it overwrites when the solver finds better.
WindowOutcome solveWindow(const MappingProblem& p, const std::vector<std::uint32_t>& tasks, const Loads& loads,
    std::vector<std::uint32_t>& device, const MapperOptions& o, double seconds, const std::vector<bool>& allowed = {})
{
    constexpr double kMs = 1e3, kWork = 1e-3; // objective: period + kWork x total work (fast devices first)
    const std::size_t n = tasks.size(), k = p.deviceCount();
    cbc::Model m;
    std::vector<std::vector<int>> x(n, std::vector<int>(k, -1));
    for (std::size_t i = 0; i < n; ++i)
        for (std::uint32_t u = 0; u < k; ++u)
            if (fits(p, loads, tasks[i], u) && (allowed.empty() || allowed[u]))
                x[i][u] = m.addColumn(0, 1, kWork * p.seconds(tasks[i], u) * kMs, true);
    const int period = m.addColumn(0, kUnsupported, 1, false);
    cbc::Row row;
    for (std::size_t i = 0; i < n; ++i) {
        row.clear();
        for (std::uint32_t u = 0; u < k; ++u)
            if (x[i][u] >= 0)
                row.add(x[i][u], 1);
        m.addRow(row, 'E', 1);
    }
    for (std::uint32_t u = 0; u < k; ++u) {
        // Devices left out of the window keep their load whatever it does: without their rows the
        // period is the window's own devices' (resolveNodes: two nodes made faster than the rest,
        // which a later round then relieves; with their rows nothing below a tie would be found).
        if (!allowed.empty() && !allowed[u])
            continue;
        row.clear(); // loads[u] + work <= period
        for (std::size_t i = 0; i < n; ++i)
            if (x[i][u] >= 0)
                row.add(x[i][u], p.seconds(tasks[i], u) * kMs);
        row.add(period, -1);
        m.addRow(row, 'L', -loads.busy[u] * kMs);
        if (!std::isfinite(p.devices[u].memoryBytes))
            continue;
        row.clear(); // memory, in MB
        for (std::size_t i = 0; i < n; ++i)
            if (x[i][u] >= 0)
                row.add(x[i][u], p.tasks[tasks[i]].memoryBytes() / 1e6);
        if (!row.empty())
            m.addRow(row, 'L', (p.devices[u].memoryBytes - loads.memory[u]) / 1e6);
    }
    WindowOutcome out;
    // --- symmetry breaking (symmetry_cuts.h), oriented so the warm start meets it ---
    if (o.symmetry != Symmetry::None) {
        MappingProblem view = windowView(p, tasks, loads);
        for (std::uint32_t u = 0; u < k; ++u) // devices left out are like no other (no false classes)
            if (!allowed.empty() && !allowed[u])
                for (auto& t : view.tasks)
                    t.seconds[u] = kUnsupported;
        std::vector<double> value(k, 0.0);
        for (std::size_t i = 0; i < n; ++i)
            value[device[tasks[i]]] += o.symmetry == Symmetry::Time ? p.seconds(tasks[i], device[tasks[i]]) * kMs : 1.0;
        const auto classes = orientedBy(findSymmetries(view), value);
        out.compression = classes.compression();
        for (const SymmetryRow& cut : symmetryRows(classes, latencyForms(view, x, o.symmetry))) {
            row.cols = cut.cols;
            row.coefs = cut.coefs;
            m.addRow(row, 'L', 0);
            ++out.cuts;
        }
    }
    // --- end symmetry breaking ---
    std::vector<int> idx;
    std::vector<double> val;
    for (std::size_t i = 0; i < n; ++i)
        for (std::uint32_t u = 0; u < k; ++u)
            if (x[i][u] >= 0) {
                idx.push_back(x[i][u]);
                val.push_back(device[tasks[i]] == u ? 1.0 : 0.0);
            }
    Cbc_setMIPStartI(m.model, static_cast<int>(idx.size()), idx.data(), val.data());
    // CBC 2.10 aborted once (a CLP assertion in the dual simplex, window unknown) in a 600 s
    // multi-node run, whose many small windows get fractions of a second each: those gain
    // nothing from preprocessing, which a stop mid-way is known to upset (the throughput MILP
    // turned it off after segfaults there). The long single-node MILP keeps it.
    if (seconds < 2)
        Cbc_setParameter(m.model, "preprocess", "off");
    m.solve(seconds, o.logLevel, o.maxNodes);
    out.optimal = Cbc_isProvenOptimal(m.model) != 0;
    out.timedOut = Cbc_isSecondsLimitReached(m.model) != 0;
    const double* solution = Cbc_bestSolution(m.model);
    if (!solution)
        return out;
    // Kept only when the period (then the window's devices' own largest load, then its work) is no
    // worse than the start's.
    auto score = [&](const std::vector<std::uint32_t>& d) {
        std::vector<double> busy = loads.busy;
        double work = 0;
        for (std::size_t i = 0; i < n; ++i) {
            busy[d[tasks[i]]] += p.seconds(tasks[i], d[tasks[i]]);
            work += p.seconds(tasks[i], d[tasks[i]]);
        }
        double own = 0;
        for (std::uint32_t u = 0; u < k; ++u)
            if (allowed.empty() || allowed[u])
                own = std::max(own, busy[u]);
        return std::make_tuple(*std::max_element(busy.begin(), busy.end()), own, work);
    };
    std::vector<std::uint32_t> found = device;
    for (std::size_t i = 0; i < n; ++i) {
        double best = -1;
        for (std::uint32_t u = 0; u < k; ++u)
            if (x[i][u] >= 0 && solution[x[i][u]] > best) {
                best = solution[x[i][u]];
                found[tasks[i]] = u;
            }
    }
    const auto [aMax, aOwn, aWork] = score(found);
    const auto [bMax, bOwn, bWork] = score(device);
    if (aMax < bMax - 1e-12
        || (aMax <= bMax + 1e-12 && (aOwn < bOwn - 1e-12 || (aOwn <= bOwn + 1e-12 && aWork <= bWork))))
        device = std::move(found);
    return out;
}

#else

WindowOutcome solveWindow(const MappingProblem&, const std::vector<std::uint32_t>&, const Loads&,
    std::vector<std::uint32_t>&, const MapperOptions&, double, const std::vector<bool>& = {})
{
    throw Error("the MILP mappers need COIN-OR CBC, which this build does not have "
                "(install coinor-libcbc-dev and configure again)");
}

#endif

// Windows of consecutive segments, each at most maxTasks ops (a longer segment alone).
std::vector<std::vector<std::uint32_t>> windowsOf(const MappingProblem& p, std::size_t maxTasks)
{
    std::vector<std::vector<std::uint32_t>> out(1);
    for (const Segment& s : segmentsBetweenSeparators(p.dag)) {
        std::vector<std::uint32_t> seg = s.inner;
        if (s.exit >= 0)
            seg.push_back(static_cast<std::uint32_t>(s.exit));
        if (!out.back().empty() && out.back().size() + seg.size() > maxTasks)
            out.emplace_back();
        out.back().insert(out.back().end(), seg.begin(), seg.end());
    }
    // The period has no precedence in it, so windows may go in any order: heaviest first (LPT's
    // rule: the big ops placed while every device still has room, the small ones fill the gaps).
    auto work = [&](const std::vector<std::uint32_t>& w) {
        double sum = 0;
        for (std::uint32_t t : w) {
            double fastest = kUnsupported;
            for (std::uint32_t u = 0; u < p.deviceCount(); ++u)
                fastest = std::min(fastest, p.seconds(t, u));
            sum += fastest;
        }
        return sum;
    };
    std::stable_sort(
        out.begin(), out.end(), [&](const auto& a, const auto& b) { return work(a) > work(b) * (1 + 1e-9); });
    return out;
}

// Moves and swaps off the busiest device while its load (and the other side's) drops below the
// current maximum: each step makes the loads, sorted in decreasing order, lexicographically
// smaller, so it ends. Recovers what windows solved one after another leave on the table.
void polish(const MappingProblem& p, std::vector<std::uint32_t>& device, std::size_t maxSteps)
{
    const std::size_t k = p.deviceCount(), n = p.taskCount();
    std::vector<double> busy(k, 0.0), mem(k, 0.0);
    std::vector<std::vector<std::uint32_t>> on(k);
    for (std::uint32_t t = 0; t < n; ++t) {
        busy[device[t]] += p.seconds(t, device[t]);
        mem[device[t]] += p.tasks[t].memoryBytes();
        on[device[t]].push_back(t);
    }
    auto room = [&](std::uint32_t u, double extra) { return mem[u] + extra <= p.devices[u].memoryBytes; };
    for (std::size_t step = 0; step < maxSteps; ++step) {
        const auto b = static_cast<std::uint32_t>(std::max_element(busy.begin(), busy.end()) - busy.begin());
        const double top = busy[b];
        double best = top; // the larger of the two loads after the change
        std::uint32_t bt = 0, bu = 0;
        std::int64_t bs = -2; // -1: a move, >= 0: a swap with that task
        for (std::uint32_t t : on[b])
            for (std::uint32_t u = 0; u < k; ++u) {
                if (u == b || !std::isfinite(p.seconds(t, u)))
                    continue;
                const double mt = p.tasks[t].memoryBytes();
                if (room(u, mt)) {
                    const double worst = std::max(busy[b] - p.seconds(t, b), busy[u] + p.seconds(t, u));
                    if (worst < best - 1e-12) {
                        best = worst, bt = t, bu = u, bs = -1;
                    }
                }
                for (std::uint32_t s : on[u]) {
                    if (!std::isfinite(p.seconds(s, b)) || !room(u, mt - p.tasks[s].memoryBytes())
                        || !room(b, p.tasks[s].memoryBytes() - mt))
                        continue;
                    const double worst = std::max(
                        busy[b] - p.seconds(t, b) + p.seconds(s, b), busy[u] - p.seconds(s, u) + p.seconds(t, u));
                    if (worst < best - 1e-12) {
                        best = worst, bt = t, bu = u, bs = s;
                    }
                }
            }
        if (bs == -2)
            return;
        auto move = [&](std::uint32_t t, std::uint32_t from, std::uint32_t to) {
            busy[from] -= p.seconds(t, from);
            busy[to] += p.seconds(t, to);
            mem[from] -= p.tasks[t].memoryBytes();
            mem[to] += p.tasks[t].memoryBytes();
            on[from].erase(std::find(on[from].begin(), on[from].end(), t));
            on[to].push_back(t);
            device[t] = to;
        };
        move(bt, b, bu);
        if (bs >= 0)
            move(static_cast<std::uint32_t>(bs), bu, b);
    }
}

struct Solved {
    std::vector<std::uint32_t> device;
    std::string note; // milp-split: where its answer came from
    SolveStatus status = SolveStatus::Heuristic;
    std::size_t milps = 0, cuts = 0;
    double compression = 1;
};

// Windows solved again, alone in the first pass and then each joined with another (a different
// partner every pass), from the loads every other op leaves; each kept only when no worse. Stops
// after two passes that gain nothing, or at the deadline.
void resolveWindows(const MappingProblem& p, const std::vector<std::vector<std::uint32_t>>& windows,
    const MapperOptions& o, Clock::time_point deadline, Solved& out)
{
    const std::size_t count = windows.size();
    std::size_t idle = 0;
    for (std::size_t pass = 0; count > 1 && idle < 2 && Clock::now() < deadline; ++pass) {
        const double before = evaluatePipeline(p, out.device).period;
        for (std::size_t w = 0; w < count && Clock::now() < deadline; ++w) {
            std::vector<std::uint32_t> tasks = windows[w];
            if (const std::size_t other = (w + pass) % count; other != w)
                tasks.insert(tasks.end(), windows[other].begin(), windows[other].end());
            std::vector<bool> inside(p.taskCount(), false);
            for (std::uint32_t t : tasks)
                inside[t] = true;
            Loads rest { std::vector<double>(p.deviceCount(), 0.0), std::vector<double>(p.deviceCount(), 0.0) };
            for (std::uint32_t t = 0; t < p.taskCount(); ++t)
                if (!inside[t]) {
                    rest.busy[out.device[t]] += p.seconds(t, out.device[t]);
                    rest.memory[out.device[t]] += p.tasks[t].memoryBytes();
                }
            const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
            const WindowOutcome r = solveWindow(p, tasks, rest, out.device, o,
                std::max(0.05, std::min(left, 4 * left / static_cast<double>(count - w))));
            ++out.milps;
            out.cuts += r.cuts;
        }
        polish(p, out.device, 100 * p.taskCount());
        idle = evaluatePipeline(p, out.device).period < before - 1e-12 ? 0 : idle + 1;
    }
}

// Devices' loads sorted from the largest, compared lexicographically: progress even while other
// devices still hold the period (ties, as in a replicated mapping: every node's A100s at once).
bool lighter(const PipelineTimes& a, const PipelineTimes& b)
{
    std::vector<double> x = a.busy, y = b.busy;
    std::sort(x.begin(), x.end(), std::greater<>());
    std::sort(y.begin(), y.end(), std::greater<>());
    if (a.period < b.period - 1e-12)
        return true;
    if (a.period > b.period + 1e-12)
        return false;
    for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
        if (x[i] < y[i] - 1e-12)
            return true;
        if (x[i] > y[i] + 1e-12)
            return false;
    }
    return false;
}

// Every op of the busiest device's node and of one other node (a different one each round) solved
// again over those nodes' devices, from the loads the rest leave: the moves across devices a
// window of consecutive modules cannot make (chains: A100 -> T4 -> CPU when memory is full).
void resolveNodes(const MappingProblem& p, const MapperOptions& o, Clock::time_point deadline, Solved& out)
{
    std::map<int, std::vector<std::uint32_t>> byNode;
    for (std::uint32_t u = 0; u < p.deviceCount(); ++u)
        byNode[p.devices[u].node].push_back(u);
    std::vector<int> nodes;
    for (const auto& [id, list] : byNode)
        nodes.push_back(id);
    std::size_t idle = 0;
    for (std::size_t round = 0; idle < nodes.size() && Clock::now() < deadline; ++round) {
        const PipelineTimes before = evaluatePipeline(p, out.device);
        const auto b = static_cast<std::uint32_t>(
            std::max_element(before.busy.begin(), before.busy.end()) - before.busy.begin());
        const int home = p.devices[b].node;
        std::vector<bool> allowed(p.deviceCount(), false);
        for (std::uint32_t u : byNode[home])
            allowed[u] = true;
        if (nodes.size() > 1) {
            const auto at = static_cast<std::size_t>(std::find(nodes.begin(), nodes.end(), home) - nodes.begin());
            for (std::uint32_t u : byNode[nodes[(at + 1 + round % (nodes.size() - 1)) % nodes.size()]])
                allowed[u] = true;
        }
        std::vector<std::uint32_t> tasks;
        Loads rest { std::vector<double>(p.deviceCount(), 0.0), std::vector<double>(p.deviceCount(), 0.0) };
        for (std::uint32_t t = 0; t < p.taskCount(); ++t) {
            if (allowed[out.device[t]]) {
                tasks.push_back(t);
                continue;
            }
            rest.busy[out.device[t]] += p.seconds(t, out.device[t]);
            rest.memory[out.device[t]] += p.tasks[t].memoryBytes();
        }
        const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
        const WindowOutcome r
            = solveWindow(p, tasks, rest, out.device, o, std::max(0.05, std::min(left, 30.0)), allowed);
        ++out.milps;
        out.cuts += r.cuts;
        polish(p, out.device, 100 * p.taskCount());
        idle = lighter(evaluatePipeline(p, out.device), before) ? 0 : idle + 1;
    }
}

Solved solveReplicated(const MappingProblem& p, bool split, const MapperOptions& o);

std::size_t byNodeCount(const MappingProblem& p)
{
    std::size_t count = 0;
    for (const auto& d : p.devices)
        count += d.node >= 0;
    return count;
}

// Multi-node milp-split's shares of --time-limit (see the header): the replicated single-node
// MILP (the baseline's own mapper), the replicated MILP-SPLIT, then the window pass; the rest goes
// to re-solving windows and node pairs from the best of them.
constexpr double kReplicatedMilpShare = 0.4, kReplicatedSplitShare = 0.05, kWindowPassEnd = 0.6;

// milp (one window of every task) or milp-split (windowsOf, resolveWindows, resolveNodes) on `p`.
Solved solvePipeline(const MappingProblem& p, bool split, const MapperOptions& o)
{
    const auto t0 = Clock::now();
    auto at = [&](double share) {
        return t0
            + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(share * o.timeLimitSeconds));
    };
    auto secondsUntil = [](Clock::time_point end) { return std::chrono::duration<double>(end - Clock::now()).count(); };
    Solved out;
    // The pool: every candidate evaluated by evaluatePipeline on `p`, as mapPipeline evaluates
    // every mapper's answer (the replicated baseline's included); the best is kept.
    std::vector<std::uint32_t> best;
    PipelineTimes bestTimes;
    double bestScore = 0;
    std::string bestFrom;
    auto offer = [&](const std::vector<std::uint32_t>& device, const std::string& from) {
        const PipelineTimes t = evaluatePipeline(p, device);
        if (!t.feasible)
            return;
        const double score = o.pipelineScore ? o.pipelineScore(device) : 0.0;
        if (best.empty() || (o.pipelineScore ? score > bestScore : lighter(t, bestTimes))) {
            best = device;
            bestTimes = t;
            bestScore = score;
            bestFrom = from;
        }
    };
    // Multi-node milp-split starts from the replicated single-node schedules (a feasible
    // multi-node schedule each): the one the baseline row's mapper finds (replicated-milp, the
    // single-node MILP, with the baseline's settings: no symmetry cuts), then replicated-milp-split.
    bool replicated = split && byNodeCount(p) > 0;
    if (replicated) {
        MapperOptions q = o;
        q.symmetry = Symmetry::None;
        q.timeLimitSeconds = kReplicatedMilpShare * o.timeLimitSeconds;
        for (const bool bySplit : { false, true }) {
            try {
                const Solved rep = solveReplicated(p, bySplit, q);
                offer(rep.device, bySplit ? "replicated-milp-split" : "replicated-milp");
                out.milps += rep.milps;
            } catch (const Error&) {
                // not N equal parts on N equal nodes (or no room): the window pass alone
            }
            q.timeLimitSeconds = std::max(0.05, secondsUntil(at(kReplicatedMilpShare + kReplicatedSplitShare)));
        }
        replicated = !best.empty();
    }
    const auto topo = *topologicalOrder(p.dag);
    const auto windows = split ? windowsOf(p, std::max<std::size_t>(1, o.maxModuleTasks))
                               : std::vector<std::vector<std::uint32_t>> { topo };
    // The window pass ends at half the time (split; at kWindowPassEnd after the replicated starts),
    // the rest goes to resolveWindows and resolveNodes.
    const auto passEnd = at(!split ? 1.0 : replicated ? kWindowPassEnd : 0.5);
    std::vector<std::uint32_t> device(p.taskCount(), 0);
    Loads loads { std::vector<double>(p.deviceCount(), 0.0), std::vector<double>(p.deviceCount(), 0.0) };
    bool optimal = true, timedOut = false;
    for (std::size_t w = 0; w < windows.size(); ++w) {
        Loads after = loads;
        if (!greedyPlace(p, windows[w], after, device))
            throw Error("pipeline: op " + p.tasks[windows[w].front()].name + "'s window fits on no device (memory)");
        const double left = secondsUntil(passEnd);
        const WindowOutcome r = solveWindow(
            p, windows[w], loads, device, o, std::max(0.05, left / static_cast<double>(windows.size() - w)));
        if (out.milps++ == 0 || (replicated && w == 0))
            out.compression = r.compression;
        out.cuts += r.cuts;
        optimal = optimal && r.optimal;
        timedOut = timedOut || r.timedOut;
        for (std::uint32_t t : windows[w]) {
            loads.busy[device[t]] += p.seconds(t, device[t]);
            loads.memory[device[t]] += p.tasks[t].memoryBytes();
        }
    }
    if (!split) {
        out.device = std::move(device);
        out.status = timedOut ? SolveStatus::Timeout : optimal ? SolveStatus::Optimal : SolveStatus::Feasible;
        return out;
    }
    // Windows leave imbalance a whole MILP would not: moves, swaps, windows again.
    polish(p, device, 100 * p.taskCount());
    offer(device, "windows");
    if (best.empty()) { // nothing feasible (no link, say): mapPipeline says why
        best = device;
        bestFrom = "windows";
    }
    out.device = best;
    const auto deadline = at(1.0);
    // From a replicated start every node's busiest devices tie, which windows of a few modules
    // cannot all relieve: leave the node pairs the last 30% of the time.
    resolveWindows(p, windows, o, replicated ? at(0.7) : deadline, out);
    offer(out.device, bestFrom + ", windows re-solved");
    if (byNodeCount(p) > 0) {
        out.device = best;
        resolveNodes(p, o, deadline, out);
        offer(out.device, bestFrom + ", node pairs re-solved");
    }
    out.device = best;
    out.note = "best start: " + bestFrom;
    out.status = timedOut ? SolveStatus::Timeout : SolveStatus::Feasible;
    return out;
}

// The replicated baseline: part 0 on node 0, copied to every node. See the header.
Solved solveReplicated(const MappingProblem& p, bool split, const MapperOptions& o)
{
    std::map<int, std::vector<std::uint32_t>> byNode;
    for (std::uint32_t u = 0; u < p.deviceCount(); ++u)
        byNode[p.devices[u].node].push_back(u);
    if (byNode.size() < 2 || byNode.count(-1))
        throw Error("replicated mappers need a topology of at least two nodes (--topology)");
    std::vector<std::vector<std::uint32_t>> nodes;
    for (auto& [id, list] : byNode)
        nodes.push_back(list);
    const std::size_t parts = nodes.size(), n = p.taskCount();
    if (n % parts != 0)
        throw Error("replicated: " + std::to_string(n) + " ops do not split into " + std::to_string(parts)
            + " equal parts (one per node): use a model of N x " + std::to_string(parts) + " equal modules");
    const auto topo = *topologicalOrder(p.dag);
    const std::size_t per = n / parts;
    for (std::size_t g = 1; g < parts; ++g) {
        if (nodes[g].size() != nodes[0].size())
            throw Error("replicated: node " + std::to_string(g) + " has other devices than node 0");
        for (std::size_t j = 0; j < per; ++j)
            for (std::size_t d = 0; d < nodes[0].size(); ++d)
                if (p.seconds(topo[g * per + j], nodes[g][d]) != p.seconds(topo[j], nodes[0][d])
                    || p.devices[nodes[g][d]].memoryBytes != p.devices[nodes[0][d]].memoryBytes)
                    throw Error("replicated: part " + std::to_string(g) + " (op " + p.tasks[topo[g * per + j]].name
                        + ") does not cost what part 0 costs on node 0: the graph is not " + std::to_string(parts)
                        + " equal parts on equal nodes");
    }
    // Node 0 alone with the first part.
    MappingProblem one
        = subproblem(p, std::vector<std::uint32_t>(topo.begin(), topo.begin() + static_cast<std::ptrdiff_t>(per)), {});
    MappingProblem sub;
    sub.dag = one.dag;
    for (std::uint32_t u : nodes[0])
        sub.devices.push_back(p.devices[u]);
    for (std::uint32_t a : nodes[0]) {
        sub.links.emplace_back();
        for (std::uint32_t b : nodes[0])
            sub.links.back().push_back(p.links[a][b]);
    }
    for (auto& task : one.tasks) {
        MapTask t = task;
        t.seconds.clear();
        for (std::uint32_t u : nodes[0])
            t.seconds.push_back(task.seconds[u]);
        sub.tasks.push_back(std::move(t));
    }
    for (auto& d : sub.devices)
        d.node = -1; // one node: only its identical devices are symmetric
    Solved local = solvePipeline(sub, split, o);
    Solved out = local;
    out.device.assign(n, 0);
    for (std::size_t g = 0; g < parts; ++g)
        for (std::size_t j = 0; j < per; ++j) {
            const auto localDevice = local.device[j];
            out.device[topo[g * per + j]] = nodes[g][localDevice];
        }
    return out;
}

} // namespace

PipelineTimes evaluatePipeline(const MappingProblem& p, const std::vector<std::uint32_t>& device)
{
    const std::size_t k = p.deviceCount();
    PipelineTimes out;
    out.busy.assign(k, 0.0);
    out.memoryBytes.assign(k, 0.0);
    for (std::uint32_t t = 0; t < p.taskCount(); ++t) {
        const std::uint32_t u = device.at(t);
        if (!std::isfinite(p.seconds(t, u))) {
            out.problem = "op " + p.tasks[t].name + " cannot run on " + p.devices[u].name;
            return out;
        }
        out.busy[u] += p.seconds(t, u);
        out.memoryBytes[u] += p.tasks[t].memoryBytes();
    }
    for (std::uint32_t u = 0; u < k; ++u)
        if (out.memoryBytes[u] > p.devices[u].memoryBytes) {
            out.problem = p.devices[u].name + " holds " + std::to_string(out.memoryBytes[u] / 1e9)
                + " GB, more than its " + std::to_string(p.devices[u].memoryBytes / 1e9) + " GB";
            return out;
        }
    std::vector<std::vector<double>> link(k, std::vector<double>(k, 0.0));
    for (std::uint32_t a = 0; a < p.taskCount(); ++a)
        for (std::uint32_t b : p.dag.successors[a]) {
            const std::uint32_t u = device[a], v = device[b];
            if (u == v)
                continue;
            if (!p.links[u][v].connected()) {
                out.problem = "no link from " + p.devices[u].name + " to " + p.devices[v].name;
                return out;
            }
            link[u][v] += p.tasks[a].outputBytes / p.links[u][v].bandwidthBytesPerSecond;
        }
    out.feasible = true;
    for (std::uint32_t u = 0; u < k; ++u) {
        if (out.busy[u] > out.period) {
            out.period = out.busy[u];
            out.bottleneck = p.devices[u].name;
        }
        for (std::uint32_t v = 0; v < k; ++v) {
            out.linkBusy = std::max(out.linkBusy, link[u][v]);
            if (link[u][v] > out.period) {
                out.period = link[u][v];
                out.bottleneck = "link " + p.devices[u].name + " -> " + p.devices[v].name;
            }
        }
    }
    out.throughput = out.period > 0 ? 1.0 / out.period : 0.0;
    return out;
}

const std::vector<MapperInfo>& pipelineMappers()
{
    static const std::vector<MapperInfo> list {
        { "greedy", "ops in topological order, each where the period grows least" },
        { "milp", "one MILP over every op: min period under loads and memory (CBC)" },
        { "milp-split", "the MILP over windows of consecutive modules, in order" },
        { "replicated-milp", "the first 1/N of the graph mapped on node 0 by milp, repeated on every node" },
        { "replicated-milp-split",
            "the first 1/N of the graph mapped on node 0 by milp-split, repeated on every node" },
    };
    return list;
}

PipelineResult mapPipeline(std::string_view name, const MappingProblem& p, const MapperOptions& o)
{
    const auto t0 = Clock::now();
    p.validate();
    Solved s;
    if (name == "greedy") {
        s.device.assign(p.taskCount(), 0);
        Loads loads { std::vector<double>(p.deviceCount(), 0.0), std::vector<double>(p.deviceCount(), 0.0) };
        if (!greedyPlace(p, *topologicalOrder(p.dag), loads, s.device))
            throw Error("pipeline: the ops do not fit in the devices' memory");
    } else if (name == "milp" || name == "milp-split") {
        s = solvePipeline(p, name == "milp-split", o);
    } else if (name == "replicated-milp" || name == "replicated-milp-split") {
        s = solveReplicated(p, name == "replicated-milp-split", o);
    } else {
        std::string known;
        for (const auto& m : pipelineMappers())
            known += (known.empty() ? "" : ", ") + m.name;
        throw Error("unknown pipeline mapper '" + std::string(name) + "' (known: " + known + ")");
    }
    PipelineResult r;
    r.mapper = std::string(name);
    r.device = s.device;
    r.times = evaluatePipeline(p, s.device);
    if (!r.times.feasible)
        throw Error("pipeline " + r.mapper + ": no feasible mapping (" + r.times.problem + ")");
    const MappingTimes one = evaluate(p, mappingWithOrder(p, s.device, breadthFirstOrder(p.dag)));
    r.latency = one.feasible ? one.makespan : kUnsupported;
    r.status = s.status;
    r.milps = s.milps;
    r.cuts = s.cuts;
    r.compression = s.compression;
    r.note = s.note;
    r.solveSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return r;
}

} // namespace opsched::map
