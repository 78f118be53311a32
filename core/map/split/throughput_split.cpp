#include "map/split/throughput_split.h"

#include "map/bounds/lower_bound.h"
#include "map/problem/modules.h"
#include "map/solvers/milp_mapper.h"
#include "map/solvers/order_search.h"
#include "map/solvers/throughput_heuristics.h"
#include "map/solvers/throughput_milp.h"

#include "util/error.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

namespace opsched::map {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::int64_t kFree = -1;
constexpr std::size_t kEntryStates = 4; // separator splits carried from one segment to the next
constexpr std::size_t kLongPieceTasks = 24;
constexpr std::uint64_t kPolishEaRuns = 5;
// The order search's evaluations per task at the end (under a node limit; else half the time spent).
constexpr std::uint64_t kOrderEvaluationsPerTask = 2000;

// `tasks` (topological order) as a problem of their own. With `entryDone`, tasks[0] is the
// separator the piece starts after: it costs nothing there (its batches finished at the barrier),
// only its results' transfers count. Pipelined splits stay pipelined for pieces; for the MILP's
// windows (`Batches::AsOneBlock`) they count as one block each, as the MILP models them.
enum class Batches { Pipelined, AsOneBlock };
ThroughputProblem restrictTo(
    const ThroughputProblem& p, const std::vector<std::uint32_t>& tasks, bool entryDone, Batches batches)
{
    ThroughputProblem sub;
    sub.base = subproblem(p.base, tasks, {});
    sub.inputs = p.inputs;
    sub.sizes = p.sizes;
    sub.splits = p.splits;
    if (batches == Batches::Pipelined)
        sub.pieces = p.pieces;
    for (std::uint32_t t : tasks)
        sub.seconds.push_back(p.seconds[t]);
    if (entryDone)
        for (std::size_t u = 0; u < sub.seconds.front().size(); ++u)
            for (std::size_t k = 0; k < sub.seconds.front()[u].size(); ++k)
                if (std::isfinite(sub.seconds.front()[u][k]))
                    sub.seconds.front()[u][k] = 0;
    return sub;
}

// A split assignment searched with device orders by a fixed priority (breadth-first, as sa/ea).
class SplitSearch {
public:
    // `pipelined`: whether single-op moves may take pipelined splits (the whole-graph polish) or
    // only whole batches (pricing pieces, where twice the moves would cost the time to price them).
    SplitSearch(const ThroughputProblem& p, Clock::time_point deadline, bool pipelined = true)
        : p_(p)
        , order_(breadthFirstOrder(p.base.dag))
        , deadline_(deadline)
    {
        for (std::uint32_t s = 0; s < p.splits.size(); ++s)
            if (pipelined || !p.pipelined(s))
                candidates_.push_back(s);
    }

    // The better of two orders for these splits: breadth-first, and list scheduling by earliest start.
    double cost(const std::vector<std::uint32_t>& split) const { return best(split).second; }
    ThroughputMapping mapping(const std::vector<std::uint32_t>& split) const { return best(split).first; }

    // Each movable op in turn takes its best split, the others held, until a round changes
    // nothing (or the deadline). Returns the makespan reached.
    double descend(std::vector<std::uint32_t>& split, const std::vector<std::int64_t>& fixed, int rounds = 8) const
    {
        double best = cost(split);
        for (int round = 0; round < rounds; ++round) {
            bool improved = false;
            for (std::uint32_t t : order_) {
                if (!fixed.empty() && fixed[t] != kFree)
                    continue;
                const std::uint32_t keep = split[t];
                std::uint32_t chosen = keep;
                for (std::uint32_t s : candidates_) {
                    if (s == keep)
                        continue;
                    split[t] = s;
                    const double c = cost(split);
                    if (c < best * (1 - 1e-12)) {
                        best = c;
                        chosen = s;
                    }
                }
                split[t] = chosen;
                improved = improved || chosen != keep;
                if (Clock::now() > deadline_)
                    return best;
            }
            if (!improved)
                break;
        }
        return best;
    }

private:
    std::pair<ThroughputMapping, double> best(const std::vector<std::uint32_t>& split) const
    {
        ThroughputMapping bfs = throughputWithOrder(p_, split, order_);
        const double bfsCost = throughputMakespan(p_, bfs);
        ThroughputMapping listed = throughputEarliestStart(p_, split, order_);
        if (const double listedCost = throughputMakespan(p_, listed); listedCost < bfsCost)
            return { std::move(listed), listedCost };
        return { std::move(bfs), bfsCost };
    }

