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
            current = Block{};
        }
    }
    if (!current.nodes.empty())
        segments.push_back(std::move(current));

    for (auto& seg : segments) {
        const bool single = seg.nodes.size() == 1;
        const bool prevSingleChain = !result.blocks.empty() && result.blocks.back().width <= 1 &&
                                     result.blocks.back().exit.has_value();
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
