// GraphBuilder: IR invariants, shape inference, errors naming the op, costs, rebatching, weights.
#include "support/dag_test_support.h"

#include "graph/graph_builder.h"
#include "graph/shape_inference.h"
#include "model/model_ref.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

using namespace opsched;

namespace {

Layer layer(LayerParams params, Activation act = Activation::none())
{
    Layer l;
    l.params = std::move(params);
    l.activation = act;
    return l;
}

Conv2d conv(std::int64_t out, std::int64_t k, std::int64_t stride = 1, std::int64_t pad = 0, std::int64_t groups = 1)
{
    Conv2d c;
    c.outChannels = out;
    c.kernelH = c.kernelW = k;
    c.strideH = c.strideW = stride;
    c.padTop = c.padBottom = c.padLeft = c.padRight = pad;
    c.groups = groups;
    return c;
}

Pool2d pool(PoolKind kind, std::int64_t k, std::int64_t stride, std::int64_t pad = 0, bool ceil = false)
{
    Pool2d p;
    p.kind = kind;
    p.kernelH = p.kernelW = k;
    p.strideH = p.strideW = stride;
    p.padTop = p.padBottom = p.padLeft = p.padRight = pad;
    p.ceilMode = ceil;
    return p;
}

// Output shape of a one-layer op on a fresh input of shape `in`.
Shape outputShape(const Shape& in, LayerParams params, OpKind kind = OpKind::Conv)
{
    GraphBuilder b("t", 1);
    const auto x = b.addInput("x", in);
    return b.shapeOf(b.addOp({ "op", kind, { { x } }, { layer(std::move(params)) } }));
}

// Runs f, which must throw GraphError whose message names `opName`.
template <typename F> void expectGraphError(F&& f, const std::string& opName)
{
    try {
        f();
        ADD_FAILURE() << "no GraphError for op " << opName;
    } catch (const GraphError& e) {
        EXPECT_NE(std::string(e.what()).find("'" + opName + "'"), std::string::npos)
            << "message does not name op " << opName << ": " << e.what();
    }
}

void expectIrInvariants(const Graph& g)
{
    SCOPED_TRACE(g.name());
    const auto& dag = g.dag();
    ASSERT_EQ(dag.size(), g.opCount());
    for (const auto& op : g.ops()) {
        const auto id = op.id.value();
        ASSERT_EQ(&g.op(op.id), &op);
        EXPECT_EQ(g.findOp(op.name), op.id);
        const Tensor& out = g.tensor(op.output);
        EXPECT_EQ(out.producer, op.id) << op.name;
        EXPECT_EQ(out.role, TensorRole::Activation) << op.name;
        std::vector<std::uint32_t> producers;
        for (auto t : op.inputTensors()) {
            const Tensor& in = g.tensor(t);
            EXPECT_NE(in.role, TensorRole::Weight) << op.name;
            const auto& readers = g.consumers(t);
            EXPECT_EQ(std::count(readers.begin(), readers.end(), op.id), 1) << op.name << " reads " << in.name;
            if (in.producer.valid()) {
                EXPECT_LT(in.producer.value(), id) << op.name << " is stored before its producer";
                producers.push_back(in.producer.value());
            }
        }
        std::sort(producers.begin(), producers.end());
        producers.erase(std::unique(producers.begin(), producers.end()), producers.end());
        EXPECT_EQ(std::vector<std::uint32_t>(g.predecessors(op.id).begin(), g.predecessors(op.id).end()), producers)
            << op.name;
        for (auto s : g.successors(op.id))
            EXPECT_GT(s, id);
        for (const auto& l : op.layers)
            for (auto w : l.weights)
                EXPECT_EQ(g.tensor(w).role, TensorRole::Weight) << op.name;
    }
    // Every consumer listed for a tensor really reads it.
    for (const auto& t : g.tensors())
        for (auto c : g.consumers(t.id)) {
            const auto ins = g.op(c).inputTensors();
            EXPECT_NE(std::find(ins.begin(), ins.end(), t.id), ins.end()) << t.name;
        }
    const auto order = g.topologicalOrder();
    ASSERT_EQ(order.size(), g.opCount());
    for (std::size_t i = 0; i < order.size(); ++i)
        EXPECT_EQ(order[i].value(), i);
}

// input -> conv a -> {conv b, pool c} -> concat d -> gemm e
Graph smallGraph(std::int64_t batch = 1, std::uint64_t seed = 42)
{
    GraphBuilder b("small", seed);
    const auto x = b.addInput("input", Shape { batch, 3, 16, 16 });
    const auto a = b.addOp({ "a", OpKind::Conv, { { x } }, { layer(conv(8, 3, 1, 1), Activation::relu()) } });
    const auto bb = b.addOp({ "b", OpKind::Conv, { { a } }, { layer(conv(8, 3, 2, 1)) } });
    const auto c = b.addOp({ "c", OpKind::Pool, { { a } }, { layer(pool(PoolKind::Max, 2, 2)) } });
    const auto d = b.addOp({ "d", OpKind::Concat, { { bb }, { c } }, { layer(Identity {}) } });
    b.addOp({ "e", OpKind::Gemm, { { d } }, { layer(Gemm { 10, true }) } });
    return std::move(b).finish();
}

} // namespace