    const ThroughputProblem& p_;
    std::vector<std::uint32_t> order_;
    Clock::time_point deadline_;
    std::vector<std::uint32_t> candidates_;
};

struct Piece {
    double makespan = kUnsupported; // from the barrier to the exit's last batch
    std::vector<std::uint32_t> split; // per local task
    ThroughputMapping mapping; // local
};

// One segment: its tasks (entry separator first when there is one, exit last when there is one).
struct SegmentTasks {
    std::vector<std::uint32_t> tasks;
    bool hasEntry = false, hasExit = false;
};

class ThroughputSplitter {
public:
    // `pool`: the baselines already run (list heuristics, SA, EA); the result is never worse.
    ThroughputSplitter(const ThroughputProblem& p, const MapperOptions& o, std::vector<std::uint32_t> hint,
        std::vector<ThroughputResult> pool, Clock::time_point t0)
        : p_(p)
        , o_(o)
        , hint_(std::move(hint))
        , pool_(std::move(pool))
        , t0_(t0)
        ,
        // 70% of the limit from the mapper's start: CBC may overrun a window's limit, and the
        // bound and the last evaluation come after.
        deadline_(
            t0_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(0.7 * o.timeLimitSeconds)))
    {
    }

    ThroughputResult run();

private:
    // The piece chosen for one exit split of a segment, and the entry split it starts from.
    struct Choice {
        std::int64_t entry = kFree;
        Piece piece;
    };
    // The dynamic program's outcome: per segment and exit split the best choice; the best last
    // exit and the least barrier-to-barrier time through it.
    struct PiecePath {
        std::vector<std::vector<Choice>> choice;
        std::size_t bestExit = 0;
        double makespan = kUnsupported;
    };

    void buildSegments();
    PiecePath cheapestPath() const;
    // Pricing takes at most half the time; the MILP on the chosen pieces and the polish the rest.
    Clock::time_point pricingEnd() const { return t0_ + (deadline_ - t0_) / 2; }
    ThroughputMapping join(const PiecePath& dp) const;
    Piece price(
        const ThroughputProblem& sub, const SegmentTasks& seg, std::int64_t entrySplit, std::int64_t exitSplit) const;
    Piece refine(const ThroughputProblem& sub, const SegmentTasks& seg, std::int64_t entrySplit, std::int64_t exitSplit,
        const Piece& from) const;
    bool improveWindow(
        std::size_t first, std::size_t last, double seconds, ThroughputMapping& current, ThroughputTimes& currentTimes);
    std::vector<std::pair<std::size_t, std::size_t>> windows(std::size_t offset) const;
    void polish(ThroughputResult& result); // over the whole graph, barriers gone
    void milpWindows(ThroughputResult& result);

    const ThroughputProblem& p_;
    const MapperOptions& o_;
    std::vector<std::uint32_t> hint_; // the best list heuristic's splits, a start for every piece
    std::vector<ThroughputResult> pool_;
    Clock::time_point t0_, deadline_;
    std::vector<SegmentTasks> segments_;
    std::vector<std::size_t> segmentOf_; // per task: the segment it belongs to (a separator: the one it ends)
    std::size_t milpWindows_ = 0, milpImproved_ = 0;
    bool polished_ = false, repricedBetter_ = false;
};

Piece ThroughputSplitter::price(
    const ThroughputProblem& sub, const SegmentTasks& seg, std::int64_t entrySplit, std::int64_t exitSplit) const
{
    const std::size_t n = seg.tasks.size();
    std::vector<std::int64_t> fixed(n, kFree);
    if (seg.hasEntry)
        fixed.front() = entrySplit;
    if (seg.hasExit)
        fixed.back() = exitSplit;
    SplitSearch search(sub, deadline_, false);
    // Starts: the heuristic's splits, and every free op on the exit's (or entry's) split.
    std::vector<std::vector<std::uint32_t>> starts(2, std::vector<std::uint32_t>(n));
    const std::int64_t uniform = seg.hasExit ? exitSplit
        : seg.hasEntry                       ? entrySplit
                                             : static_cast<std::int64_t>(hint_[seg.tasks.back()]);
    for (std::size_t i = 0; i < n; ++i) {
        starts[0][i] = fixed[i] != kFree ? static_cast<std::uint32_t>(fixed[i]) : hint_[seg.tasks[i]];
        starts[1][i] = fixed[i] != kFree ? static_cast<std::uint32_t>(fixed[i]) : static_cast<std::uint32_t>(uniform);
    }
    // Long pieces (multi-channel graphs, few separators) descend from the heuristic's splits only:
    // the uniform start was not seen to win there, and costs as much again.
    const bool longPiece = n > kLongPieceTasks;
    Piece best;
    for (auto& split : starts) {
        const double c = search.descend(split, fixed);
        if (c < best.makespan) {
            best.makespan = c;
            best.split = split;
        }
        if (longPiece || starts[0] == starts[1])
            break;
    }
    if (std::isfinite(best.makespan))
        best.mapping = search.mapping(best.split);
    return best;
}

