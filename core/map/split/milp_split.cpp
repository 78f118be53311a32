#include "map/split/milp_split.h"

#include "map/bounds/lower_bound.h"
#include "map/bounds/module_bound.h"
#include "map/problem/module_chain.h"
#include "map/problem/modules.h"
#include "map/solvers/exact_search.h"
#include "map/solvers/heuristic_mappers.h"
#include "map/solvers/milp_mapper.h"
#include "map/solvers/order_search.h"

#include "util/error.h"
#include "util/random.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

namespace opsched::map {
namespace {

using Clock = std::chrono::steady_clock;
using StateKey = std::vector<std::uint32_t>; // devices of a boundary's tasks, in boundary order

// Boundary states kept per module: entry states beyond this (the costliest) are dropped, and a
// module with more exit states than this is only solved with its exits free.
constexpr std::size_t kMaxEntryStates = 27;
constexpr std::size_t kMaxExitStates = 27;
// The order search's evaluations per task after the pool (under a node limit; else its time).
constexpr std::uint64_t kOrderEvaluationsPerTask = 2000;
// What the solves leave of the time limit where the lower bound will probe (moduleChainBoundProbes).
constexpr double kBoundProbeSeconds = 3, kBoundProbeShare = 0.1;
// The probes' pace on N=32 RWNN modules (600 000 nodes in 2.3 s on the 2-core VM), for a reserve
// shorter than kBoundProbeSeconds.
constexpr double kProbeNodesPerSecond = 250000;
// The time weight of a module's first solve against each of its others.
constexpr double kLeadWeight = 4;
// A module's solves first get at most this share of the time limit each; those it stops are
// retried with the time the others left (a hard piece then gets most of it, not a fixed share).
constexpr double kFirstTryShare = 0.05;

// A module's mapping for one (entry, exit) pair, in global task ids.
struct Piece {
    double value = kUnsupported; // its makespan, from the moment the module before ended
    std::vector<std::uint32_t> device; // per module task
    std::vector<std::vector<std::uint32_t>> order; // per device
};

struct DpEntry {
    double value = kUnsupported;
    StateKey from; // the entry state at the boundary before
    Piece piece;
};

class Splitter {
public:
    Splitter(const MappingProblem& p, const MapperOptions& o)
        : p_(p)
        , o_(o)
        , t0_(Clock::now())
    {
        // Short of a proof the gap needs lowerBound(), whose probes take up to about 3 s: the
        // solves leave them that much of the time limit (a tenth of short limits, with the probes'
        // nodes cut to fit; a node count, so the bound still does not depend on the machine).
        if (!o_.maxNodes && moduleChainBoundProbes(p_)) {
            const double reserve = std::min(kBoundProbeSeconds, kBoundProbeShare * o_.timeLimitSeconds);
            o_.timeLimitSeconds -= reserve;
            probeNodes_ = std::min(probeNodes_, static_cast<std::uint64_t>(reserve * kProbeNodesPerSecond));
        }
    }

    MapResult run();

private:
    double elapsed() const { return std::chrono::duration<double>(Clock::now() - t0_).count(); }
    bool outOfTime() const { return elapsed() > o_.timeLimitSeconds; }

