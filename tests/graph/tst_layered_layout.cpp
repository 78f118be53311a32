// The layered DAG layout behind the DAG view: layers respect edges, boxes do not overlap, edges
// run from box to box, crossing reduction never makes things worse, chains are a straight column,
// and the whole thing is fast and deterministic on the zoo's largest network.
#include "support/dag_test_support.h"

#include "graph/layered_layout.h"
#include "model/model_ref.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

using namespace opsched;

namespace {

constexpr double kEps = 1e-6;

// The invariants every layout must satisfy.
void expectWellFormed(const Dag& dag, const LayeredLayout& layout)
{
    ASSERT_EQ(layout.nodes.size(), dag.size());
    ASSERT_EQ(layout.edges.size(), dag.edgeCount());
    const LayeredLayoutOptions& o = layout.options;

    // Every edge goes down at least one layer.
    for (std::uint32_t u = 0; u < dag.size(); ++u)
        for (auto v : dag.successors[u])
            EXPECT_LT(layout.nodes[u].layer, layout.nodes[v].layer) << u << " -> " << v;

    // No two boxes of a layer overlap (nor touch closer than the gap), and order matches x.
    std::vector<std::vector<std::uint32_t>> byLayer(layout.layerCount);
    for (std::uint32_t v = 0; v < dag.size(); ++v) {
        ASSERT_LT(layout.nodes[v].layer, layout.layerCount);
        byLayer[layout.nodes[v].layer].push_back(v);
    }
    for (auto& layer : byLayer) {
        std::sort(layer.begin(), layer.end(), [&](auto a, auto b) { return layout.nodes[a].x < layout.nodes[b].x; });
        for (std::size_t i = 0; i + 1 < layer.size(); ++i) {
            const auto a = layer[i], b = layer[i + 1];
            EXPECT_GE(layout.left(b) - layout.right(a), o.nodeGap - kEps) << a << " and " << b;
            EXPECT_LT(layout.nodes[a].order, layout.nodes[b].order);
        }
    }
    // Boxes sit in their layer's band and inside the bounding box.
    for (std::uint32_t v = 0; v < dag.size(); ++v) {
        EXPECT_NEAR(layout.top(v), layout.nodes[v].layer * (o.nodeHeight + o.layerGap), kEps);
        EXPECT_GE(layout.left(v), -kEps);
        EXPECT_LE(layout.right(v), layout.width + kEps);
        EXPECT_LE(layout.bottom(v), layout.height + kEps);
    }

    // Polylines start on the source's bottom side and end on the target's top side, go strictly
    // downwards between layers, and pass no box.
    std::size_t e = 0;
    for (std::uint32_t u = 0; u < dag.size(); ++u)
        for (auto v : dag.successors[u]) {
            const LayoutEdge& edge = layout.edges[e++];
            ASSERT_EQ(edge.from, u);
            ASSERT_EQ(edge.to, v);
            ASSERT_GE(edge.points.size(), 2U);
            const LayoutPoint& first = edge.points.front();
            const LayoutPoint& last = edge.points.back();
            EXPECT_NEAR(first.y, layout.bottom(u), kEps);
            EXPECT_GT(first.x, layout.left(u));
            EXPECT_LT(first.x, layout.right(u));
            EXPECT_NEAR(last.y, layout.top(v), kEps);
            EXPECT_GT(last.x, layout.left(v));
            EXPECT_LT(last.x, layout.right(v));
            const std::size_t span = layout.nodes[v].layer - layout.nodes[u].layer;
            EXPECT_EQ(edge.points.size(), 2 * span);
            for (std::size_t i = 0; i + 1 < edge.points.size(); ++i)
                EXPECT_LT(edge.points[i].y, edge.points[i + 1].y);
            // The virtual points of a long edge keep clear of every box in their layer.
            for (std::size_t i = 1; i + 1 < edge.points.size(); ++i) {
                const auto layer
                    = static_cast<std::size_t>(std::floor(edge.points[i].y / (o.nodeHeight + o.layerGap) + kEps));
                ASSERT_LT(layer, byLayer.size());
                for (auto w : byLayer[layer])
                    EXPECT_TRUE(edge.points[i].x < layout.left(w) || edge.points[i].x > layout.right(w))
                        << "edge " << u << " -> " << v << " runs through " << w;
            }
        }
    EXPECT_EQ(layout.virtualPoints * 2 + 2 * dag.edgeCount(), [&] {
        std::size_t points = 0;
        for (const auto& edge : layout.edges)
            points += edge.points.size();
        return points;
    }());

    // The crossing count the layout reports is the one its geometry shows, and no worse than the start.
    EXPECT_EQ(countCrossings(layout), layout.crossings);
    EXPECT_LE(layout.crossings, layout.initialCrossings);
}

Dag zooDag(const std::string& ref)
{
    return loadModel(ref).dag();
}

} // namespace