TEST(GraphBuilder, IrInvariantsOnBuiltGraphs)
{
    const Graph small = smallGraph();
    expectIrInvariants(small);
    EXPECT_EQ(small.opCount(), 5U);
    ASSERT_EQ(small.outputs().size(), 1U);
    EXPECT_EQ(small.tensor(small.outputs()[0]).shape, (Shape { 1, 10 }));
    EXPECT_EQ(small.consumers(small.op(*small.findOp("a")).output).size(), 2U);
    EXPECT_FALSE(small.findOp("nope").has_value());
    for (const char* ref : { "zoo:inception_v3", "zoo:nasnet_a", "zoo:randwire", "zoo:random?ops=60&width=6&seed=3" })
        expectIrInvariants(loadModel(ref));
}

TEST(GraphBuilder, ConvShapes)
{
    EXPECT_EQ(outputShape({ 1, 3, 224, 224 }, conv(64, 7, 2, 3)), (Shape { 1, 64, 112, 112 }));
    EXPECT_EQ(outputShape({ 2, 16, 35, 35 }, conv(32, 3, 2)), (Shape { 2, 32, 17, 17 }));
    EXPECT_EQ(outputShape({ 1, 16, 8, 8 }, conv(16, 3, 1, 1, 16)), (Shape { 1, 16, 8, 8 })); // depthwise
    Conv2d dil = conv(4, 3);
    dil.dilationH = dil.dilationW = 3; // span 7
    EXPECT_EQ(outputShape({ 1, 2, 10, 12 }, dil), (Shape { 1, 4, 4, 6 }));
    // Asymmetric kernel, stride, padding and dilation, grouped.
    Conv2d c = conv(16, 1, 1, 0, 4);
    c.kernelH = 3;
    c.kernelW = 5;
    c.strideH = 2;
    c.padTop = 1;
    c.padLeft = 2;
    c.padRight = 1;
    c.dilationH = 2;
    EXPECT_EQ(outputShape({ 1, 8, 17, 23 }, c), (Shape { 1, 16, 7, 22 }));
    EXPECT_EQ(weightShapes(layer(c), Shape { 1, 8, 17, 23 }), (std::vector<Shape> { { 16, 2, 3, 5 }, { 16 } }));
    Conv2d noBias = conv(16, 1);
    noBias.bias = false;
    EXPECT_EQ(weightShapes(layer(noBias), Shape { 1, 8, 4, 4 }), (std::vector<Shape> { { 16, 8, 1, 1 } }));
    // Inception's factorised 1x7 / 7x1 convs keep the spatial size.
    Conv2d k17 = conv(128, 1);
    k17.kernelW = 7;
    k17.padLeft = k17.padRight = 3;
    EXPECT_EQ(outputShape({ 1, 768, 17, 17 }, k17), (Shape { 1, 128, 17, 17 }));
}