    // Module j alone: its inputs from the entry state's devices (arrival = the transfer, from the
    // moment the module before ended), tasks in `pins` held to their device.
    MappingProblem moduleProblem(std::size_t j, const StateKey& entry, const std::vector<std::uint32_t>& pins) const;
    // `lead`: the module's first solve (its cheapest entry, exits free), the one the answer most
    // often comes from: it gets a larger share of the time.
    // `retryLater`: a solve the time limit stopped is left to the caller to retry (it does not yet
    // make the answer inexact, and its retry's share of the time is set aside).
    MapResult solve(const MappingProblem& sub, double cutoff, bool lead = false, bool retryLater = false);
    // A module solve the time limit stopped, to be run again once the others are done.
    struct Retry {
        StateKey entry;
        std::vector<std::uint32_t> pins; // per local task, its device or UINT32_MAX (free)
        double cutoff;
        bool lead;
    };
    // Fills dp_[j + 1] from dp_[j].
    void joinModule(std::size_t j);
    // For one entry state whose free solve gave `free`: each other combination of the exit tasks'
    // devices (`freeExits`, local indices), pinned and solved where its bounds leave room.
    void solvePinnedExits(std::size_t j, const StateKey& entry, double base, const MapResult& free,
        const std::vector<std::size_t>& freeExits, std::size_t combos, std::vector<Retry>& retries);
    // The solves the time stopped, again with what the others left.
    void retryStopped(std::size_t j, const std::vector<Retry>& retries);
    void offer(std::size_t j, const StateKey& entry, const MapResult& r, const std::vector<std::uint32_t>& exitTasks);
    // The exit state a piece of module j leaves: the devices of `exitTasks` (its own, or passed
    // through from `entry`).
    StateKey exitKey(std::size_t j, const StateKey& entry, const std::vector<std::uint32_t>& device,
        const std::vector<std::uint32_t>& exitTasks) const;
    // Lowers upper_ to the total of the piece's chain completed by the list heuristics.
    void tightenUpper(std::size_t j, const StateKey& entry, const MapResult& piece);
    Mapping assemble() const;
    // The modules one after another, each solved exactly from where the ones before left the
    // devices and results (finish times, busy devices): modules overlap as the barrier cannot.
    MapResult forwardPass();
    void keepBestOfPool(MapResult& result);
    void polish(MapResult& result);
    // The biased (1+1) EA from `result` (its order kept), until the time spent so far has doubled.
    void evolveFrom(MapResult& result);

    const MappingProblem& p_;
    MapperOptions o_;
    std::uint64_t probeNodes_ = ModuleBoundOptions {}.probeNodes; // for lowerBound()
    Clock::time_point t0_;
    ModuleChain chain_;
    std::vector<std::map<StateKey, DpEntry>> dp_; // per boundary
    // Single channel (every join a separator): a module's piece from an entry whose total is
    // `base` can only lead to a whole mapping better than upper_ (the best total known) if
    // it is at most upper_ - base - what the later modules need at least; the cutoff for that.
    double beyond(std::size_t j, double base) const
    {
        return std::isfinite(upper_) ? (upper_ - base - suffixBound_[j + 1]) * (1 + 1e-9) + 1e-15 : kUnsupported;
    }
    // beyond() where the piece's exit state is known: the next module's least from that state
    // (its root bound: the transfers out of the exit devices included) replaces its share of the
    // suffix bound.
    double beyondFrom(std::size_t j, double base, const StateKey& exit);
    std::map<std::size_t, std::map<StateKey, double>> nextBound_; // beyondFrom's, per module and exit
    double upper_ = kUnsupported; // the best list heuristic's, then the best chain total known
    std::vector<double> suffixBound_; // per block: the sum of the later blocks' simpleLowerBound
    double weightLeft_ = 0; // of the solves still expected (one per entry state and module)
    std::vector<double> moduleWeight_; // what each module adds to weightLeft_
    bool exact_ = true;
    bool timedOut_ = false;
    std::size_t solves_ = 0, dropped_ = 0;
};

MappingProblem Splitter::moduleProblem(
    std::size_t j, const StateKey& entry, const std::vector<std::uint32_t>& pins) const
{
    const auto& tasks = chain_.blocks[j];
    const auto& in = chain_.boundary[j];
    const std::size_t k = p_.deviceCount();
    std::vector<std::vector<double>> release(tasks.size(), std::vector<double>(k, 0.0));
    MappingProblem sub = subproblem(p_, tasks, {});
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        for (std::uint32_t v = 0; v < k; ++v)
            release[i][v] = p_.releaseOf(tasks[i], v); // absolute: later than needed, never too early
        for (std::uint32_t q : p_.dag.predecessors[tasks[i]]) {
            const auto at = std::lower_bound(in.begin(), in.end(), q);
            if (at == in.end() || *at != q)
                continue; // inside the module
            const std::uint32_t from = entry[static_cast<std::size_t>(at - in.begin())];
            for (std::uint32_t v = 0; v < k; ++v) {
                const double arrival = p_.commSeconds(q, from, v);
                if (std::isfinite(arrival))
                    release[i][v] = std::max(release[i][v], arrival);
                else
                    sub.tasks[i].seconds[v] = kUnsupported; // no link from the input's device
            }
        }
        if (pins[i] != UINT32_MAX)
            for (std::uint32_t v = 0; v < k; ++v)
                if (v != pins[i])
                    sub.tasks[i].seconds[v] = kUnsupported;
    }
    sub.release = std::move(release);
    return sub;
}

MapResult Splitter::solve(const MappingProblem& sub, double cutoff, bool lead, bool retryLater)
{
    ++solves_;
    if (outOfTime()) {
        timedOut_ = true;
        exact_ = false;
        return bestListHeuristic(sub);
    }
    // Its share of the time left, by weight (tasks squared: a module twice the size is far more
    // than twice as hard to prove) among the solves still expected, itself included; what earlier
    // solves left unused goes to later ones.
    const double weight = static_cast<double>(sub.taskCount() * sub.taskCount()) * (lead ? kLeadWeight : 1.0);
    const double share = weight / std::max(weight, weightLeft_);
    weightLeft_ = std::max(0.0, weightLeft_ - weight);
    MapperOptions o = o_;
    o.timeLimitSeconds = std::max(0.05, (o_.timeLimitSeconds - elapsed()) * share);
    if (retryLater) { // a first try: most pieces are proven in far less, the rest are retried
        o.timeLimitSeconds = std::min(o.timeLimitSeconds, std::max(0.05, kFirstTryShare * o_.timeLimitSeconds));
        if (o_.maxNodes) // the same share of a node limit: a retry that does not depend on load
            o.maxNodes = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(kFirstTryShare * o_.maxNodes));
    }
    o.cutoffSeconds = cutoff;
    const bool autoSolver = o_.moduleSolver == MapperOptions::ModuleSolver::Auto;
    MapResult r = autoSolver && sub.taskCount() <= kExactSearchLimit ? mapExactSearch(sub, o) : mapMilp(sub, o);
    if (retryLater && r.status == SolveStatus::Timeout) {
        weightLeft_ += weight; // the retry's
        return r;
    }
    if (r.status != SolveStatus::Optimal) {
        exact_ = false;
        timedOut_ = timedOut_ || r.status == SolveStatus::Timeout;
    }
    return r;
}

