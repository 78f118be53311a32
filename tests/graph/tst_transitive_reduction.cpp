// Transitive reduction: same reachability as the original, and no kept edge can be dropped.
#include "support/dag_test_support.h"

#include "graph/transitive_reduction.h"

#include <gtest/gtest.h>

using namespace opsched;
using namespace opsched::test;

namespace {

Edges edgesOf(const Dag& dag)
{
    Edges out;
    for (std::uint32_t u = 0; u < dag.size(); ++u)
        for (auto v : dag.successors[u])
            out.emplace_back(u, v);
    return out;
}

} // namespace

TEST(TransitiveReduction, KeepsReachabilityAndIsMinimalOnRandomDags)
{
    for (std::uint64_t seed = 1; seed <= 120; ++seed) {
        const std::size_t n = 1 + seed % 24;
        const Dag dag = randomDag(n, 0.1 + 0.1 * static_cast<double>(seed % 8), seed);
        const Dag red = transitiveReduction(dag);
        ASSERT_EQ(red.size(), n);
        const auto original = bruteReach(dag);
        EXPECT_EQ(bruteReach(red), original) << "reachability changed, seed " << seed;

        const auto kept = edgesOf(red);
        for (auto [u, v] : kept)
            EXPECT_TRUE(hasEdge(dag, u, v)) << "invented edge " << u << "->" << v << " seed " << seed;
        // Removing any single kept edge must lose reachability.
        for (std::size_t skip = 0; skip < kept.size(); ++skip) {
            Edges fewer = kept;
            fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(skip));
            const auto r = bruteReach(Dag::fromEdges(n, fewer));
            EXPECT_FALSE(r[kept[skip].first][kept[skip].second])
                << "edge " << kept[skip].first << "->" << kept[skip].second << " is redundant, seed " << seed;
        }
        // The overload taking a precomputed closure agrees.
        EXPECT_EQ(edgesOf(transitiveReduction(dag, Reachability(dag))), kept);
    }
}

TEST(TransitiveReduction, DiamondWithShortcut)
{
    const Dag dag = Dag::fromEdges(4, { { 0, 1 }, { 0, 2 }, { 1, 3 }, { 2, 3 }, { 0, 3 } });
    const Dag red = transitiveReduction(dag);
    EXPECT_EQ(edgesOf(red), (Edges { { 0, 1 }, { 0, 2 }, { 1, 3 }, { 2, 3 } }));
}

TEST(TransitiveReduction, ChainWithAllTransitiveEdges)
{
    Edges all;
    for (std::uint32_t i = 0; i < 7; ++i)
        for (std::uint32_t j = i + 1; j < 7; ++j)
            all.emplace_back(i, j);
    const Dag red = transitiveReduction(Dag::fromEdges(7, all));
    EXPECT_EQ(red.edgeCount(), 6U);
    EXPECT_EQ(edgesOf(red), edgesOf(chainDag(7)));
}

TEST(TransitiveReduction, AlreadyReducedGraphsAreUnchanged)
{
    const Dag diamond = Dag::fromEdges(4, { { 0, 1 }, { 0, 2 }, { 1, 3 }, { 2, 3 } });
    EXPECT_EQ(edgesOf(transitiveReduction(diamond)), edgesOf(diamond));
    EXPECT_EQ(transitiveReduction(Dag::fromEdges(5, {})).edgeCount(), 0U);
    EXPECT_EQ(transitiveReduction(Dag::fromEdges(0, {})).size(), 0U);
}