TEST(GraphBuilder, PoolShapes)
{
    EXPECT_EQ(outputShape({ 1, 64, 112, 112 }, pool(PoolKind::Max, 3, 2), OpKind::Pool), (Shape { 1, 64, 55, 55 }));
    EXPECT_EQ(
        outputShape({ 1, 64, 112, 112 }, pool(PoolKind::Max, 3, 2, 0, true), OpKind::Pool), (Shape { 1, 64, 56, 56 }));
    EXPECT_EQ(outputShape({ 1, 4, 8, 8 }, pool(PoolKind::Max, 3, 2, 0, true), OpKind::Pool), (Shape { 1, 4, 4, 4 }));
    EXPECT_EQ(outputShape({ 1, 4, 8, 8 }, pool(PoolKind::Average, 3, 1, 1), OpKind::Pool), (Shape { 1, 4, 8, 8 }));
    EXPECT_EQ(outputShape({ 1, 4, 14, 14 }, pool(PoolKind::Max, 2, 2, 0, true), OpKind::Pool), (Shape { 1, 4, 7, 7 }));
    // Ceil mode never adds a window that starts in the right padding (PyTorch / ONNX rule).
    EXPECT_EQ(outputShape({ 1, 4, 5, 5 }, pool(PoolKind::Max, 2, 2, 1, true), OpKind::Pool), (Shape { 1, 4, 3, 3 }));
    EXPECT_EQ(outputShape({ 1, 4, 4, 4 }, pool(PoolKind::Max, 1, 2, 0, true), OpKind::Pool), (Shape { 1, 4, 2, 2 }));
    EXPECT_EQ(outputShape({ 1, 4, 6, 6 }, pool(PoolKind::Max, 3, 2, 1, true), OpKind::Pool), (Shape { 1, 4, 4, 4 }));
    EXPECT_EQ(outputShape({ 2, 64, 7, 9 }, Pool2d { PoolKind::GlobalAverage }, OpKind::Pool), (Shape { 2, 64, 1, 1 }));
    EXPECT_EQ(outputShape({ 2, 64, 7, 9 }, Pool2d { PoolKind::GlobalMax }, OpKind::Pool), (Shape { 2, 64, 1, 1 }));
}

TEST(GraphBuilder, GemmFlattenReshapeShapes)
{
    EXPECT_EQ(outputShape({ 2, 64, 1, 1 }, Gemm { 10, true }, OpKind::Gemm), (Shape { 2, 10 }));
    EXPECT_EQ(
        weightShapes(layer(Gemm { 10, true }), Shape { 2, 64, 3, 3 }), (std::vector<Shape> { { 10, 576 }, { 10 } }));
    EXPECT_EQ(outputShape({ 2, 3, 4, 5 }, Flatten { 1 }, OpKind::Reshape), (Shape { 2, 60 }));
    EXPECT_EQ(outputShape({ 2, 3, 4, 5 }, Flatten { 2 }, OpKind::Reshape), (Shape { 6, 20 }));
    EXPECT_EQ(outputShape({ 2, 3, 4, 5 }, Flatten { 0 }, OpKind::Reshape), (Shape { 1, 120 }));
    EXPECT_EQ(outputShape({ 2, 3, 4, 5 }, Reshape { { 0, -1 } }, OpKind::Reshape), (Shape { 2, 60 }));
    EXPECT_EQ(outputShape({ 2, 3, 4, 5 }, Reshape { { 0, 0, 20 } }, OpKind::Reshape), (Shape { 2, 3, 20 }));
    EXPECT_EQ(outputShape({ 2, 3, 4, 5 }, Reshape { { -1, 5 } }, OpKind::Reshape), (Shape { 24, 5 }));
    EXPECT_EQ(outputShape({ 2, 3, 4, 5 }, Reshape { { 0, 3, -1, 5 } }, OpKind::Reshape), (Shape { 2, 3, 4, 5 }));
    expectGraphError([] { outputShape({ 2, 3, 4, 5 }, Reshape { { -1, -1 } }, OpKind::Reshape); }, "op");
    expectGraphError([] { outputShape({ 2, 3, 4, 5 }, Reshape { { 0, 7, -1 } }, OpKind::Reshape); }, "op");
    expectGraphError([] { outputShape({ 2, 3, 4, 5 }, Reshape { { 2, 30 } }, OpKind::Reshape); }, "op");
}

