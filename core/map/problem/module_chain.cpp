#include "map/problem/module_chain.h"

#include "map/problem/modules.h"

#include <algorithm>
#include <deque>
#include <limits>

namespace opsched::map {
namespace {

constexpr std::int64_t kInfinite = std::numeric_limits<std::int32_t>::max();
// What a channel output costs against one crossing edge: fewest outputs first (the next module's
// states), then fewest edges (the modules' own boundaries rather than cuts through one).
constexpr std::int64_t kOutputCost = 1000;

// A small max-flow (shortest augmenting paths); cuts here are a few channels.
class FlowGraph {
public:
    explicit FlowGraph(std::size_t n)
        : head_(n, -1)
    {
    }

    void add(std::size_t from, std::size_t to, std::int64_t capacity)
    {
        arcs_.push_back({ to, head_[from], capacity });
        head_[from] = static_cast<std::int64_t>(arcs_.size() - 1);
        arcs_.push_back({ from, head_[to], 0 });
        head_[to] = static_cast<std::int64_t>(arcs_.size() - 1);
    }

    void maxFlow(std::size_t s, std::size_t t)
    {
        for (;;) {
            std::vector<std::int64_t> via(head_.size(), -1);
            std::vector<char> seen(head_.size(), 0);
            std::deque<std::size_t> queue { s };
            seen[s] = 1;
            while (!queue.empty() && !seen[t]) {
                const std::size_t v = queue.front();
                queue.pop_front();
                for (std::int64_t a = head_[v]; a >= 0; a = arcs_[static_cast<std::size_t>(a)].next) {
                    const Arc& arc = arcs_[static_cast<std::size_t>(a)];
                    if (arc.capacity > 0 && !seen[arc.to]) {
                        seen[arc.to] = 1;
                        via[arc.to] = a;
                        queue.push_back(arc.to);
                    }
                }
            }
            if (!seen[t])
                return;
            std::int64_t bottleneck = kInfinite;
            for (std::size_t v = t; v != s; v = arcs_[static_cast<std::size_t>(via[v]) ^ 1U].to)
                bottleneck = std::min(bottleneck, arcs_[static_cast<std::size_t>(via[v])].capacity);
            for (std::size_t v = t; v != s;) {
                const auto a = static_cast<std::size_t>(via[v]);
                arcs_[a].capacity -= bottleneck;
                arcs_[a ^ 1U].capacity += bottleneck;
                v = arcs_[a ^ 1U].to;
            }
        }
    }