// Another (entry, exit) pair of a long piece from a priced one: the new entry and exit splits,
// and single-op moves only near them (within two dependencies), the rest of the piece held. The
// inside of a long piece hardly depends on its ends, so every pair gets a price in the time.
Piece ThroughputSplitter::refine(const ThroughputProblem& sub, const SegmentTasks& seg, std::int64_t entrySplit,
    std::int64_t exitSplit, const Piece& from) const
{
    const std::size_t n = seg.tasks.size();
    const Dag& dag = sub.base.dag;
    std::vector<std::int64_t> fixed(from.split.begin(), from.split.end());
    std::vector<std::uint32_t> split = from.split;
    auto release = [&](std::uint32_t end, bool down) {
        std::vector<std::uint32_t> near { end };
        for (int hop = 0; hop < 2; ++hop) {
            const std::vector<std::uint32_t> ring = near;
            for (std::uint32_t t : ring)
                for (std::uint32_t q : down ? dag.successors[t] : dag.predecessors[t])
                    near.push_back(q);
        }
        for (std::uint32_t t : near)
            fixed[t] = kFree;
    };
    if (seg.hasEntry)
        release(0, true);
    if (seg.hasExit)
        release(static_cast<std::uint32_t>(n - 1), false);
    if (seg.hasEntry)
        fixed.front() = entrySplit, split.front() = static_cast<std::uint32_t>(entrySplit);
    if (seg.hasExit)
        fixed.back() = exitSplit, split.back() = static_cast<std::uint32_t>(exitSplit);
    SplitSearch search(sub, deadline_, false);
    Piece piece;
    piece.makespan = search.descend(split, fixed);
    piece.split = split;
    if (std::isfinite(piece.makespan))
        piece.mapping = search.mapping(piece.split);
    return piece;
}

// The tasks of segments [first, last]: the first one's entry separator leads (finished at the
// window's start), every later segment adds its inner tasks and exit.
std::vector<std::uint32_t> windowTasks(const std::vector<SegmentTasks>& segments, std::size_t first, std::size_t last)
{
    std::vector<std::uint32_t> tasks = segments[first].tasks;
    for (std::size_t i = first + 1; i <= last; ++i)
        tasks.insert(tasks.end(), segments[i].tasks.begin() + (segments[i].hasEntry ? 1 : 0), segments[i].tasks.end());
    return tasks;
}

// Consecutive segments grouped, from `offset` on, while the window's MILP stays small.
std::vector<std::pair<std::size_t, std::size_t>> ThroughputSplitter::windows(std::size_t offset) const
{
    std::vector<std::pair<std::size_t, std::size_t>> out;
    std::size_t first = offset;
    while (first < segments_.size()) {
        std::size_t last = first;
        while (last + 1 < segments_.size()) {
            const auto tasks = windowTasks(segments_, first, last + 1);
            const ThroughputProblem sub = restrictTo(p_, tasks, segments_[first].hasEntry, Batches::AsOneBlock);
            std::vector<std::int64_t> fixed(tasks.size(), kFree);
            if (segments_[first].hasEntry)
                fixed.front() = 0;
            if (throughputMilpRows(sub, fixed) > kThroughputMilpMaxRows / 8)
                break;
            ++last;
        }
        out.emplace_back(first, last);
        first = last + 1;
    }
    return out;
}