TEST(GraphBuilder, ConcatAndSumOfTerms)
{
    GraphBuilder b("t", 1);
    const auto x = b.addInput("x", Shape { 1, 8, 5, 5 });
    const auto y = b.addInput("y", Shape { 1, 8, 5, 5 });
    const auto z = b.addInput("z", Shape { 1, 4, 5, 5 });
    const auto w = b.addInput("w", Shape { 1, 8, 5, 5 });
    const auto cat = b.addOp({ "cat", OpKind::Concat, { { x }, { z }, { y } }, { layer(Identity {}) } });
    EXPECT_EQ(b.shapeOf(cat), (Shape { 1, 20, 5, 5 }));
    const auto sum = b.addOp({ "sum", OpKind::Add, { { x, y } }, { layer(Identity {}) } });
    EXPECT_EQ(b.shapeOf(sum), (Shape { 1, 8, 5, 5 }));
    // Sum inside a term, then concat with another term.
    const auto both = b.addOp({ "both", OpKind::Concat, { { x, y }, { z } }, { layer(Identity {}) } });
    EXPECT_EQ(b.shapeOf(both), (Shape { 1, 12, 5, 5 }));
    // A conv reading a concatenation sees the combined channels.
    const auto c = b.addOp({ "conv", OpKind::Conv, { { x }, { z } }, { layer(conv(6, 1)) } });
    EXPECT_EQ(b.shapeOf(c), (Shape { 1, 6, 5, 5 }));
    b.addOp({ "add3", OpKind::Add, { { x, y, w } }, { layer(Identity {}) } });
    const Graph g = std::move(b).finish();
    // Summing three tensors costs two additions per element.
    EXPECT_DOUBLE_EQ(g.op(*g.findOp("add3")).cost.flops, 2.0 * 200);
}