TEST(LayeredLayout, EmptyAndSingleNode)
{
    const LayeredLayout empty = layeredLayout(Dag::fromEdges(0, {}));
    EXPECT_TRUE(empty.nodes.empty());
    EXPECT_EQ(empty.layerCount, 0U);

    const LayeredLayout one = layeredLayout(Dag::fromEdges(1, {}));
    ASSERT_EQ(one.nodes.size(), 1U);
    EXPECT_EQ(one.layerCount, 1U);
    EXPECT_DOUBLE_EQ(one.width, one.options.nodeWidth);
    EXPECT_DOUBLE_EQ(one.height, one.options.nodeHeight);
}

TEST(LayeredLayout, ChainIsAStraightColumn)
{
    for (std::size_t n : { 2U, 5U, 40U }) {
        const Dag dag = test::chainDag(n);
        const LayeredLayout layout = layeredLayout(dag);
        expectWellFormed(dag, layout);
        EXPECT_EQ(layout.layerCount, n);
        EXPECT_EQ(layout.virtualPoints, 0U);
        EXPECT_EQ(layout.crossings, 0U);
        for (std::uint32_t v = 0; v < n; ++v) {
            EXPECT_EQ(layout.nodes[v].layer, v);
            EXPECT_DOUBLE_EQ(layout.nodes[v].x, layout.nodes[0].x);
        }
        for (const auto& edge : layout.edges)
            for (const auto& p : edge.points)
                EXPECT_DOUBLE_EQ(p.x, layout.nodes[0].x);
        EXPECT_DOUBLE_EQ(layout.width, layout.options.nodeWidth);
    }
}

TEST(LayeredLayout, LayersAreLongestPaths)
{
    // 0 -> 1 -> 2 -> 3 and a shortcut 0 -> 3: node 3 is on layer 3, the shortcut gets 2 virtual points.
    // 4 is a source feeding 3 only: it sits just above 3.
    const Dag dag = Dag::fromEdges(5, { { 0, 1 }, { 1, 2 }, { 2, 3 }, { 0, 3 }, { 4, 3 } });
    const LayeredLayout layout = layeredLayout(dag);
    expectWellFormed(dag, layout);
    EXPECT_EQ(layout.nodes[3].layer, 3U);
    EXPECT_EQ(layout.nodes[4].layer, 2U);
    EXPECT_EQ(layout.virtualPoints, 2U);
}

TEST(LayeredLayout, RejectsCycles)
{
    EXPECT_THROW(layeredLayout(Dag::fromEdges(3, { { 0, 1 }, { 1, 2 }, { 2, 0 } })), std::invalid_argument);
}

TEST(LayeredLayout, RandomDagsKeepInvariantsAndReduceCrossings)
{
    std::size_t before = 0, after = 0;
    for (int seed = 1; seed <= 12; ++seed)
        for (int width : { 2, 4, 8 }) {
            const std::string ref = "zoo:random?ops=" + std::to_string(20 + 10 * seed)
                + "&width=" + std::to_string(width) + "&seed=" + std::to_string(seed);
            SCOPED_TRACE(ref);
            const Dag dag = zooDag(ref);
            const LayeredLayout layout = layeredLayout(dag);
            expectWellFormed(dag, layout);
            before += layout.initialCrossings;
            after += layout.crossings;
        }
    EXPECT_LT(after, before); // the sweeps do something
}

TEST(LayeredLayout, GenericRandomDags)
{
    // Shuffled labels (index order is not topological) and dense graphs with many long edges.
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        SCOPED_TRACE(seed);
        const Dag dag = test::randomDag(30, 0.12, seed);
        expectWellFormed(dag, layeredLayout(dag));
        const Dag series = test::randomSeriesDag(5, 6, 0.4, seed);
        expectWellFormed(series, layeredLayout(series));
    }
}

TEST(LayeredLayout, ZooNetworks)
{
    for (const char* ref : { "zoo:inception_v3", "zoo:googlenet", "zoo:squeezenet", "zoo:randwire", "zoo:nasnet_a" }) {
        SCOPED_TRACE(ref);
        const Dag dag = zooDag(ref);
        const auto start = std::chrono::steady_clock::now();
        const LayeredLayout layout = layeredLayout(dag);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        expectWellFormed(dag, layout);
        std::printf("%-18s %4zu ops %3zu layers %5zu virtual points, crossings %zu -> %zu, %.1f ms\n", ref, dag.size(),
            layout.layerCount, layout.virtualPoints, layout.initialCrossings, layout.crossings, ms);
    }
}

TEST(LayeredLayout, NasnetIsFastAndDeterministic)
{
    const Dag dag = zooDag("zoo:nasnet_a");
    ASSERT_EQ(dag.size(), 375U);
    const auto start = std::chrono::steady_clock::now();
    const LayeredLayout a = layeredLayout(dag);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(seconds, 0.5); // generous: a debug or sanitizer build on a slow machine
    const LayeredLayout b = layeredLayout(dag);
    EXPECT_EQ(a.nodes, b.nodes);
    EXPECT_EQ(a.edges, b.edges);
    EXPECT_EQ(a.crossings, b.crossings);
}
