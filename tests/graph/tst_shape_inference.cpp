// Shape inference and costs of the layers imported models bring (operand layers, slices, pads...).
#include "graph/graph_builder.h"
#include "util/error.h"

#include <gtest/gtest.h>

using namespace opsched;

namespace {

Layer layer(LayerParams p)
{
    Layer l;
    l.params = std::move(p);
    return l;
}

struct Fixture {
    GraphBuilder b { "t" };
    TensorId x = b.addInput("x", Shape { 2, 8, 4, 6 });

    TensorId weight(const std::string& name, Shape s)
    {
        return b.addWeight(
            name, s, WeightData::stored(std::vector<float>(static_cast<std::size_t>(s.elements()), 1.0F)));
    }
    Shape shapeOf(OpSpec spec) { return b.shapeOf(b.addOp(std::move(spec))); }
};

TEST(ShapeInference, BinaryBroadcastsOperandsAndConstants)
{
    Fixture f;
    const auto c = f.weight("c", Shape { 8, 1, 1 });
    Layer add = layer(Binary { BinaryKind::Add });
    add.weights = { c };
    EXPECT_EQ(f.shapeOf({ "add", OpKind::Add, { { f.x } }, { add } }), (Shape { 2, 8, 4, 6 }));

    const auto y = f.b.addInput("y", Shape { 1, 8, 1, 6 });
    EXPECT_EQ(f.shapeOf({ "mul", OpKind::Multiply, { { f.x }, { y } }, { layer(Binary { BinaryKind::Mul }) } }),
        (Shape { 2, 8, 4, 6 }));

    const auto bad = f.b.addInput("bad", Shape { 2, 7, 4, 6 });
    EXPECT_THROW(f.b.addOp({ "sub", OpKind::Subtract, { { f.x }, { bad } }, { layer(Binary { BinaryKind::Sub }) } }),
        GraphError);
    // An operand is one tensor, not a sum.
    EXPECT_THROW(f.b.addOp({ "div", OpKind::Divide, { { f.x, f.x }, { y } }, { layer(Binary { BinaryKind::Div }) } }),
        GraphError);
}

TEST(ShapeInference, MatMulWithBatchDimensionsAndConstantRightHandSide)
{
    Fixture f;
    const auto w = f.weight("w", Shape { 6, 5 });
    Layer mm = layer(MatMul {});
    mm.weights = { w };
    const auto out = f.b.addOp({ "mm", OpKind::MatMul, { { f.x } }, { mm } });
    EXPECT_EQ(f.b.shapeOf(out), (Shape { 2, 8, 4, 5 }));
    const auto w2 = f.weight("w2", Shape { 7, 5 });
    Layer bad = layer(MatMul {});
    bad.weights = { w2 };
    EXPECT_THROW(f.b.addOp({ "bad", OpKind::MatMul, { { f.x } }, { bad } }), GraphError);
    f.b.markOutput(out);
    const Graph g = std::move(f.b).finish();
    EXPECT_DOUBLE_EQ(g.op(OpId(0U)).cost.flops, 2.0 * (2 * 8 * 4 * 5) * 6);
}

TEST(ShapeInference, ConcatOnAnotherAxis)
{
    Fixture f;
    const auto y = f.b.addInput("y", Shape { 2, 8, 4, 2 });
    EXPECT_EQ(
        f.shapeOf({ "cat", OpKind::Concat, { { f.x }, { y } }, { layer(Concat { -1, {} }) } }), (Shape { 2, 8, 4, 8 }));
    const auto z = f.b.addInput("z", Shape { 2, 8, 5, 2 });
    EXPECT_THROW(f.b.addOp({ "bad", OpKind::Concat, { { f.x }, { z } }, { layer(Concat { 3, {} }) } }), GraphError);
}

TEST(ShapeInference, SliceClampsLikeOnnx)
{
    Fixture f;
    // channels 2..5, every second row from the end backwards, width clamped.
    Slice s { { 2, -1, 0 }, { 6, -100, 1000 }, { 1, 2, 3 }, { 1, -2, 1 } };
    EXPECT_EQ(f.shapeOf({ "s", OpKind::Slice, { { f.x } }, { layer(s) } }), (Shape { 2, 4, 2, 6 }));
    Slice zero { { 0 }, { 1 }, { 1 }, { 0 } };
    EXPECT_THROW(f.b.addOp({ "z", OpKind::Slice, { { f.x } }, { layer(zero) } }), GraphError);
}

TEST(ShapeInference, TransposePadReduceBatchNorm)
{
    Fixture f;
    EXPECT_EQ(f.shapeOf({ "t", OpKind::Transpose, { { f.x } }, { layer(Transpose { { 0, 2, 3, 1 } }) } }),
        (Shape { 2, 4, 6, 8 }));
    EXPECT_THROW(
        f.b.addOp({ "t2", OpKind::Transpose, { { f.x } }, { layer(Transpose { { 0, 0, 1, 2 } }) } }), GraphError);
    EXPECT_EQ(f.shapeOf({ "p", OpKind::Pad, { { f.x } }, { layer(Pad { { 0, 0, 1, 2, 0, 0, 3, 4 } }) } }),
        (Shape { 2, 8, 8, 12 }));
    EXPECT_EQ(f.shapeOf({ "r", OpKind::Reduce, { { f.x } }, { layer(Reduce { ReduceKind::Mean, { 2, 3 }, true }) } }),
        (Shape { 2, 8, 1, 1 }));
    EXPECT_EQ(f.shapeOf({ "r2", OpKind::Reduce, { { f.x } }, { layer(Reduce { ReduceKind::Mean, { -1 }, false }) } }),
        (Shape { 2, 8, 4 }));
    Layer bn = layer(BatchNorm {});
    for (const char* n : { "scale", "bias", "mean", "var" })
        bn.weights.push_back(f.weight(n, Shape { 8 }));
    EXPECT_EQ(f.shapeOf({ "bn", OpKind::BatchNorm, { { f.x } }, { bn } }), (Shape { 2, 8, 4, 6 }));
    Layer bnMissing = layer(BatchNorm {});
    EXPECT_THROW(f.b.addOp({ "bn2", OpKind::BatchNorm, { { f.x } }, { bnMissing } }), GraphError);
}

TEST(ShapeInference, OperandLayersMustComeFirst)
{
    Fixture f;
    const auto y = f.b.addInput("y", Shape { 2, 8, 4, 6 });
    Layer relu = layer(Eltwise { Activation::relu() });
    EXPECT_THROW(
        f.b.addOp({ "bad", OpKind::Add, { { f.x }, { y } }, { relu, layer(Binary { BinaryKind::Add }) } }), GraphError);
}

TEST(ShapeInference, RebatchingKeepsOperandLayersConsistent)
{
    GraphBuilder b("t");
    const auto x = b.addInput("x", Shape { 1, 4, 3, 3 });
    const auto w = b.addWeight("w", Shape { 3, 2 }, WeightData::stored(std::vector<float>(6, 0.5F)));
    Layer mm = layer(MatMul {});
    mm.weights = { w };
    const auto y = b.addOp({ "mm", OpKind::MatMul, { { x } }, { mm } });
    b.addOp({ "t", OpKind::Transpose, { { y } }, { layer(Transpose { { 0, 1, 3, 2 } }) } });
    const Graph g = std::move(b).finish().withBatch(5);
    EXPECT_EQ(g.tensor(g.op(OpId(1U)).output).shape, (Shape { 5, 4, 2, 3 }));
}

} // namespace
