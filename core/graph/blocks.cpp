#include "graph/blocks.h"

#include "graph/width.h"
#include "util/error.h"

namespace opsched {

const Block* BlockPartition::largest() const
{
    const Block* best = nullptr;
    for (const auto& b : blocks)
        if (!best || b.nodes.size() > best->nodes.size())
            best = &b;
    return best;
}

BlockPartition findBlocks(const Dag& dag, const Reachability& reach)
{
    BlockPartition result;
    const auto order = topologicalOrder(dag);
    if (!order)
        throw GraphError("block detection needs an acyclic graph");
    const std::size_t n = dag.size();

    std::vector<Block> segments;
    Block current;
    for (auto v : *order) {
        current.nodes.push_back(v);
        const bool cut = reach.ancestors(v).count() + reach.descendants(v).count() + 1 == n;
        if (cut) {
            result.cutNodes.push_back(v);
            current.exit = v;
            segments.push_back(std::move(current));
            current = Block {};
        }
    }
    if (!current.nodes.empty())
        segments.push_back(std::move(current));

    for (auto& seg : segments) {
        const bool single = seg.nodes.size() == 1;
        const bool prevSingleChain
            = !result.blocks.empty() && result.blocks.back().width <= 1 && result.blocks.back().exit.has_value();
        if (single && seg.exit && prevSingleChain) {
            result.blocks.back().nodes.push_back(seg.nodes.front());
            result.blocks.back().exit = seg.exit;
            continue;
        }
        seg.width = computeWidth(inducedSubgraph(dag, seg.nodes)).width;
        result.blocks.push_back(std::move(seg));
    }
    return result;
}

BlockPartition findBlocks(const Dag& dag)
{
    return findBlocks(dag, Reachability(dag));
}

} // namespace opsched

namespace opsched {

std::vector<std::vector<std::uint32_t>> splitIntoParts(
    const Dag& dag, const std::vector<std::uint32_t>& nodes, std::size_t maxNodes)
{
    std::vector<std::vector<std::uint32_t>> parts;
    if (nodes.size() <= maxNodes || maxNodes < 2) {
        parts.push_back(nodes);
        return parts;
    }
    // frontier[i]: nodes among nodes[0..i) with a successor in nodes[i..).
    std::vector<std::size_t> position(dag.size(), nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i)
        position[nodes[i]] = i;
    std::vector<std::size_t> lastUse(nodes.size(), 0);
    for (std::size_t i = 0; i < nodes.size(); ++i)
        for (auto s : dag.successors[nodes[i]])
            if (position[s] < nodes.size())
                lastUse[i] = std::max(lastUse[i], position[s]);
    std::vector<int> delta(nodes.size() + 1, 0);
    for (std::size_t i = 0; i < nodes.size(); ++i)
        if (lastUse[i] > i) {
            ++delta[i + 1];
            --delta[lastUse[i] + 1];
        }
    std::vector<int> frontier(nodes.size() + 1, 0);
    for (std::size_t i = 1; i <= nodes.size(); ++i)
        frontier[i] = frontier[i - 1] + delta[i];

    std::size_t start = 0;
    while (nodes.size() - start > maxNodes) {
        // The earliest of the narrowest cuts: ops that only feed later parts (the next cell's
        // input adapter) then start the next part instead of widening this one.
        std::size_t best = start + maxNodes;
        for (std::size_t cut = start + maxNodes; cut > start + maxNodes / 2; --cut)
            if (frontier[cut] <= frontier[best])
                best = cut;
        parts.emplace_back(
            nodes.begin() + static_cast<std::ptrdiff_t>(start), nodes.begin() + static_cast<std::ptrdiff_t>(best));
        start = best;
    }
    parts.emplace_back(nodes.begin() + static_cast<std::ptrdiff_t>(start), nodes.end());
    return parts;
}

} // namespace opsched