// Solves the window again with the MILP (barrier at its entry, its exit kept when a later
// segment builds on it) from the current mapping; keeps the result when the whole mapping,
// evaluated without barriers, gets no slower.
bool ThroughputSplitter::improveWindow(
    std::size_t first, std::size_t last, double seconds, ThroughputMapping& current, ThroughputTimes& currentTimes)
{
    const bool hasEntry = segments_[first].hasEntry;
    const auto tasks = windowTasks(segments_, first, last);
    const ThroughputProblem sub = restrictTo(p_, tasks, hasEntry, Batches::AsOneBlock);
    std::vector<std::int64_t> fixed(tasks.size(), kFree);
    if (hasEntry)
        fixed.front() = current.split[tasks.front()];
    if (last + 1 < segments_.size() && segments_[last].hasExit)
        fixed.back() = current.split[tasks.back()];
    if (throughputMilpRows(sub, fixed) > kThroughputMilpMaxRows / 8)
        return false;
    // The MILP has one batch per op and device: a window holding a pipelined split has no MIP
    // start there (and CBC's preprocessing was seen to crash on such a start).
    if (std::any_of(tasks.begin(), tasks.end(), [&](std::uint32_t t) { return p_.pipelined(current.split[t]); }))
        return false;
    std::vector<std::int64_t> local(p_.base.taskCount(), -1);
    for (std::size_t i = 0; i < tasks.size(); ++i)
        local[tasks[i]] = static_cast<std::int64_t>(i);
    ThroughputResult start;
    start.mapping.order.assign(p_.base.deviceCount(), {});
    for (std::uint32_t t : tasks)
        start.mapping.split.push_back(current.split[t]);
    for (std::size_t u = 0; u < current.order.size(); ++u)
        for (std::uint32_t t : current.order[u])
            if (local[t] >= 0)
                start.mapping.order[u].push_back(static_cast<std::uint32_t>(local[t]));
    start.times = evaluate(sub, start.mapping);
    if (!start.times.feasible)
        return false;
    MapperOptions o = o_;
    o.timeLimitSeconds = seconds;
    ++milpWindows_;
    const ThroughputResult r = mapThroughputMilp(sub, o, start, fixed);
    if (!r.times.feasible || r.times.makespan >= start.times.makespan * (1 - 1e-9))
        return false;
    // Write back: splits, and each device's order with the window's block replaced.
    ThroughputMapping candidate = current;
    for (std::size_t i = hasEntry ? 1 : 0; i < tasks.size(); ++i)
        candidate.split[tasks[i]] = r.mapping.split[i];
    for (std::size_t u = 0; u < candidate.order.size(); ++u) {
        std::vector<std::uint32_t> order;
        for (std::uint32_t t : current.order[u])
            if (segmentOf_[t] < first)
                order.push_back(t);
        for (std::uint32_t l : r.mapping.order[u])
            if (!(hasEntry && l == 0))
                order.push_back(tasks[l]);
        for (std::uint32_t t : current.order[u])
            if (segmentOf_[t] > last)
                order.push_back(t);
        candidate.order[u] = std::move(order);
    }
    const ThroughputTimes times = evaluate(p_, candidate);
    if (!times.feasible || times.makespan > currentTimes.makespan * (1 + 1e-12))
        return false;
    ++milpImproved_;
    current = std::move(candidate);
    currentTimes = times;
    return true;
}

void ThroughputSplitter::polish(ThroughputResult& result)
{
    // Before the MILP windows, so that it does not depend on the time they leave: moves over whole
    // batches, the EA from there (over whole batches too: pipelined splits would halve its useful
    // mutations), then moves that may also pipeline, from both; the best is kept (the EA judges
    // splits by one order, the moves by the better of two). The EA runs kPolishEaRuns times with
    // consecutive seeds: where its result lands after the moves varied by up to 1.5% with the seed
    // on Table IV's graphs, and each run costs a fraction of a second.
    SplitSearch whole(p_, deadline_), wholeOnly(p_, deadline_, false);
    std::vector<std::uint32_t> polished = result.mapping.split;
    wholeOnly.descend(polished, {});
    ThroughputProblem unpiped = p_;
    for (std::uint32_t s = 0; s < unpiped.splits.size(); ++s)
        if (p_.pipelined(s)) { // pipelined twins come after every whole split
            unpiped.splits.resize(s);
            unpiped.pieces.resize(std::min(unpiped.pieces.size(), static_cast<std::size_t>(s)));
            break;
        }
    MapperOptions eaOptions = o_;
    eaOptions.timeLimitSeconds = std::max(0.0, std::chrono::duration<double>(deadline_ - Clock::now()).count());
    std::vector<std::vector<std::uint32_t>> candidates { polished };
    if (std::all_of(polished.begin(), polished.end(), [&](std::uint32_t x) { return x < unpiped.splits.size(); }))
        for (std::uint64_t run = 0; run < kPolishEaRuns; ++run) {
            MapperOptions one = eaOptions;
            one.seed = o_.seed + run;
            candidates.push_back(improveThroughputSplits(unpiped, one, polished).mapping.split);
        }
    double bestCost = kUnsupported;
    for (std::vector<std::uint32_t>& candidate : candidates) {
        whole.descend(candidate, {});
        if (const double c = whole.cost(candidate); c < bestCost) {
            bestCost = c;
            polished = candidate;
        }
    }
    {
        const ThroughputTimes t = evaluate(p_, whole.mapping(polished));
        if (t.feasible && t.makespan < result.times.makespan * (1 - 1e-12)) {
            result.mapping = whole.mapping(polished);
            result.times = t;
            polished_ = true;
        }
    }
}