void Splitter::offer(
    std::size_t j, const StateKey& entry, const MapResult& r, const std::vector<std::uint32_t>& exitTasks)
{
    const auto& tasks = chain_.blocks[j];
    const StateKey key = exitKey(j, entry, r.mapping.device, exitTasks);
    const double total = dp_[j].at(entry).value + r.times.makespan;
    DpEntry& slot = dp_[j + 1][key];
    if (total >= slot.value)
        return;
    slot.value = total;
    slot.from = entry;
    slot.piece.value = r.times.makespan;
    slot.piece.device = r.mapping.device;
    slot.piece.order.assign(p_.deviceCount(), {});
    for (std::uint32_t u = 0; u < p_.deviceCount(); ++u)
        for (std::uint32_t local : r.mapping.order[u])
            slot.piece.order[u].push_back(tasks[local]);
}

void Splitter::joinModule(std::size_t j)
{
    const auto& tasks = chain_.blocks[j];
    const auto& out = chain_.boundary[j + 1];
    const std::size_t k = p_.deviceCount();
    // The module's own channel outputs get every device combination; the others pass through.
    std::vector<std::size_t> freeExits; // local indices
    for (std::size_t i = 0; i < tasks.size(); ++i)
        if (std::binary_search(out.begin(), out.end(), tasks[i]))
            freeExits.push_back(i);
    double combos = 1;
    for (std::size_t i = 0; i < freeExits.size(); ++i)
        combos *= static_cast<double>(k);
    const bool enumerate = combos <= static_cast<double>(kMaxExitStates);
    if (!enumerate)
        exact_ = false;

    // Entries from the cheapest first, so that later ones are pruned by what earlier ones found.
    std::vector<std::pair<double, StateKey>> entries;
    for (const auto& [key, e] : dp_[j])
        entries.emplace_back(e.value, key);
    std::sort(entries.begin(), entries.end());
    if (entries.size() > kMaxEntryStates) {
        dropped_ += entries.size() - kMaxEntryStates;
        entries.resize(kMaxEntryStates);
        exact_ = false;
    }
    auto worstKept = [&] {
        if (!enumerate || dp_[j + 1].size() < static_cast<std::size_t>(combos))
            return kUnsupported;
        double worst = 0;
        for (const auto& [key, e] : dp_[j + 1])
            worst = std::max(worst, e.value);
        return worst;
    };
    const std::vector<std::uint32_t> none(tasks.size(), UINT32_MAX);
    std::vector<Retry> retries;
    bool lead = true;
    for (const auto& [base, entry] : entries) {
        // Free exits first: the optimum for this entry, and one exit state's exact value.
        const double cutoff = std::min(worstKept() - base, lead ? kUnsupported : beyond(j, base));
        if (cutoff <= 0)
            break;
        MapResult r;
        try {
            r = solve(moduleProblem(j, entry, none), cutoff, lead, true);
        } catch (const Error&) {
            continue; // nothing fits behind this entry (memory, links)
        }
        if (r.status == SolveStatus::Timeout)
            retries.push_back({ entry, none, r.times.feasible ? std::min(cutoff, r.times.makespan) : cutoff, lead });
        lead = false;
        if (r.cutoffProven)
            continue; // no exit state can improve from here
        offer(j, entry, r, out);
        tightenUpper(j, entry, r);
        if (enumerate)
            solvePinnedExits(j, entry, base, r, freeExits, static_cast<std::size_t>(combos), retries);
    }
    retryStopped(j, retries);
}