TEST(GraphBuilder, ErrorsNameTheOp)
{
    // Each case adds one op to a fresh builder holding x 1x6x5x5, y 1x4x6x6 and z 1x4x5x5.
    struct Case {
        const char* op;
        std::function<void(GraphBuilder&, TensorId, TensorId, TensorId)> add;
        bool seeded = true;
    };
    const Case cases[] = {
        { "ghost_reader",
            [](GraphBuilder& b, TensorId, TensorId, TensorId) {
                b.addOp({ "ghost_reader", OpKind::Conv, { { TensorId(999) } }, { layer(conv(4, 1)) } });
            } },
        { "twice",
            [](GraphBuilder& b, TensorId x, TensorId, TensorId) {
                b.addOp({ "twice", OpKind::Conv, { { x } }, { layer(conv(4, 1)) } });
                b.addOp({ "twice", OpKind::Pool, { { x } }, { layer(Pool2d { PoolKind::GlobalMax }) } });
            } },
        { "bad_groups",
            [](GraphBuilder& b, TensorId x, TensorId, TensorId) {
                b.addOp({ "bad_groups", OpKind::Conv, { { x } }, { layer(conv(8, 3, 1, 1, 4)) } });
            } },
        { "bad_concat",
            [](GraphBuilder& b, TensorId x, TensorId y, TensorId) {
                b.addOp({ "bad_concat", OpKind::Concat, { { x }, { y } }, { layer(Identity {}) } });
            } },
        { "bad_sum",
            [](GraphBuilder& b, TensorId x, TensorId, TensorId z) {
                b.addOp({ "bad_sum", OpKind::Add, { { x, z } }, { layer(Identity {}) } });
            } },
        { "reads_weight",
            [](GraphBuilder& b, TensorId, TensorId, TensorId) {
                const auto w = b.addWeight("w", Shape { 1, 3, 8, 8 }, WeightData::seeded(1, 1.0F));
                b.addOp({ "reads_weight", OpKind::Identity, { { w } }, { layer(Identity {}) } });
            } },
        { "no_weights",
            [](GraphBuilder& b, TensorId x, TensorId, TensorId) {
                b.addOp({ "no_weights", OpKind::Conv, { { x } }, { layer(conv(4, 1)) } });
            },
            false },
    };
    for (const auto& c : cases)
        expectGraphError(
            [&] {
                GraphBuilder b("t", c.seeded ? std::optional<std::uint64_t>(1) : std::nullopt);
                const auto x = b.addInput("x", Shape { 1, 6, 5, 5 });
                const auto y = b.addInput("y", Shape { 1, 4, 6, 6 });
                const auto z = b.addInput("z", Shape { 1, 4, 5, 5 });
                c.add(b, x, y, z);
            },
            c.op);
    EXPECT_THROW(GraphBuilder("empty", 1).finish(), GraphError);
    EXPECT_THROW(GraphBuilder("t", 1).addInput("x", Shape { 1, 0, 4, 4 }), GraphError);
}

TEST(GraphBuilder, ConvFlopsMatchFormula)
{
    for (std::int64_t n : { 1, 3 })
        for (std::int64_t g : { 1, 2, 4 }) {
            GraphBuilder b("t", 1);
            const auto x = b.addInput("x", Shape { n, 8, 10, 12 });
            Conv2d c = conv(16, 3, 2, 1, g);
            c.kernelW = 5;
            c.padLeft = c.padRight = 2;
            b.addOp({ "conv", OpKind::Conv, { { x } }, { layer(c) } });
            const Graph graph = std::move(b).finish();
            const std::int64_t ho = 5, wo = 6; // (10+2-3)/2+1, (12+4-5)/2+1
            ASSERT_EQ(graph.tensor(graph.op(OpId(0)).output).shape, (Shape { n, 16, ho, wo }));
            const double outElems = static_cast<double>(n * 16 * ho * wo);
            const double expected = 2.0 * outElems * static_cast<double>((8 / g) * 3 * 5) + outElems;
            EXPECT_DOUBLE_EQ(graph.op(OpId(0)).cost.flops, expected) << "n=" << n << " g=" << g;
            EXPECT_EQ(graph.weightCount(), 16 * (8 / g) * 3 * 5 + 16);
        }
}

TEST(GraphBuilder, WithBatchScalesActivationsNotWeights)
{
    const Graph g1 = smallGraph();
    const Graph g8 = g1.withBatch(8);
    EXPECT_EQ(g1.batch(), 1);
    EXPECT_EQ(g8.batch(), 8);
    ASSERT_EQ(g1.tensors().size(), g8.tensors().size());
    for (std::size_t i = 0; i < g1.tensors().size(); ++i) {
        const Tensor& a = g1.tensors()[i];
        const Tensor& b = g8.tensors()[i];
        if (a.role == TensorRole::Weight)
            EXPECT_EQ(b.shape, a.shape) << a.name;
        else
            EXPECT_EQ(b.shape, a.shape.withBatch(8)) << a.name;
    }
    EXPECT_EQ(g8.weightCount(), g1.weightCount());
    for (const char* name : { "a", "b", "e" }) {
        const auto id = *g1.findOp(name);
        EXPECT_DOUBLE_EQ(g8.op(id).cost.flops, 8.0 * g1.op(id).cost.flops) << name;
    }
    // Rebatching is the same as building at that batch.
    const Graph built8 = smallGraph(8);
    for (std::size_t i = 0; i < built8.opCount(); ++i)
        EXPECT_DOUBLE_EQ(built8.ops()[i].cost.flops, g8.ops()[i].cost.flops);
    EXPECT_EQ(g8.withBatch(1).totalFlops(), g1.totalFlops());
    EXPECT_THROW(g1.withBatch(0), GraphError);
}

