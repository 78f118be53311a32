// Folding tall layered drawings into columns (the DAG view of a transformer): cuts only where no
// edge jumps a layer, boxes never overlap, every edge still runs from its source's bottom to its
// target's top, rows line up across columns, and short or wide drawings stay as they are.
#include "graph/column_wrap.h"
#include "graph/dag.h"
#include "model/model_ref.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace opsched;

namespace {

constexpr double kEps = 1e-6;

// n blocks of a diamond (a -> b, a -> c, b -> d, c -> d), each block's d feeding the next a.
Dag diamonds(std::uint32_t blocks)
{
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    for (std::uint32_t k = 0; k < blocks; ++k) {
        const std::uint32_t a = 4 * k;
        edges.insert(edges.end(), { { a, a + 1 }, { a, a + 2 }, { a + 1, a + 3 }, { a + 2, a + 3 } });
        if (k + 1 < blocks)
            edges.emplace_back(a + 3, a + 4);
    }
    return Dag::fromEdges(4 * blocks, edges);
}

void expectWellFormed(const Dag& dag, const LayeredLayout& l)
{
    const double pitch = l.options.nodeHeight + l.options.layerGap;
    for (std::uint32_t u = 0; u < dag.size(); ++u) {
        // On a row of the grid, inside the bounding box.
        const double row = l.top(u) / pitch;
        EXPECT_NEAR(row, std::round(row), kEps) << u;
        EXPECT_GE(l.left(u), -kEps);
        EXPECT_LE(l.right(u), l.width + kEps);
        EXPECT_LE(l.bottom(u), l.height + kEps);
        for (std::uint32_t v = u + 1; v < dag.size(); ++v) {
            const bool apart = l.right(u) <= l.left(v) + kEps || l.right(v) <= l.left(u) + kEps
                || l.bottom(u) <= l.top(v) + kEps || l.bottom(v) <= l.top(u) + kEps;
            EXPECT_TRUE(apart) << u << " and " << v << " overlap";
        }
    }
    for (const LayoutEdge& e : l.edges) {
        ASSERT_GE(e.points.size(), 2U);
        // Out of the source's bottom side, into the target's top side (ports spread along them).
        EXPECT_NEAR(e.points.front().y, l.bottom(e.from), kEps);
        EXPECT_GE(e.points.front().x, l.left(e.from) - kEps);
        EXPECT_LE(e.points.front().x, l.right(e.from) + kEps);
        EXPECT_NEAR(e.points.back().y, l.top(e.to), kEps);
        EXPECT_GE(e.points.back().x, l.left(e.to) - kEps);
        EXPECT_LE(e.points.back().x, l.right(e.to) + kEps);
    }
}

TEST(ColumnWrap, TallChainsOfBlocksFoldIntoColumns)
{
    for (std::uint32_t blocks : { 12U, 40U, 100U }) {
        const Dag dag = diamonds(blocks);
        const LayeredLayout tall = layeredLayout(dag);
        const LayeredLayout wrapped = wrapIntoColumns(tall);
        expectWellFormed(dag, wrapped);
        EXPECT_LT(wrapped.height, tall.height / 2) << blocks << " blocks";
        EXPECT_GT(wrapped.width, tall.width * 2) << blocks << " blocks";
        // Layers are kept: only positions change.
        for (std::uint32_t v = 0; v < dag.size(); ++v)
            EXPECT_EQ(wrapped.nodes[v].layer, tall.nodes[v].layer);
    }
}

TEST(ColumnWrap, NeverCutsWhereAnEdgeJumpsALayer)
{
    // A chain of 40 with an edge from every node to the one two below: no gap can be cut.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    for (std::uint32_t v = 0; v + 1 < 40; ++v) {
        edges.emplace_back(v, v + 1);
        if (v + 2 < 40)
            edges.emplace_back(v, v + 2);
    }
    const Dag dag = Dag::fromEdges(40, edges);
    const LayeredLayout tall = layeredLayout(dag);
    const LayeredLayout wrapped = wrapIntoColumns(tall);
    EXPECT_EQ(wrapped.height, tall.height);
    EXPECT_EQ(wrapped.nodes, tall.nodes);
}

TEST(ColumnWrap, ShortOrWideDrawingsStayAsTheyAre)
{
    const Dag small = diamonds(2);
    EXPECT_EQ(wrapIntoColumns(layeredLayout(small)).nodes, layeredLayout(small).nodes);
    // 30 independent chains of 3: wider than tall.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    for (std::uint32_t c = 0; c < 30; ++c)
        edges.insert(edges.end(), { { 3 * c, 3 * c + 1 }, { 3 * c + 1, 3 * c + 2 } });
    const Dag wide = Dag::fromEdges(90, edges);
    EXPECT_EQ(wrapIntoColumns(layeredLayout(wide)).nodes, layeredLayout(wide).nodes);
}

TEST(ColumnWrap, BertFitsAScreenShape)
{
    const Graph g = loadModel("zoo:bert");
    const LayeredLayout tall = layeredLayout(g.dag());
    const LayeredLayout wrapped = wrapIntoColumns(tall);
    expectWellFormed(g.dag(), wrapped);
    // From a column several times higher than wide to a drawing within 4:1 either way.
    EXPECT_GT(tall.height / tall.width, 5.0);
    EXPECT_LT(wrapped.height / wrapped.width, 4.0);
    EXPECT_GT(wrapped.height / wrapped.width, 0.25);
}

TEST(ColumnWrap, TransformersFillTheViewportTheyAreShownIn)
{
    // At Fit the drawing is scaled to the viewport: the columns chosen must use its shape, so a
    // wide panel gets more columns than a tall one and the drawing's own aspect lands near the
    // viewport's (it was 3 thin columns in a third of a 1.6:1 panel).
    for (const char* model : { "zoo:bert", "zoo:vit" }) {
        const Graph g = loadModel(model);
        const LayeredLayout tall = layeredLayout(g.dag());
        auto shown = [&](const LayeredLayout& l, double aspect) { return std::min(aspect / l.width, 1.0 / l.height); };
        double previousWidth = 0;
        for (double aspect : { 0.6, 1.6, 3.0 }) {
            ColumnWrapOptions o;
            o.aspect = aspect;
            const LayeredLayout wrapped = wrapIntoColumns(tall, o);
            expectWellFormed(g.dag(), wrapped);
            const double drawn = wrapped.width / wrapped.height;
            EXPECT_GT(drawn, aspect / 2.5) << model << " at " << aspect;
            EXPECT_LT(drawn, aspect * 2.5) << model << " at " << aspect;
            EXPECT_GT(shown(wrapped, aspect), 2 * shown(tall, aspect)) << model << " at " << aspect;
            EXPECT_GE(wrapped.width, previousWidth) << model << " at " << aspect; // wider viewport, more columns
            previousWidth = wrapped.width;
        }
    }
}

} // namespace