void Splitter::solvePinnedExits(std::size_t j, const StateKey& entry, double base, const MapResult& free,
    const std::vector<std::size_t>& freeExits, std::size_t combos, std::vector<Retry>& retries)
{
    const auto& out = chain_.boundary[j + 1];
    const std::size_t k = p_.deviceCount();
    std::vector<std::uint32_t> pins(chain_.blocks[j].size(), UINT32_MAX);
    for (std::size_t code = 0; code < combos; ++code) {
        std::size_t c = code;
        for (std::size_t i : freeExits) {
            pins[i] = static_cast<std::uint32_t>(c % k);
            c /= k;
        }
        bool same = true;
        for (std::size_t i : freeExits)
            same = same && pins[i] == free.mapping.device[i];
        if (same)
            continue;
        const MappingProblem sub = moduleProblem(j, entry, pins);
        // The exit key this pin gives, to read the best total found for it so far.
        const StateKey key = exitKey(j, entry, pins, out);
        const auto known = dp_[j + 1].find(key);
        const double budget = std::min(
            (known == dp_[j + 1].end() ? kUnsupported : known->second.value) - base, beyondFrom(j, base, key));
        bool runnable = true;
        for (const auto& t : sub.tasks)
            runnable = runnable
                && std::any_of(t.seconds.begin(), t.seconds.end(), [](double s) { return std::isfinite(s); });
        if (!runnable || simpleLowerBound(sub) >= budget
            || (sub.taskCount() <= kExactSearchLimit && exactSearchRootBound(sub) >= budget))
            continue;
        try {
            const MapResult pinned = solve(sub, budget, false, true);
            if (pinned.status == SolveStatus::Timeout)
                retries.push_back(
                    { entry, pins, pinned.times.feasible ? std::min(budget, pinned.times.makespan) : budget, false });
            if (!pinned.cutoffProven)
                offer(j, entry, pinned, out);
        } catch (const Error&) {
        }
    }
}

void Splitter::retryStopped(std::size_t j, const std::vector<Retry>& retries)
{
    // Each now only has to beat what it found (or its cutoff, tightened since), and proves that
    // piece optimal if it cannot. The solves still expected are these and the later modules'.
    if (retries.empty())
        return;
    const auto& tasks = chain_.blocks[j];
    const auto& out = chain_.boundary[j + 1];
    weightLeft_ = 0;
    for (std::size_t m = j + 1; m < moduleWeight_.size(); ++m)
        weightLeft_ += moduleWeight_[m];
    for (const Retry& retry : retries)
        weightLeft_ += static_cast<double>(tasks.size() * tasks.size()) * (retry.lead ? kLeadWeight : 1.0);
    for (const Retry& retry : retries) {
        const double base = dp_[j].at(retry.entry).value;
        const double cutoff = std::min(retry.cutoff, retry.lead ? kUnsupported : beyond(j, base));
        if (cutoff <= 0)
            continue;
        try {
            const MapResult r = solve(moduleProblem(j, retry.entry, retry.pins), cutoff, retry.lead);
            if (!r.cutoffProven && r.times.feasible) {
                offer(j, retry.entry, r, out);
                tightenUpper(j, retry.entry, r);
            }
        } catch (const Error&) {
        }
    }
}

