#include "schedule/ios_scheduler.h"

#include "graph/blocks.h"
#include "graph/reachability.h"
#include "graph/width.h"

#include <bit>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <unordered_map>

template <> struct std::hash<opsched::DynamicBitset> {
    std::size_t operator()(const opsched::DynamicBitset& b) const noexcept
    {
        std::size_t h = 0x9E3779B97F4A7C15ULL;
        for (auto w : b.words())
            h = (h ^ w) * 0x100000001B3ULL + (h >> 17);
        return h;
    }
};

namespace opsched {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A solved part in local indices (positions in the part's node list), reusable by identical parts.
struct PartSolution {
    std::vector<Stage> stages; // OpIds hold local indices
    double latency = 0;
};

// Set operations on the two state representations: one machine word for parts of up to 64 ops
// (the common case, and much faster), a DynamicBitset beyond that.
namespace bits {
inline bool test(std::uint64_t m, std::size_t i)
{
    return (m >> i) & 1U;
}
inline void set(std::uint64_t& m, std::size_t i)
{
    m |= std::uint64_t { 1 } << i;
}
inline void reset(std::uint64_t& m, std::size_t i)
{
    m &= ~(std::uint64_t { 1 } << i);
}
inline std::size_t count(std::uint64_t m)
{
    return static_cast<std::size_t>(std::popcount(m));
}
inline bool any(std::uint64_t m)
{
    return m != 0;
}
inline bool intersects(std::uint64_t a, std::uint64_t b)
{
    return (a & b) != 0;
}
inline void unite(std::uint64_t& a, std::uint64_t b)
{
    a |= b;
}
inline void intersect(std::uint64_t& a, std::uint64_t b)
{
    a &= b;
}
inline void subtract(std::uint64_t& a, std::uint64_t b)
{
    a &= ~b;
}
inline std::uint64_t empty(std::uint64_t, std::size_t)
{
    return 0;
}
template <typename F> void forEach(std::uint64_t m, F&& f)
{
    while (m) {
        f(static_cast<std::size_t>(std::countr_zero(m)));
        m &= m - 1;
    }
}

inline bool test(const DynamicBitset& m, std::size_t i)
{
    return m.test(i);
}
inline void set(DynamicBitset& m, std::size_t i)
{
    m.set(i);
}
inline void reset(DynamicBitset& m, std::size_t i)
{
    m.reset(i);
}
inline std::size_t count(const DynamicBitset& m)
{
    return m.count();
}
inline bool any(const DynamicBitset& m)
{
    return m.any();
}
inline bool intersects(const DynamicBitset& a, const DynamicBitset& b)
{
    return a.intersects(b);
}
inline void unite(DynamicBitset& a, const DynamicBitset& b)
{
    a |= b;
}
inline void intersect(DynamicBitset& a, const DynamicBitset& b)
{
    a &= b;
}
inline void subtract(DynamicBitset& a, const DynamicBitset& b)
{
    a.subtract(b);
}
inline DynamicBitset empty(const DynamicBitset&, std::size_t n)
{
    return DynamicBitset(n);
}
template <typename F> void forEach(const DynamicBitset& m, F&& f)
{
    m.forEach(f);
}
} // namespace bits

// The DP over one part; Mask is std::uint64_t (up to 64 ops) or DynamicBitset.
template <typename Mask> class PartSearch {
public:
    PartSearch(const Graph& graph, const std::vector<std::uint32_t>& nodes, const Reachability& reach,
        StageCostModel& cost, const IosOptions& options)
        : graph_(graph)
        , nodes_(nodes)
        , n_(nodes.size())
        , cost_(cost)
        , options_(options)
    {
        const Mask none = bits::empty(Mask {}, n_);
        std::vector<std::uint32_t> local(graph.opCount(), kNone);
        for (std::uint32_t i = 0; i < n_; ++i)
            local[nodes[i]] = i;
        desc_.assign(n_, none);
        for (std::uint32_t i = 0; i < n_; ++i)
            reach.descendants(nodes[i]).forEach([&](std::size_t v) {
                if (local[v] != kNone)
                    bits::set(desc_[i], local[v]);
            });
        chains_ = computeWidth(inducedSubgraph(graph.dag(), nodes)).chains;
    }

    PartSolution solve()
    {
        Mask all = bits::empty(Mask {}, n_);
        for (std::size_t i = 0; i < n_; ++i)
            bits::set(all, i);
        PartSolution out;
        out.latency = best(all);
        for (Mask s = all; bits::any(s);) {
            const Entry& e = memo_.at(s);
            out.stages.insert(out.stages.begin(), stageCache_.at(e.ending).stage);
            bits::subtract(s, e.ending);
        }
        return out;
    }

    std::size_t states() const { return memo_.size(); }
    std::size_t transitions() const { return transitions_; }

private:
    static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

    struct Entry {
        double cost = kInf;
        Mask ending {};
    };
    struct StageChoice {
        double latency = kInf;
        Stage stage;
    };
    struct Group {
        Mask members;
        std::size_t size = 0;
    };
    // The ending being built by the enumeration: chosen roots and the groups their closures form.
    struct Partial {
        Mask closure;
        Mask roots;
        std::vector<Group> groups;
    };

    double best(const Mask& s)
    {
        if (!bits::any(s))
            return 0.0;
        if (auto it = memo_.find(s); it != memo_.end())
            return it->second.cost;
        Entry entry;
        Partial partial { bits::empty(Mask {}, n_), bits::empty(Mask {}, n_), {} };
        enumerate(s, 0, partial, entry);
        const double c = entry.cost;
        memo_.emplace(s, std::move(entry));
        return c;
    }

    // Chooses at most one root per chain (an antichain); closures of roots that overlap share a
    // group. Pruning: groups of at most r ops, at most s groups.
    void enumerate(const Mask& s, std::size_t chain, Partial& p, Entry& entry)
    {
        if (chain == chains_.size()) {
            if (p.groups.empty() || p.groups.size() > options_.maxGroups)
                return;
            consider(s, p, entry);
            return;
        }
        enumerate(s, chain + 1, p, entry); // no root on this chain
        const std::size_t r = options_.variant == IosVariant::Merge ? 1 : options_.maxGroupOps;
        const auto& c = chains_[chain];
        // Walk the chain from its end: closures only grow towards its start.
        for (auto it = c.rbegin(); it != c.rend(); ++it) {
            const std::uint32_t e = *it;
            if (!bits::test(s, e))
                continue;
            Mask ce = desc_[e];
            bits::intersect(ce, s);
            bits::set(ce, e);
            const std::size_t size = bits::count(ce);
            if (size > r)
                break;
            // Antichain: e is below no chosen root and above none.
            if (bits::test(p.closure, e) || bits::intersects(ce, p.roots))
                continue;
            // Merge e's closure with every group it overlaps.
            Group g { ce, 0 };
            std::vector<Group> kept;
            kept.reserve(p.groups.size() + 1);
            for (const auto& other : p.groups) {
                if (bits::intersects(other.members, ce))
                    bits::unite(g.members, other.members);
                else
                    kept.push_back(other);
            }
            g.size = bits::count(g.members);
            if (g.size > r)
                continue;
            kept.push_back(g);

            Partial next { p.closure, p.roots, std::move(kept) };
            bits::unite(next.closure, ce);
            bits::set(next.roots, e);
            enumerate(s, chain + 1, next, entry);
        }
    }

    void consider(const Mask& s, const Partial& p, Entry& entry)
    {
        ++transitions_;
        const StageChoice& choice = stageFor(p);
        if (!std::isfinite(choice.latency))
            return;
        Mask rest = s;
        bits::subtract(rest, p.closure);
        const double total = best(rest) + choice.latency;
        if (total < entry.cost) {
            entry.cost = total;
            entry.ending = p.closure;
        }
    }

    const StageChoice& stageFor(const Partial& p)
    {
        if (auto it = stageCache_.find(p.closure); it != stageCache_.end())
            return it->second;
        std::vector<std::vector<OpId>> groups;
        for (const auto& g : p.groups) {
            auto& out = groups.emplace_back();
            bits::forEach(g.members, [&](std::size_t v) { out.emplace_back(nodes_[v]); });
        }
        std::sort(groups.begin(), groups.end());
        const bool singleOp = groups.size() == 1 && groups.front().size() == 1;
        const bool allSingles = std::all_of(groups.begin(), groups.end(), [](const auto& g) { return g.size() == 1; });

        StageChoice choice;
        if (options_.variant != IosVariant::Merge || singleOp) {
            Stage stage { StageStrategy::Concurrent, groups };
            choice.latency = cost_.stageLatency(graph_, stage);
            choice.stage = std::move(stage);
        }
        if (options_.variant != IosVariant::Parallel && allSingles && groups.size() > 1) {
            std::vector<OpId> ops;
            for (const auto& g : groups)
                ops.push_back(g.front());
            if (mergeProblem(graph_, ops).empty()) {
                Stage stage { StageStrategy::Merge, groups };
                const double t = cost_.stageLatency(graph_, stage);
                if (t < choice.latency) {
                    choice.latency = t;
                    choice.stage = std::move(stage);
                }
            }
        }
        return stageCache_.emplace(p.closure, std::move(choice)).first->second;
    }

    const Graph& graph_;
    const std::vector<std::uint32_t>& nodes_;
    std::size_t n_;
    StageCostModel& cost_;
    const IosOptions& options_;
    std::vector<Mask> desc_;
    std::vector<std::vector<std::uint32_t>> chains_;
    std::unordered_map<Mask, Entry> memo_;
    std::unordered_map<Mask, StageChoice> stageCache_;
    std::size_t transitions_ = 0;
};

template <typename Mask>
PartSolution searchPart(const Graph& graph, const std::vector<std::uint32_t>& nodes, const Reachability& reach,
    StageCostModel& cost, const IosOptions& options, IosResult& stats)
{
    PartSearch<Mask> search(graph, nodes, reach, cost, options);
    PartSolution solution = search.solve();
    stats.states += search.states();
    stats.transitions += search.transitions();
    return solution;
}

// Two parts with the same signature have the same ops, shapes and wiring, position by position.
std::string partSignature(const Graph& graph, const std::vector<std::uint32_t>& nodes)
{
    std::map<std::uint32_t, std::size_t> local;
    for (std::size_t i = 0; i < nodes.size(); ++i)
        local[nodes[i]] = i;
    std::string sig;
    for (auto v : nodes) {
        const Op& op = graph.op(OpId(v));
        sig += toString(op.kind);
        for (const auto& term : op.inputs) {
            sig += '[';
            for (auto t : term) {
                const auto p = graph.tensor(t).producer;
                if (p.valid() && local.count(p.value()))
                    sig += "L" + std::to_string(local[p.value()]) + ",";
                else
                    sig += "X" + graph.tensor(t).shape.toString() + ",";
            }
            sig += ']';
        }
        for (const auto& layer : op.layers) {
            sig += std::string(layer.kindName()) + ":" + toString(layer.activation.kind) + ":"
                + layer.output.toString();
            for (auto w : layer.weights)
                sig += "w" + graph.tensor(w).shape.toString();
        }
        sig += ';';
    }
    return sig;
}

} // namespace

IosResult iosSchedule(const Graph& graph, StageCostModel& cost, const IosOptions& options)
{
    if (options.maxGroupOps < 1 || options.maxGroups < 1)
        throw Error("ios: r (ops per group) and s (groups per stage) must be at least 1");
    const auto started = std::chrono::steady_clock::now();
    const Reachability reach(graph.dag());
    std::vector<std::vector<std::uint32_t>> regions;
    if (options.splitBlocks) {
        for (auto& b : findBlocks(graph.dag(), reach).blocks)
            regions.push_back(std::move(b.nodes));
    } else {
        auto& all = regions.emplace_back(graph.opCount());
        std::iota(all.begin(), all.end(), 0U);
    }
    std::vector<std::vector<std::uint32_t>> parts;
    for (const auto& region : regions)
        for (auto& p : splitIntoParts(graph.dag(), region, options.maxPartOps)) {
            // Consecutive small parts are searched as one: a part boundary forces a stage boundary
            // (a join), which the search can only weigh against other stages inside one part. Parts
            // follow each other in topological order, so their union is again a part.
            if (!parts.empty() && parts.back().size() + p.size() <= options.maxPartOps)
                parts.back().insert(parts.back().end(), p.begin(), p.end());
            else
                parts.push_back(std::move(p));
        }

    IosResult result;
    result.parts = parts.size();
    std::unordered_map<std::string, PartSolution> solved;
    IosProgress progress;
    progress.partsTotal = parts.size();
    for (const auto& nodes : parts) {
        result.largestPart = std::max(result.largestPart, nodes.size());
        const std::string sig = partSignature(graph, nodes);
        auto it = solved.find(sig);
        if (it != solved.end()) {
            ++result.reusedParts;
        } else {
            // Solve with global ids, then store in local indices for reuse.
            PartSolution global = nodes.size() <= 64
                ? searchPart<std::uint64_t>(graph, nodes, reach, cost, options, result)
                : searchPart<DynamicBitset>(graph, nodes, reach, cost, options, result);
            std::map<std::uint32_t, std::uint32_t> local;
            for (std::uint32_t i = 0; i < nodes.size(); ++i)
                local[nodes[i]] = i;
            for (auto& stage : global.stages)
                for (auto& g : stage.groups)
                    for (auto& id : g)
                        id = OpId(local.at(id.value()));
            it = solved.emplace(sig, std::move(global)).first;
        }
        for (Stage stage : it->second.stages) {
            for (auto& g : stage.groups)
                for (auto& id : g)
                    id = OpId(nodes[id.value()]);
            result.schedule.stages.push_back(std::move(stage));
        }
        result.latency += it->second.latency;

        ++progress.partsDone;
        progress.states = result.states;
        progress.transitions = result.transitions;
        if (options.progress && !options.progress(progress))
            throw Cancelled();
    }
    result.searchSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
}

} // namespace opsched
