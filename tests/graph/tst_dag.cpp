// Dag construction, topological order, cycle detection, induced subgraphs, longest path.
#include "support/dag_test_support.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>

using namespace opsched;
using namespace opsched::test;

namespace {

// Reference stable order: repeatedly emit the smallest node whose predecessors are all emitted.
std::vector<std::uint32_t> referenceOrder(const Dag& dag)
{
    std::vector<bool> done(dag.size(), false);
    std::vector<std::uint32_t> order;
    while (order.size() < dag.size()) {
        bool progressed = false;
        for (std::uint32_t v = 0; v < dag.size() && !progressed; ++v) {
            if (done[v])
                continue;
            bool ready = true;
            for (auto p : dag.predecessors[v])
                ready = ready && done[p];
            if (ready) {
                done[v] = true;
                order.push_back(v);
                progressed = true;
            }
        }
        if (!progressed)
            break;
    }
    return order;
}

// Heaviest path over every path in the graph (exhaustive DFS).
double bruteLongestPath(const Dag& dag, const std::vector<double>& w)
{
    double best = 0.0;
    std::function<void(std::uint32_t, double)> walk = [&](std::uint32_t u, double sum) {
        best = std::max(best, sum);
        for (auto v : dag.successors[u])
            walk(v, sum + w[v]);
    };
    for (std::uint32_t s = 0; s < dag.size(); ++s)
        walk(s, w[s]);
    return best;
}

} // namespace

TEST(Dag, FromEdgesDropsDuplicatesAndSorts)
{
    const Dag dag = Dag::fromEdges(4, { { 0, 2 }, { 0, 1 }, { 0, 2 }, { 2, 3 }, { 1, 3 }, { 0, 1 }, { 2, 3 } });
    ASSERT_EQ(dag.size(), 4U);
    EXPECT_EQ(dag.edgeCount(), 4U);
    EXPECT_EQ(dag.successors[0], (std::vector<std::uint32_t> { 1, 2 }));
    EXPECT_EQ(dag.successors[2], (std::vector<std::uint32_t> { 3 }));
    EXPECT_EQ(dag.predecessors[3], (std::vector<std::uint32_t> { 1, 2 }));
    EXPECT_TRUE(dag.predecessors[0].empty());
    EXPECT_TRUE(dag.successors[3].empty());
    const Dag loops = Dag::fromEdges(2, { { 1, 1 }, { 1, 1 }, { 0, 1 } }); // self loops are kept, once
    EXPECT_EQ(loops.edgeCount(), 2U);
    EXPECT_EQ(loops.predecessors[1], (std::vector<std::uint32_t> { 0, 1 }));
}

TEST(Dag, EmptyGraph)
{
    const Dag dag = Dag::fromEdges(0, {});
    EXPECT_EQ(dag.size(), 0U);
    const auto order = topologicalOrder(dag);
    ASSERT_TRUE(order.has_value());
    EXPECT_TRUE(order->empty());
    EXPECT_TRUE(findCycle(dag).empty());
    EXPECT_EQ(longestPath(dag, {}), 0.0);
}

TEST(Dag, TopologicalOrderPrefersSmallestReadyIndex)
{
    EXPECT_EQ(*topologicalOrder(Dag::fromEdges(3, { { 2, 0 }, { 1, 0 } })), (std::vector<std::uint32_t> { 1, 2, 0 }));
    EXPECT_EQ(*topologicalOrder(Dag::fromEdges(4, { { 3, 1 } })), (std::vector<std::uint32_t> { 0, 2, 3, 1 }));
    // 4 becomes ready after 3 but is smaller than the still-waiting 5.
    EXPECT_EQ(*topologicalOrder(Dag::fromEdges(6, { { 3, 4 }, { 0, 5 }, { 5, 1 }, { 5, 2 } })),
        (std::vector<std::uint32_t> { 0, 3, 4, 5, 1, 2 }));
}

TEST(Dag, TopologicalOrderIsValidAndStableOnRandomDags)
{
    for (std::uint64_t seed = 1; seed <= 150; ++seed) {
        const std::size_t n = 1 + seed % 37;
        const Dag dag = randomDag(n, 0.05 + 0.1 * static_cast<double>(seed % 6), seed);
        const auto order = topologicalOrder(dag);
        ASSERT_TRUE(order.has_value()) << "seed " << seed;
        ASSERT_EQ(order->size(), n);
        std::vector<std::size_t> pos(n, n);
        for (std::size_t i = 0; i < n; ++i)
            pos[(*order)[i]] = i;
        for (std::uint32_t v = 0; v < n; ++v)
            ASSERT_LT(pos[v], n) << "node " << v << " missing, seed " << seed;
        for (std::uint32_t u = 0; u < n; ++u)
            for (auto v : dag.successors[u])
                ASSERT_LT(pos[u], pos[v]) << "edge " << u << "->" << v << " seed " << seed;
        EXPECT_EQ(*order, referenceOrder(dag)) << "seed " << seed;
    }
}

TEST(Dag, CyclesHaveNoTopologicalOrder)
{
    EXPECT_FALSE(topologicalOrder(Dag::fromEdges(1, { { 0, 0 } })).has_value());
    EXPECT_FALSE(topologicalOrder(Dag::fromEdges(3, { { 0, 1 }, { 1, 1 }, { 1, 2 } })).has_value());
    EXPECT_FALSE(topologicalOrder(Dag::fromEdges(2, { { 0, 1 }, { 1, 0 } })).has_value());
    EXPECT_FALSE(topologicalOrder(Dag::fromEdges(5, { { 0, 1 }, { 1, 2 }, { 2, 3 }, { 3, 1 }, { 3, 4 } })).has_value());
}