double Splitter::beyondFrom(std::size_t j, double base, const StateKey& exit)
{
    if (!std::isfinite(upper_) || j + 1 >= chain_.blocks.size())
        return beyond(j, base);
    auto& cache = nextBound_[j];
    auto known = cache.find(exit);
    if (known == cache.end()) {
        double next = simpleLowerBound(p_, chain_.blocks[j + 1]);
        try {
            const MappingProblem sub
                = moduleProblem(j + 1, exit, std::vector<std::uint32_t>(chain_.blocks[j + 1].size(), UINT32_MAX));
            if (sub.taskCount() <= kExactSearchLimit)
                next = std::max(next, exactSearchRootBound(sub));
        } catch (const Error&) {
            return beyond(j, base);
        }
        known = cache.emplace(exit, next).first;
    }
    const double next = known->second;
    return (upper_ - base - next - suffixBound_[j + 2]) * (1 + 1e-9) + 1e-15;
}

StateKey Splitter::exitKey(std::size_t j, const StateKey& entry, const std::vector<std::uint32_t>& device,
    const std::vector<std::uint32_t>& exitTasks) const
{
    const auto& tasks = chain_.blocks[j];
    const auto& in = chain_.boundary[j];
    StateKey key;
    for (std::uint32_t t : exitTasks) {
        const auto local = std::find(tasks.begin(), tasks.end(), t);
        if (local != tasks.end())
            key.push_back(device[static_cast<std::size_t>(local - tasks.begin())]);
        else // passes through from an earlier module: the entry state holds it
            key.push_back(entry[static_cast<std::size_t>(std::lower_bound(in.begin(), in.end(), t) - in.begin())]);
    }
    return key;
}

void Splitter::tightenUpper(std::size_t j, const StateKey& entry, const MapResult& piece)
{
    // A whole chain of pieces through this one: the modules after it from its exit state, each
    // by the list heuristics. Its total is a sum the DP's optimum is at most, so the cutoffs that
    // `beyond` gives the solves still to come (exit pins above all) can use it.
    if (!std::isfinite(upper_) || !piece.times.feasible)
        return;
    double total = dp_[j].at(entry).value + piece.times.makespan;
    StateKey state = exitKey(j, entry, piece.mapping.device, chain_.boundary[j + 1]);
    for (std::size_t m = j + 1; m < chain_.blocks.size() && total < upper_; ++m) {
        MapResult r;
        try {
            r = bestListHeuristic(
                moduleProblem(m, state, std::vector<std::uint32_t>(chain_.blocks[m].size(), UINT32_MAX)));
        } catch (const Error&) {
            return;
        }
        if (!r.times.feasible)
            return;
        total += r.times.makespan;
        state = exitKey(m, state, r.mapping.device, chain_.boundary[m + 1]);
    }
    upper_ = std::min(upper_, total);
}

Mapping Splitter::assemble() const
{
    const std::size_t q = chain_.blocks.size(), k = p_.deviceCount();
    std::vector<const Piece*> chosen(q, nullptr);
    StateKey state; // the last boundary has no tasks: one state
    for (std::size_t j = q; j-- > 0;) {
        const DpEntry& e = dp_[j + 1].at(state);
        chosen[j] = &e.piece;
        state = e.from;
    }
    Mapping m;
    m.device.assign(p_.taskCount(), 0);
    m.order.assign(k, {});
    for (std::size_t j = 0; j < q; ++j) {
        for (std::size_t i = 0; i < chain_.blocks[j].size(); ++i)
            m.device[chain_.blocks[j][i]] = chosen[j]->device[i];
        for (std::uint32_t u = 0; u < k; ++u)
            m.order[u].insert(m.order[u].end(), chosen[j]->order[u].begin(), chosen[j]->order[u].end());
    }
    return m;
}