void ThroughputSplitter::milpWindows(ThroughputResult& result)
{
    const std::size_t segmentCount = segments_.size();
    // The MILP over windows of consecutive pieces (barriers only at window edges), twice, the
    // second time with the edges moved into the first pass's windows.
    if (milpAvailable()) {
        const auto pass1 = windows(0);
        const std::size_t shift = std::max<std::size_t>(1, (pass1.front().second - pass1.front().first + 1) / 2);
        auto all = pass1;
        if (segmentCount > 1) {
            const auto pass2 = windows(std::min(shift, segmentCount - 1));
            all.insert(all.end(), pass2.begin(), pass2.end());
        }
        for (std::size_t w = 0; w < all.size(); ++w) {
            const double left = std::chrono::duration<double>(deadline_ - Clock::now()).count() * 0.9;
            // Under half a second per window CBC's preprocessing can be cut short, and CBC 2.10.8
            // was seen to crash there (CglPreProcess::postProcess, a 0.27 s limit): no MILP then.
            if (left / static_cast<double>(all.size() - w) < 0.5)
                break;
            improveWindow(
                all[w].first, all[w].second, left / static_cast<double>(all.size() - w), result.mapping, result.times);
        }
    }
}

// The segments between separators, each with its entry and exit separators; segmentOf_ per task.
void ThroughputSplitter::buildSegments()
{
    std::vector<SegmentTasks>& segments = segments_;
    segmentOf_.assign(p_.base.taskCount(), 0);
    for (const Segment& s : segmentsBetweenSeparators(p_.base.dag)) {
        SegmentTasks seg;
        seg.hasEntry = s.entry >= 0;
        seg.hasExit = s.exit >= 0;
        if (seg.hasEntry)
            seg.tasks.push_back(static_cast<std::uint32_t>(s.entry));
        seg.tasks.insert(seg.tasks.end(), s.inner.begin(), s.inner.end());
        if (seg.hasExit)
            seg.tasks.push_back(static_cast<std::uint32_t>(s.exit));
        for (std::size_t l = seg.hasEntry ? 1 : 0; l < seg.tasks.size(); ++l)
            segmentOf_[seg.tasks[l]] = segments.size();
        segments.push_back(std::move(seg));
    }
}