TEST(Dag, FindCycleOnSmallCycles)
{
    EXPECT_EQ(findCycle(Dag::fromEdges(1, { { 0, 0 } })), (std::vector<std::uint32_t> { 0 }));
    EXPECT_EQ(findCycle(Dag::fromEdges(3, { { 0, 1 }, { 2, 2 } })), (std::vector<std::uint32_t> { 2 }));
    const auto two = findCycle(Dag::fromEdges(3, { { 0, 1 }, { 1, 2 }, { 2, 1 } }));
    EXPECT_EQ(std::set<std::uint32_t>(two.begin(), two.end()), (std::set<std::uint32_t> { 1, 2 }));
    EXPECT_EQ(two.size(), 2U);
}

TEST(Dag, FindCycleReturnsARealCycleOrNothing)
{
    for (std::uint64_t seed = 1; seed <= 150; ++seed) {
        const std::size_t n = 2 + seed % 30;
        const Dag acyclic = randomDag(n, 0.1 + 0.05 * static_cast<double>(seed % 8), seed);
        EXPECT_TRUE(findCycle(acyclic).empty()) << "seed " << seed;

        // Close a cycle by adding a back edge v->u where u reaches v (or a self loop when no pair does).
        const auto reach = bruteReach(acyclic);
        Edges edges;
        for (std::uint32_t u = 0; u < n; ++u)
            for (auto v : acyclic.successors[u])
                edges.emplace_back(u, v);
        SplitMix64 rng(seed);
        std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
        for (std::uint32_t u = 0; u < n; ++u)
            for (std::uint32_t v = 0; v < n; ++v)
                if (reach[u][v])
                    pairs.emplace_back(u, v);
        if (pairs.empty()) {
            const auto v = static_cast<std::uint32_t>(rng.below(n));
            edges.emplace_back(v, v);
        } else {
            const auto [u, v] = pairs[rng.below(pairs.size())];
            edges.emplace_back(v, u);
        }
        const Dag cyclic = Dag::fromEdges(n, edges);
        EXPECT_FALSE(topologicalOrder(cyclic).has_value()) << "seed " << seed;
        const auto cycle = findCycle(cyclic);
        ASSERT_FALSE(cycle.empty()) << "seed " << seed;
        EXPECT_TRUE(isPath(cyclic, cycle, true)) << "seed " << seed;
        EXPECT_EQ(std::set<std::uint32_t>(cycle.begin(), cycle.end()).size(), cycle.size()) << "repeated node";
    }
}

TEST(Dag, InducedSubgraphKeepsExactlyTheInnerEdges)
{
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
        const std::size_t n = 1 + seed % 25;
        const Dag dag = randomDag(n, 0.3, seed);
        SplitMix64 rng(seed * 7919);
        auto perm = randomPermutation(n, rng);
        perm.resize(rng.below(n + 1)); // a random subset in a random order
        const Dag sub = inducedSubgraph(dag, perm);
        ASSERT_EQ(sub.size(), perm.size());
        std::size_t expectedEdges = 0;
        for (std::uint32_t i = 0; i < perm.size(); ++i)
            for (std::uint32_t j = 0; j < perm.size(); ++j) {
                const bool inner = hasEdge(dag, perm[i], perm[j]);
                expectedEdges += inner ? 1 : 0;
                EXPECT_EQ(hasEdge(sub, i, j), inner) << i << "->" << j << " seed " << seed;
            }
        EXPECT_EQ(sub.edgeCount(), expectedEdges);
    }
}

TEST(Dag, LongestPathKnownCases)
{
    const Dag diamond = Dag::fromEdges(4, { { 0, 1 }, { 0, 2 }, { 1, 3 }, { 2, 3 } });
    std::vector<std::uint32_t> path;
    EXPECT_DOUBLE_EQ(longestPath(diamond, { 1, 5, 2, 1 }, &path), 7.0);
    EXPECT_EQ(path, (std::vector<std::uint32_t> { 0, 1, 3 }));
    EXPECT_DOUBLE_EQ(longestPath(diamond, { 1, 2, 5, 1 }, &path), 7.0);
    EXPECT_EQ(path, (std::vector<std::uint32_t> { 0, 2, 3 }));
    // An isolated heavy node beats a light chain.
    const Dag split = Dag::fromEdges(3, { { 0, 1 } });
    EXPECT_DOUBLE_EQ(longestPath(split, { 1, 1, 10 }, &path), 10.0);
    EXPECT_EQ(path, (std::vector<std::uint32_t> { 2 }));
    EXPECT_DOUBLE_EQ(longestPath(Dag::fromEdges(1, {}), { 3.5 }, &path), 3.5);
    EXPECT_EQ(path, (std::vector<std::uint32_t> { 0 }));
}

TEST(Dag, LongestPathMatchesBruteForce)
{
    for (std::uint64_t seed = 1; seed <= 120; ++seed) {
        const std::size_t n = 1 + seed % 13;
        const Dag dag = randomDag(n, 0.15 + 0.1 * static_cast<double>(seed % 5), seed);
        SplitMix64 rng(seed + 1000);
        std::vector<double> w(n);
        for (auto& x : w)
            x = seed % 4 == 0 ? static_cast<double>(rng.below(3)) : 0.5 + static_cast<double>(rng.below(100));
        std::vector<std::uint32_t> path;
        const double got = longestPath(dag, w, &path);
        EXPECT_DOUBLE_EQ(got, bruteLongestPath(dag, w)) << "seed " << seed;
        ASSERT_FALSE(path.empty());
        EXPECT_TRUE(isPath(dag, path)) << "seed " << seed;
        double sum = 0;
        for (auto v : path)
            sum += w[v];
        EXPECT_DOUBLE_EQ(sum, got) << "seed " << seed;
    }
}