TEST(GraphBuilder, SeededWeightsAreDeterministicAndBounded)
{
    const Graph a = smallGraph();
    const Graph b = smallGraph();
    auto weightOf = [](const Graph& g, const std::string& name) -> const Tensor& {
        for (const auto& t : g.tensors())
            if (t.name == name)
                return t;
        throw std::runtime_error("no tensor " + name);
    };
    const Tensor& wa = weightOf(a, "a.weight");
    const Tensor& wb = weightOf(b, "a.weight");
    ASSERT_EQ(wa.role, TensorRole::Weight);
    ASSERT_TRUE(wa.weight && wa.weight->isSeeded());
    const auto count = static_cast<std::size_t>(wa.shape.elements());
    const auto va = wa.weight->values(count);
    EXPECT_EQ(va, wb.weight->values(count));
    EXPECT_NE(va, weightOf(a, "b.weight").weight->values(count));
    EXPECT_NE(va, weightOf(a, "a.bias").weight->values(count));
    EXPECT_EQ(va, WeightData::seeded(wa.weight->seed(), wa.weight->scale())->values(count));

    const float scale = 1.0F / std::sqrt(3.0F * 3 * 3); // fan-in of conv a
    EXPECT_NEAR(wa.weight->scale(), scale, 1e-6);
    float largest = 0;
    for (float v : va) {
        EXPECT_LE(std::abs(v), scale);
        largest = std::max(largest, std::abs(v));
    }
    EXPECT_GT(largest, 0.5F * scale); // spread over the range, not all zero

    // Another seed gives other values.
    EXPECT_NE(weightOf(smallGraph(1, 43), "a.weight").weight->values(count), va);
    const auto stored = WeightData::stored({ 1.0F, 2.0F });
    EXPECT_FALSE(stored->isSeeded());
    EXPECT_EQ(stored->values(3), (std::vector<float> { 1.0F, 2.0F, 0.0F }));
}

TEST(GraphBuilder, WithWeightReplacesOneWeightInACopy)
{
    const Graph g = smallGraph();
    const auto weight
        = std::find_if(g.tensors().begin(), g.tensors().end(), [](const Tensor& t) { return t.name == "a.weight"; });
    ASSERT_NE(weight, g.tensors().end());
    const auto count = static_cast<std::size_t>(weight->shape.elements());
    const Graph changed = GraphBuilder::withWeight(g, weight->id, WeightData::stored(std::vector<float>(count, 0.5F)));
    const Tensor& w = changed.tensor(weight->id);
    EXPECT_EQ(w.name, "a.weight");
    EXPECT_EQ(w.shape, weight->shape);
    EXPECT_EQ(w.weight->values(count), std::vector<float>(count, 0.5F));
    EXPECT_NE(g.tensor(weight->id).weight->values(count), std::vector<float>(count, 0.5F)); // the original stays
    EXPECT_NE(changed.instanceId(), g.instanceId()); // other values: caches must not mistake one for the other
    EXPECT_EQ(changed.opCount(), g.opCount());
    EXPECT_THROW(GraphBuilder::withWeight(g, g.inputs().front(), WeightData::stored({ 1.0F })), GraphError);
}
