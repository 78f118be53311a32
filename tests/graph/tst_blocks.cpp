// Block partition: cut nodes (comparable with everything), blocks in order, chains folded.
#include "support/dag_test_support.h"

#include "graph/blocks.h"
#include "graph/width.h"

#include <gtest/gtest.h>

using namespace opsched;
using namespace opsched::test;

namespace {

using Nodes = std::vector<std::uint32_t>;

void expectValidPartition(const Dag& dag, const BlockPartition& p, const std::string& what)
{
    const auto order = topologicalOrder(dag);
    ASSERT_TRUE(order.has_value());
    const auto ref = bruteReach(dag);
    const auto n = static_cast<std::uint32_t>(dag.size());

    // Cut nodes: exactly the nodes comparable with all others, in topological order.
    Nodes expectedCuts;
    for (auto v : *order) {
        bool all = true;
        for (std::uint32_t u = 0; u < n; ++u)
            all = all && bruteComparable(ref, u, v);
        if (all)
            expectedCuts.push_back(v);
    }
    EXPECT_EQ(p.cutNodes, expectedCuts) << what;

    // Blocks concatenate to the topological order: every node exactly once.
    Nodes joined;
    for (const auto& b : p.blocks) {
        EXPECT_FALSE(b.nodes.empty()) << what;
        joined.insert(joined.end(), b.nodes.begin(), b.nodes.end());
    }
    EXPECT_EQ(joined, *order) << what;

    for (std::size_t i = 0; i < p.blocks.size(); ++i) {
        const Block& b = p.blocks[i];
        if (b.exit) {
            EXPECT_EQ(*b.exit, b.nodes.back()) << what << " block " << i;
            for (std::uint32_t u = 0; u < n; ++u)
                EXPECT_TRUE(bruteComparable(ref, u, *b.exit)) << what << ": exit " << *b.exit << " vs " << u;
        } else {
            EXPECT_EQ(i + 1, p.blocks.size()) << what << ": only the last block may lack an exit";
        }
        EXPECT_EQ(b.width, computeWidth(inducedSubgraph(dag, b.nodes)).width) << what << " block " << i;
        // Chains fold: a single cut node never follows a width-1 block that ends in a cut.
        if (i > 0 && b.nodes.size() == 1 && b.exit) {
            EXPECT_FALSE(p.blocks[i - 1].width <= 1 && p.blocks[i - 1].exit) << what << " block " << i;
        }
    }
}

} // namespace

TEST(Blocks, ChainFoldsIntoOneBlock)
{
    const Dag chain = chainDag(10);
    const auto p = findBlocks(chain);
    ASSERT_EQ(p.blocks.size(), 1U);
    EXPECT_EQ(p.blocks[0].nodes.size(), 10U);
    EXPECT_EQ(p.blocks[0].width, 1U);
    ASSERT_TRUE(p.blocks[0].exit.has_value());
    EXPECT_EQ(*p.blocks[0].exit, 9U);
    EXPECT_EQ(p.cutNodes.size(), 10U);
    expectValidPartition(chain, p, "chain");
}

TEST(Blocks, DiamondChainDiamond)
{
    // diamond 0 -> {1,2} -> 3, chain 3 -> 4 -> 5, diamond 5 -> {6,7} -> 8
    const Dag dag = Dag::fromEdges(
        9, { { 0, 1 }, { 0, 2 }, { 1, 3 }, { 2, 3 }, { 3, 4 }, { 4, 5 }, { 5, 6 }, { 5, 7 }, { 6, 8 }, { 7, 8 } });
    const auto p = findBlocks(dag);
    EXPECT_EQ(p.cutNodes, (Nodes { 0, 3, 4, 5, 8 }));
    ASSERT_EQ(p.blocks.size(), 4U);
    EXPECT_EQ(p.blocks[0].nodes, (Nodes { 0 }));
    EXPECT_EQ(p.blocks[1].nodes, (Nodes { 1, 2, 3 }));
    EXPECT_EQ(p.blocks[2].nodes, (Nodes { 4, 5 }));
    EXPECT_EQ(p.blocks[3].nodes, (Nodes { 6, 7, 8 }));
    EXPECT_EQ(p.blocks[0].width, 1U);
    EXPECT_EQ(p.blocks[1].width, 2U);
    EXPECT_EQ(p.blocks[2].width, 1U);
    EXPECT_EQ(p.blocks[3].width, 2U);
    EXPECT_EQ(*p.blocks[1].exit, 3U);
    EXPECT_EQ(*p.blocks[2].exit, 5U);
    EXPECT_EQ(*p.blocks[3].exit, 8U);
    ASSERT_NE(p.largest(), nullptr);
    EXPECT_EQ(p.largest()->nodes, (Nodes { 1, 2, 3 }));
    expectValidPartition(dag, p, "diamond-chain-diamond");
}

TEST(Blocks, NoCutNodesGivesOneOpenBlock)
{
    const Dag dag = Dag::fromEdges(4, { { 0, 1 }, { 2, 3 } });
    const auto p = findBlocks(dag);
    EXPECT_TRUE(p.cutNodes.empty());
    ASSERT_EQ(p.blocks.size(), 1U);
    EXPECT_FALSE(p.blocks[0].exit.has_value());
    EXPECT_EQ(p.blocks[0].width, 2U);
    expectValidPartition(dag, p, "two chains");

    const auto empty = findBlocks(Dag::fromEdges(0, {}));
    EXPECT_TRUE(empty.blocks.empty());
    EXPECT_EQ(empty.largest(), nullptr);
}

TEST(Blocks, RandomSeriesGraphs)
{
    for (std::uint64_t seed = 1; seed <= 80; ++seed) {
        const Dag dag = randomSeriesDag(1 + static_cast<int>(seed % 6), 1 + seed % 7, 0.3, seed);
        const std::string what = "series seed " + std::to_string(seed);
        const Reachability reach(dag);
        const auto p = findBlocks(dag, reach);
        expectValidPartition(dag, p, what);
        EXPECT_GE(p.cutNodes.size(), 2U) << what; // the first and last joins at least
    }
}

TEST(Blocks, RandomDags)
{
    for (std::uint64_t seed = 1; seed <= 80; ++seed) {
        const std::size_t n = 1 + seed % 30;
        const Dag dag = randomDag(n, 0.1 + 0.1 * static_cast<double>(seed % 9), seed);
        expectValidPartition(dag, findBlocks(dag), "random seed " + std::to_string(seed));
    }
}