MapResult Splitter::forwardPass()
{
    const std::size_t k = p_.deviceCount();
    std::vector<std::uint32_t> device(p_.taskCount(), 0);
    std::vector<double> finish(p_.taskCount(), 0.0), deviceFree(k, 0.0);
    Mapping m;
    m.device.assign(p_.taskCount(), 0);
    m.order.assign(k, {});
    for (const auto& tasks : chain_.blocks) {
        std::vector<char> inside(p_.taskCount(), 0);
        for (std::uint32_t t : tasks)
            inside[t] = 1;
        MappingProblem sub = subproblem(p_, tasks, {});
        sub.release.assign(tasks.size(), deviceFree);
        for (std::size_t i = 0; i < tasks.size(); ++i)
            for (std::uint32_t v = 0; v < k; ++v) {
                sub.release[i][v] = std::max(sub.release[i][v], p_.releaseOf(tasks[i], v));
                for (std::uint32_t q : p_.dag.predecessors[tasks[i]]) {
                    if (inside[q])
                        continue;
                    const double arrival = finish[q] + p_.commSeconds(q, device[q], v);
                    if (std::isfinite(arrival))
                        sub.release[i][v] = std::max(sub.release[i][v], arrival);
                    else
                        sub.tasks[i].seconds[v] = kUnsupported;
                }
            }
        const MapResult r = solve(sub, kUnsupported); // throws when nothing fits: the caller keeps the others
        for (std::size_t i = 0; i < tasks.size(); ++i) {
            device[tasks[i]] = m.device[tasks[i]] = r.mapping.device[i];
            finish[tasks[i]] = r.times.finish[i];
            deviceFree[r.mapping.device[i]] = std::max(deviceFree[r.mapping.device[i]], r.times.finish[i]);
        }
        for (std::uint32_t u = 0; u < k; ++u)
            for (std::uint32_t local : r.mapping.order[u])
                m.order[u].push_back(tasks[local]);
    }
    MapResult result;
    result.mapper = "forward modules";
    result.times = evaluate(p_, m);
    result.mapping = std::move(m);
    return result;
}