// Prices pieces segment by segment and keeps, per exit split, the cheapest path to it.
ThroughputSplitter::PiecePath ThroughputSplitter::cheapestPath() const
{
    const std::size_t k = p_.base.deviceCount(), splits = p_.splits.size();
    const std::vector<SegmentTasks>& segments = segments_;
    const auto pricingDeadline = pricingEnd();

    // dp[a]: the least barrier-to-barrier time up to the current separator with split a.
    std::vector<double> dp(1, 0.0);
    bool firstState = true;
    PiecePath result;
    std::vector<std::vector<Choice>>& choice = result.choice;
    choice.resize(segments.size());
    for (std::size_t i = 0; i < segments.size(); ++i) {
        const SegmentTasks& seg = segments[i];
        if (seg.tasks.empty())
            throw Error("milp-split (throughput): an empty module"); // segmentsBetweenSeparators never makes one
        const ThroughputProblem sub = restrictTo(p_, seg.tasks, seg.hasEntry, Batches::Pipelined);
        const std::size_t exits = seg.hasExit ? splits : 1;
        std::vector<double> next(exits, kUnsupported);
        choice[i].assign(exits, Choice {});
        // Only the cheapest few entry splits go on (all of them when every split is one device,
        // as with one input): pricing is |entries| x |exits| searches per segment.
        std::vector<std::size_t> entries;
        for (std::size_t a = 0; a < dp.size(); ++a)
            if (std::isfinite(dp[a]))
                entries.push_back(a);
        std::stable_sort(entries.begin(), entries.end(), [&](std::size_t x, std::size_t y) { return dp[x] < dp[y]; });
        if (entries.size() > std::max<std::size_t>(kEntryStates, k))
            entries.resize(std::max<std::size_t>(kEntryStates, k));
        // A long piece is searched in full for its first (entry, exit) pair only; the other pairs
        // refine that piece near their ends (see refine()).
        const bool refined = seg.tasks.size() > kLongPieceTasks;
        std::optional<Piece> priced;
        for (std::size_t a : entries) {
            for (std::size_t b = 0; b < exits; ++b) {
                if (seg.hasExit && p_.pipelined(b))
                    continue; // separators as barriers: their states are whole batches
                if (Clock::now() > pricingDeadline && std::isfinite(next[b]))
                    continue; // out of pricing time: keep the first piece found for this exit
                const std::int64_t entry = firstState ? kFree : static_cast<std::int64_t>(a);
                const std::int64_t exit = seg.hasExit ? static_cast<std::int64_t>(b) : kFree;
                Piece piece = refined && priced ? refine(sub, seg, entry, exit, *priced) : price(sub, seg, entry, exit);
                if (refined && !priced && std::isfinite(piece.makespan))
                    priced = piece;
                if (dp[a] + piece.makespan < next[b]) {
                    next[b] = dp[a] + piece.makespan;
                    choice[i][b] = Choice { firstState ? kFree : static_cast<std::int64_t>(a), std::move(piece) };
                }
            }
        }
        dp = std::move(next);
        firstState = false;
    }
    std::size_t bestExit = 0;
    for (std::size_t b = 1; b < dp.size(); ++b)
        if (dp[b] < dp[bestExit])
            bestExit = b;
    if (!std::isfinite(dp[bestExit]))
        throw Error("milp-split (throughput): no piece of some module runs on these devices");
    result.bestExit = bestExit;
    result.makespan = dp[bestExit];
    return result;
}

// The pieces on the cheapest path, joined into one mapping of the whole graph.
ThroughputMapping ThroughputSplitter::join(const PiecePath& dp) const
{
    const std::size_t n = p_.base.taskCount(), k = p_.base.deviceCount();
    const std::vector<SegmentTasks>& segments = segments_;
    const std::vector<std::vector<Choice>>& choice = dp.choice;
    // The chosen path, last segment first; then the MILP on each piece in its share of the time.
    std::vector<std::pair<std::int64_t, std::int64_t>> path(segments.size()); // (entry split, exit split)
    for (std::size_t i = segments.size(), b = dp.bestExit; i-- > 0;) {
        path[i] = { choice[i][b].entry, segments[i].hasExit ? static_cast<std::int64_t>(b) : kFree };
        b = choice[i][b].entry == kFree ? 0 : static_cast<std::size_t>(choice[i][b].entry);
    }
    std::vector<Piece> pieces(segments.size());
    for (std::size_t i = 0; i < segments.size(); ++i)
        pieces[i] = choice[i][segments[i].hasExit ? static_cast<std::size_t>(path[i].second) : 0].piece;
    // Join: global splits; each device's order is the pieces' orders one after the other.
    std::vector<std::uint32_t> split(n, 0);
    ThroughputMapping joined;
    joined.order.assign(k, {});
    for (std::size_t i = 0; i < segments.size(); ++i) {
        const SegmentTasks& seg = segments[i];
        for (std::size_t l = seg.hasEntry ? 1 : 0; l < seg.tasks.size(); ++l)
            split[seg.tasks[l]] = pieces[i].split[l];
        for (std::size_t u = 0; u < k; ++u)
            for (std::uint32_t local : pieces[i].mapping.order[u])
                if (!(seg.hasEntry && local == 0))
                    joined.order[u].push_back(seg.tasks[local]);
    }
    joined.split = split;
    return joined;
}