    // Nodes that still reach t in the residual graph; the others form the largest minimum cut's
    // source side.
    std::vector<char> reachesSink(std::size_t t) const
    {
        std::vector<char> seen(head_.size(), 0);
        std::deque<std::size_t> queue { t };
        seen[t] = 1;
        while (!queue.empty()) {
            const std::size_t v = queue.front();
            queue.pop_front();
            for (std::int64_t a = head_[v]; a >= 0; a = arcs_[static_cast<std::size_t>(a)].next) {
                // arc a goes v -> w; its reverse (a ^ 1) goes w -> v with residual capacity.
                const Arc& arc = arcs_[static_cast<std::size_t>(a)];
                if (arcs_[static_cast<std::size_t>(a) ^ 1U].capacity > 0 && !seen[arc.to]) {
                    seen[arc.to] = 1;
                    queue.push_back(arc.to);
                }
            }
        }
        return seen;
    }

private:
    struct Arc {
        std::size_t to;
        std::int64_t next;
        std::int64_t capacity;
    };
    std::vector<std::int64_t> head_;
    std::vector<Arc> arcs_;
};

// The largest down-set A of `rest` with rest[0..lo) in A and rest[hi..) outside whose tasks with a
// successor outside A are fewest (then its crossing edges). Node 2i is "task i in A", 2i+1 "task i
// pays as a channel output"; the arc between them and one arc per edge are what a cut pays.
std::vector<char> narrowestCut(const Dag& dag, const std::vector<std::uint32_t>& rest, std::size_t lo, std::size_t hi)
{
    const std::size_t m = rest.size(), s = 2 * m, t = 2 * m + 1;
    std::vector<std::int64_t> local(dag.size(), -1);
    for (std::size_t i = 0; i < m; ++i)
        local[rest[i]] = static_cast<std::int64_t>(i);
    FlowGraph g(2 * m + 2);
    for (std::size_t i = 0; i < m; ++i) {
        if (i < lo)
            g.add(s, 2 * i, kInfinite);
        if (i >= hi)
            g.add(2 * i, t, kInfinite);
        g.add(2 * i, 2 * i + 1, kOutputCost);
        for (std::uint32_t w : dag.successors[rest[i]]) {
            if (local[w] < 0) { // a later part of the chain: i pays when it is in A
                g.add(2 * i + 1, t, kInfinite);
                g.add(2 * i, t, 1);
                continue;
            }
            const auto j = static_cast<std::size_t>(local[w]);
            g.add(2 * i + 1, 2 * j, kInfinite); // i in A without paying puts w in A
            g.add(2 * j, 2 * i, kInfinite); // w in A puts its predecessor i in A
            g.add(2 * i, 2 * j, 1); // the edge itself, when it crosses
        }
    }
    g.maxFlow(s, t);
    const auto sinkSide = g.reachesSink(t);
    std::vector<char> inA(m, 0);
    for (std::size_t i = 0; i < m; ++i)
        inA[i] = sinkSide[2 * i] ? 0 : 1;
    return inA;
}

} // namespace

std::vector<std::vector<std::uint32_t>> narrowCutBlocks(
    const Dag& dag, const std::vector<std::uint32_t>& tasks, std::size_t maxTasks)
{
    maxTasks = std::max<std::size_t>(maxTasks, 2);
    std::vector<std::vector<std::uint32_t>> blocks;
    std::vector<std::uint32_t> rest = tasks;
    while (rest.size() > maxTasks) {
        const auto inA = narrowestCut(dag, rest, std::max<std::size_t>(1, maxTasks / 2), maxTasks);
        std::vector<std::uint32_t> block, after;
        for (std::size_t i = 0; i < rest.size(); ++i)
            (inA[i] ? block : after).push_back(rest[i]);
        blocks.push_back(std::move(block));
        rest = std::move(after);
    }
    if (!rest.empty())
        blocks.push_back(std::move(rest));
    return blocks;
}

std::vector<std::vector<std::uint32_t>> chainBoundaries(
    const Dag& dag, const std::vector<std::vector<std::uint32_t>>& blocks)
{
    std::vector<std::size_t> blockOf(dag.size(), 0);
    for (std::size_t b = 0; b < blocks.size(); ++b)
        for (std::uint32_t t : blocks[b])
            blockOf[t] = b;
    std::vector<std::vector<std::uint32_t>> boundary(blocks.size() + 1);
    for (std::size_t b = 0; b < blocks.size(); ++b)
        for (std::uint32_t t : blocks[b]) {
            std::size_t last = b;
            for (std::uint32_t s : dag.successors[t])
                last = std::max(last, blockOf[s]);
            for (std::size_t j = b + 1; j <= last; ++j)
                boundary[j].push_back(t);
        }
    for (auto& tasks : boundary)
        std::sort(tasks.begin(), tasks.end());
    return boundary;
}

ModuleChain moduleChain(const Dag& dag, std::size_t maxTasks)
{
    ModuleChain chain;
    chain.separatorJoin.push_back(true); // the start: nothing runs before it
    for (const Segment& seg : segmentsBetweenSeparators(dag)) {
        std::vector<std::uint32_t> tasks = seg.inner;
        if (seg.exit >= 0)
            tasks.push_back(static_cast<std::uint32_t>(seg.exit));
        if (tasks.empty())
            continue;
        auto blocks = tasks.size() <= maxTasks ? std::vector<std::vector<std::uint32_t>> { tasks }
                                               : narrowCutBlocks(dag, tasks, maxTasks);
        for (std::size_t b = 0; b < blocks.size(); ++b) {
            chain.blocks.push_back(std::move(blocks[b]));
            chain.separatorJoin.push_back(b + 1 == blocks.size()); // a segment ends at a separator
        }
    }
    chain.boundary = chainBoundaries(dag, chain.blocks);
    return chain;
}

} // namespace opsched::map