void Splitter::polish(MapResult& result)
{
    // Modules solved one after another cannot see how they could overlap; a local search over
    // single-task device moves, keeping the order found, recovers part of that.
    std::vector<std::uint32_t> priority = *topologicalOrder(p_.dag);
    std::stable_sort(priority.begin(), priority.end(),
        [&](std::uint32_t a, std::uint32_t b) { return result.times.start[a] < result.times.start[b]; });
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

void Splitter::evolveFrom(MapResult& result)
{
    const std::size_t n = p_.taskCount(), k = p_.deviceCount();
    if (k < 2 || !result.times.feasible)
        return;
    std::vector<std::uint32_t> priority = *topologicalOrder(p_.dag);
    std::stable_sort(priority.begin(), priority.end(),
        [&](std::uint32_t a, std::uint32_t b) { return result.times.start[a] < result.times.start[b]; });
    std::vector<std::uint32_t> device = result.mapping.device, child;
    double best = result.times.makespan;
    SplitMix64 rng(o_.seed ^ 0xE7017EULL);
    // With a node limit (tests) the run is a fixed 200 evaluations per task, so that the answer
    // does not depend on the machine's load either.
    const double until = o_.maxNodes ? 0.0 : std::min(o_.timeLimitSeconds, 2 * elapsed());
    const std::uint64_t least = 200 * n;
    bool improved = false;
    for (std::uint64_t i = 0;; ++i) {
        if (i >= least && (o_.maxNodes || ((i & 63) == 0 && elapsed() > until)))
            break;
        if ((i & 63) == 0 && outOfTime())
            break;
        child = device;
        mutateDevices(child, k, rng);
        const MappingTimes times = evaluate(p_, mappingWithOrder(p_, child, priority));
        if (times.feasible && times.makespan <= best) {
            improved = improved || times.makespan < best;
            best = times.makespan;
            device.swap(child);
        }
    }
    if (improved) {
        result.mapping = mappingWithOrder(p_, device, priority);
        result.times = evaluate(p_, result.mapping);
        result.note += "; evolved further";
    }
}

void Splitter::keepBestOfPool(MapResult& result)
{
    // Where the modules' join is not exact, so that milp-split never answers worse than a mapper
    // it could have run: the joined mapping, the best list heuristic, the EA's and SA's, each
    // polished; the best is kept.
    MapperOptions pool = o_;
    pool.runSeconds = 0; // their own evaluation budgets, not an equal-time run
    std::vector<MapResult> candidates { result };
    try {
        candidates.push_back(forwardPass());
    } catch (const Error&) {
    }
    candidates.push_back(bestListHeuristic(p_));
    candidates.push_back(mapEvolutionary(p_, pool));
    candidates.push_back(mapSimulatedAnnealing(p_, pool));
    for (auto& c : candidates)
        if (c.times.feasible)
            polish(c);
    const auto best
        = std::min_element(candidates.begin(), candidates.end(), [](const MapResult& a, const MapResult& b) {
              return (a.times.feasible ? a.times.makespan : kUnsupported)
                  < (b.times.feasible ? b.times.makespan : kUnsupported);
          });
    if (best != candidates.begin())
        result.note += "; the polished " + best->mapper + " mapping beat the joined modules";
    result.mapping = best->mapping;
    result.times = best->times;
    // So that SA and EA given the same wall time (compare --equal-time) do not overtake it.
    evolveFrom(result);
    // Then the order search, which moves tasks in the devices' orders as well (the EA, SA and the
    // polish keep one order): as long again as the EA ran, by evaluations under a node limit.
    const std::size_t n = p_.taskCount();
    const double seconds = o_.maxNodes ? 0.0 : std::min(o_.timeLimitSeconds - elapsed(), elapsed() / 2);
    if (result.times.feasible && (o_.maxNodes || seconds > 0)) {
        MapResult ordered = improveOrderAndDevices(p_, result, kOrderEvaluationsPerTask * n, o_.seed, seconds);
        if (ordered.times.makespan < result.times.makespan) {
            result.mapping = std::move(ordered.mapping);
            result.times = std::move(ordered.times);
            result.note += "; reordered";
        }
    }
}

MapResult Splitter::run()
{
    p_.validate();
    chain_ = moduleChain(p_.dag, o_.maxModuleTasks);
    const std::size_t q = chain_.blocks.size(), k = p_.deviceCount();
    std::size_t separators = 0;
    for (std::size_t j = 0; j < q; ++j) {
        separators += chain_.separatorJoin[j + 1] ? 1 : 0;
        exact_ = exact_ && chain_.separatorJoin[j + 1];
        // The solves to expect: each entry state, with its exits free and then pinned (where
        // joinModule enumerates them).
        const auto& tasks = chain_.blocks[j];
        const auto& out = chain_.boundary[j + 1];
        const double exits = std::pow(static_cast<double>(k),
            std::count_if(tasks.begin(), tasks.end(),
                [&](std::uint32_t t) { return std::binary_search(out.begin(), out.end(), t); }));
        const double entries
            = std::min<double>(kMaxEntryStates, std::pow(static_cast<double>(k), chain_.boundary[j].size()));
        const double size = static_cast<double>(tasks.size());
        moduleWeight_.push_back(size * size * (entries * (exits <= kMaxExitStates ? exits : 1.0) - 1 + kLeadWeight));
        weightLeft_ += moduleWeight_.back();
    }

    suffixBound_.assign(q + 1, 0.0);
    for (std::size_t j = q; j-- > 0;)
        suffixBound_[j] = suffixBound_[j + 1] + simpleLowerBound(p_, chain_.blocks[j]);
    if (exact_)
        upper_ = bestListHeuristic(p_).times.makespan;
    dp_.assign(q + 1, {});
    dp_[0][StateKey {}] = DpEntry { 0.0, {}, {} };
    for (std::size_t j = 0; j < q; ++j) {
        joinModule(j);
        if (dp_[j + 1].empty())
            throw Error(
                "milp-split: no feasible mapping for the module ending with " + p_.tasks[chain_.blocks[j].back()].name);
    }

    MapResult result;
    result.mapper = "milp-split";
    result.mapping = assemble();
    result.times = evaluate(p_, result.mapping);
    result.joinedMakespan = result.times.feasible ? result.times.makespan : 0.0;
    result.note = std::to_string(q) + " modules (" + std::to_string(separators) + " joined at separators), "
        + std::to_string(solves_) + " module solves";
    if (dropped_)
        result.note += ", " + std::to_string(dropped_) + " boundary states dropped";
    if (!result.times.feasible) {
        // Each module fits on its own, but together they overflow a device's memory.
        result.note += "; the modules' mappings together do not fit (" + result.times.problem + ")";
        const MapResult fallback = bestListHeuristic(p_);
        result.mapping = fallback.mapping;
        result.times = fallback.times;
        exact_ = false;
    }
    if (!exact_)
        keepBestOfPool(result);
    if (exact_) {
        result.status = SolveStatus::Optimal;
        result.gap = 0;
    } else {
        result.status = timedOut_ ? SolveStatus::Timeout : SolveStatus::Feasible;
        const double lb = lowerBound(p_, probeNodes_);
        result.lowerBound = lb;
        result.gap = std::max(0.0, (result.times.makespan - lb) / result.times.makespan);
        if (result.times.feasible && lb >= result.times.makespan * (1 - 1e-12)) {
            // Some solves did not finish, but the proven bound reaches the mapping found: optimal.
            result.status = SolveStatus::Optimal;
            result.gap = 0;
            result.note += "; optimal: the lower bound reaches it";
        }
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