ThroughputResult ThroughputSplitter::run()
{
    buildSegments();
    const PiecePath dp = cheapestPath();
    const double dpMakespan = dp.makespan;
    const double pricingSeconds = std::chrono::duration<double>(Clock::now() - t0_).count();

    const ThroughputMapping joined = join(dp);
    ThroughputResult result;
    result.mapper = "milp-split";
    result.mapping = joined;
    result.times = evaluate(p_, joined);
    if (!result.times.feasible)
        throw Error("milp-split (throughput): the joined pieces do not form a schedule: " + result.times.problem);
    polish(result);
    // Once more from the polished mapping, while pricing time is left: every piece starts from its
    // splits, so the program can combine what the polish found across pieces (a third round was
    // not seen to gain).
    if (Clock::now() < pricingEnd()) {
        hint_ = result.mapping.split;
        ThroughputResult repriced = result;
        repriced.mapping = join(cheapestPath());
        repriced.times = evaluate(p_, repriced.mapping);
        const bool polishedBefore = polished_;
        if (repriced.times.feasible) {
            polish(repriced);
            repricedBetter_ = repriced.times.makespan < result.times.makespan * (1 - 1e-12);
            if (repricedBetter_)
                result = std::move(repriced);
        }
        polished_ = polishedBefore || repricedBetter_; // the note speaks of the mapping returned
    }
    const auto windowsFrom = Clock::now();
    milpWindows(result);
    const double windowSeconds = std::chrono::duration<double>(Clock::now() - windowsFrom).count();
    const double spent = std::chrono::duration<double>(Clock::now() - t0_).count();
    const double orderSeconds
        = o_.maxNodes ? 0.0 : std::min(spent / 2, std::chrono::duration<double>(deadline_ - Clock::now()).count());
    bool reordered = false;
    if (o_.maxNodes || orderSeconds > 0) {
        const auto ordered = improveThroughputOrder(p_, result.mapping.split, breadthFirstOrder(p_.base.dag),
            result.times.makespan, kOrderEvaluationsPerTask * p_.base.taskCount(), o_.seed, orderSeconds);
        if (ordered) {
            const ThroughputTimes t = evaluate(p_, *ordered);
            if (t.feasible && t.makespan < result.times.makespan * (1 - 1e-12)) {
                result.mapping = *ordered;
                result.times = t;
                reordered = true;
            }
        }
    }
    std::string note = "dp over " + std::to_string(segments_.size()) + " pieces: " + std::to_string(dpMakespan * 1e3)
        + " ms with barriers (priced in " + std::to_string(pricingSeconds) + " s)";
    if (polished_)
        note += "; polished by single-op moves and the EA";
    if (repricedBetter_)
        note += "; priced again from the polished mapping: better";
    if (reordered)
        note += "; reordered";
    if (milpWindows_)
        note += "; MILP improved " + std::to_string(milpImproved_) + " of " + std::to_string(milpWindows_)
            + " windows (" + std::to_string(windowSeconds) + " s)";

    for (ThroughputResult& other : pool_)
        if (!result.times.feasible || other.times.makespan < result.times.makespan * (1 - 1e-12)) {
            note += "; " + other.mapper + " was better, kept";
            result.mapping = std::move(other.mapping);
            result.times = other.times;
        }
    if (!result.times.feasible)
        throw Error("milp-split (throughput) found no feasible mapping: " + result.times.problem);
    result.status = SolveStatus::Feasible;
    const double bound = throughputLowerBound(p_);
    result.gap = std::max(0.0, (result.times.makespan - bound) / result.times.makespan);
    result.solveSeconds = std::chrono::duration<double>(Clock::now() - t0_).count();
    result.note = note;
    return result;
}

} // namespace

ThroughputResult mapThroughputMilpSplit(const ThroughputProblem& p, const MapperOptions& o)
{
    p.validate();
    const auto t0 = Clock::now();
    // The start every piece searches from: the splits of the best list heuristic.
    std::optional<ThroughputResult> best = bestListHeuristic(p, o);
    if (!best)
        throw Error("milp-split (throughput): no list heuristic found a mapping to start from");
    std::vector<std::uint32_t> hint = best->mapping.split;
    // Never worse than a baseline: the list heuristics, and SA and EA as they run on their own
    // (the same options and seed, so the same answer), run first so that they count in the limit.
    std::vector<ThroughputResult> pool { std::move(*best) };
    for (auto* search : { &mapThroughputAnnealing, &mapThroughputEvolutionary }) {
        try {
            pool.push_back(search(p, o));
        } catch (const Error&) {
        }
    }
    return ThroughputSplitter(p, o, std::move(hint), std::move(pool), t0).run();
}

} // namespace opsched::map
