// The oneDNN executor's kernels for imported models' layers (Binary, MatMul, Concat, Slice,
// Transpose, Pad, Reduce, BatchNorm) against the naive references (reference_tensor_ops.h), at
// ranks 0 to 5, with broadcasting, fused activations, and a few results worked out by hand.
#include "cpu_test_support.h"
#include "exec/cpu/cpu_executor.h"
#include "exec/cpu/kernel_names.h"
#include "graph/graph_builder.h"
#include "reference.h"
#include "schedule/basic_schedulers.h"
#include "support/test_layers.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace opsched;
using opsched::test::maxAbsDiff;
using opsched::test::referenceRun;

using opsched::test::layer;
using opsched::test::weight;

namespace {

using opsched::test::expectMatchesReference;
using opsched::test::kOneThread;
using opsched::test::sequentialPlan;

// Runs a graph on given inputs and returns its outputs.
std::vector<std::vector<float>> run(const Graph& g, const std::vector<std::vector<float>>& inputs)
{
    return test::runSequential(g, inputs);
}

TEST(CpuTensorOps, BinaryBroadcastsEveryKindAtEveryRank)
{
    for (auto kind : { BinaryKind::Add, BinaryKind::Sub, BinaryKind::Mul, BinaryKind::Div }) {
        GraphBuilder b(std::string("binary_") + toString(kind), 3);
        const auto x4 = b.addInput("x4", Shape { 2, 3, 4, 5 });
        const auto row = b.addInput("row", Shape { 1, 5 }); // lower rank, right-aligned
        const auto col = b.addInput("col", Shape { 3, 4, 1 }); // rank 3
        const auto m2 = b.addInput("m2", Shape { 4, 5 }); // rank 2
        const auto divisor
            = weight(b, std::string("d_") + toString(kind), Shape { 5 }, { 2.0F, -4.0F, 0.5F, 1.5F, -1.0F });
        const auto scalar = weight(b, std::string("s_") + toString(kind), Shape {}, { -1.5F });
        // Full-shape first operand, then several broadcast ones and a constant.
        b.addOp({ "full_first", OpKind::Add, { { x4 }, { col } },
            { layer(Binary { kind }, Activation::relu(), { divisor }) } });
        // First operand smaller than the result: for Sub and Div the order must hold.
        b.addOp(
            { "small_first", OpKind::Add, { { row }, { col } }, { layer(Binary { kind }, {}, { divisor, scalar }) } });
        // Rank 2 with a scalar constant, and rank 3 with a rank-2 operand.
        b.addOp({ "rank2", OpKind::Add, { { m2 } }, { layer(Binary { kind }, { ActivationKind::Tanh }, { scalar }) } });
        b.addOp({ "rank3", OpKind::Add, { { col }, { m2 } }, { layer(Binary { kind }) } });
        expectMatchesReference(std::move(b).finish());
    }
}

TEST(CpuTensorOps, BinaryHandComputed)
{
    GraphBuilder b("sub_hand", 3);
    const auto x = b.addInput("x", Shape { 2, 1 });
    const auto y = b.addInput("y", Shape { 3 });
    b.addOp({ "sub", OpKind::Subtract, { { x }, { y } }, { layer(Binary { BinaryKind::Sub }) } });
    const auto out = run(std::move(b).finish(), { { 10, 20 }, { 1, 2, 3 } });
    EXPECT_EQ(out.at(0), (std::vector<float> { 9, 8, 7, 19, 18, 17 }));
}

TEST(CpuTensorOps, MatMulBroadcastsBatchesAndPromotesVectors)
{
    GraphBuilder b("matmul", 3);
    const auto a4 = b.addInput("a4", Shape { 2, 1, 3, 4 });
    const auto b3 = b.addInput("b3", Shape { 3, 4, 5 });
    const auto a2 = b.addInput("a2", Shape { 6, 4 });
    const auto v = b.addInput("v", Shape { 4 });
    const auto w = weight(b, "w", Shape { 4, 5 },
        std::vector<float> { 0.5F, -1, 2, 0, 1, 1, 1, -0.5F, 0.25F, 3, -2, 0, 1, 1, 1, 0.1F, 0.2F, 0.3F, 0.4F, 0.5F });
    b.addOp({ "batched", OpKind::MatMul, { { a4 }, { b3 } }, { layer(MatMul {}, Activation::relu()) } });
    b.addOp({ "by_weight", OpKind::MatMul, { { a2 } }, { layer(MatMul {}, { ActivationKind::Sigmoid }, { w }) } });
    b.addOp({ "vector_left", OpKind::MatMul, { { v } }, { layer(MatMul {}, {}, { w }) } });
    b.addOp({ "vector_right", OpKind::MatMul, { { a2 }, { v } }, { layer(MatMul {}) } });
    b.addOp({ "batched_by_weight", OpKind::MatMul, { { a4 } }, { layer(MatMul {}, {}, { w }) } });
    expectMatchesReference(std::move(b).finish());
}

TEST(CpuTensorOps, ConcatOnAnyAxisWithConstants)
{
    for (std::int64_t batch : { 1, 2 }) {
        GraphBuilder b("concat_b" + std::to_string(batch), 3);
        const auto x = b.addInput("x", Shape { batch, 3, 4 });
        const auto y = b.addInput("y", Shape { batch, 3, 2 });
        const auto z = b.addInput("z", Shape { batch, 5, 4 });
        const auto m = b.addInput("m", Shape { 2, 3 });
        const auto c
            = weight(b, "c", Shape { batch, 3, 1 }, std::vector<float>(static_cast<std::size_t>(batch * 3), 0.75F));
        b.addOp({ "last_axis", OpKind::Concat, { { x }, { y } },
            { layer(Concat { -1, {} }, { ActivationKind::Tanh }, { c }) } });
        b.addOp({ "axis1", OpKind::Concat, { { x }, { z }, { x } }, { layer(Concat { 1, {} }) } });
        b.addOp({ "axis0", OpKind::Concat, { { x }, { x } }, { layer(Concat { 0, {} }, Activation::relu()) } });
        b.addOp({ "rank2", OpKind::Concat, { { m }, { m } }, { layer(Concat { 1, {} }) } });
        expectMatchesReference(std::move(b).finish());
    }
}

TEST(CpuTensorOps, SlicesWithNegativeAndClampedBoundsAndSteps)
{
    GraphBuilder b("slice", 3);
    const auto x = b.addInput("x", Shape { 2, 5, 6 });
    const auto m = b.addInput("m", Shape { 7, 3 });
    const auto big = b.addInput("big", Shape { 2, 3, 4, 5, 6 });
    auto slice = [&](const char* name, TensorId in, Slice s, Activation act = {}) {
        b.addOp({ name, OpKind::Slice, { { in } }, { layer(std::move(s), act) } });
    };
    slice("forward", x, Slice { { 1, 0 }, { 100, -1 }, { 1, 2 }, { 2, 1 } });
    slice(
        "backward", x, Slice { { -1, 4 }, { -100, 0 }, { -2, 2 }, { -2, -1 } }, Activation::relu()); // ends clamp to -1
    slice("negative_axes", m, Slice { { 5 }, { -8 }, { -2 }, { -3 } });
    slice("plain", m, Slice { { 1 }, { 3 }, { 1 }, { 1 } });
    slice("rank5", big, Slice { { 1, -2, 0 }, { 3, 0, 6 }, { 1, 3, 4 }, { 1, -1, 4 } });
    expectMatchesReference(std::move(b).finish());
}

TEST(CpuTensorOps, NegativeStepSliceHandComputed)
{
    GraphBuilder b("slice_hand", 3);
    const auto x = b.addInput("x", Shape { 10 });
    b.addOp({ "rev", OpKind::Slice, { { x } }, { layer(Slice { { -2 }, { -100 }, { 0 }, { -3 } }) } });
    const auto out = run(std::move(b).finish(), { { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 } });
    EXPECT_EQ(out.at(0), (std::vector<float> { 8, 5, 2 }));
}

TEST(CpuTensorOps, TransposesAtRanksTwoToFive)
{
    GraphBuilder b("transpose", 3);
    const auto m = b.addInput("m", Shape { 3, 7 });
    const auto x = b.addInput("x", Shape { 2, 3, 4 });
    const auto big = b.addInput("big", Shape { 2, 3, 4, 5, 2 });
    b.addOp({ "t2", OpKind::Transpose, { { m } }, { layer(Transpose { { 1, 0 } }) } });
    b.addOp({ "t3", OpKind::Transpose, { { x } }, { layer(Transpose { { 2, 0, 1 } }, { ActivationKind::Sigmoid }) } });
    b.addOp({ "t5", OpKind::Transpose, { { big } }, { layer(Transpose { { 4, 2, 0, 3, 1 } }) } });
    expectMatchesReference(std::move(b).finish());
}

TEST(CpuTensorOps, PadsInEveryMode)
{
    GraphBuilder b("pad", 3);
    const auto x = b.addInput("x", Shape { 2, 3, 4 });
    const auto m = b.addInput("m", Shape { 3, 5 });
    const auto one = b.addInput("one", Shape { 1, 4 });
    auto pad = [&](const char* name, TensorId in, Pad p, Activation act = {}) {
        b.addOp({ name, OpKind::Pad, { { in } }, { layer(std::move(p), act) } });
    };
    pad("constant", x, Pad { { 0, 1, 2, 1, 0, 3 }, PadMode::Constant, 0.5F });
    pad("constant_crop", m, Pad { { -1, 2, 1, -2 }, PadMode::Constant, -2.0F }, Activation::relu());
    pad("reflect", x, Pad { { 0, 2, 3, 0, 2, 3 }, PadMode::Reflect, 0.0F });
    pad("reflect_rank2", m, Pad { { 2, 4, 2, 4 }, PadMode::Reflect, 0.0F },
        { ActivationKind::Tanh }); // longer than the axis
    pad("edge", x, Pad { { 1, 0, 2, 1, 3, 0 }, PadMode::Edge, 0.0F });
    pad("reflect_size1", one, Pad { { 1, 0, 1, 0 }, PadMode::Reflect, 0.0F });
    expectMatchesReference(std::move(b).finish());
}

TEST(CpuTensorOps, ReflectPadHandComputed)
{
    GraphBuilder b("pad_hand", 3);
    const auto x = b.addInput("x", Shape { 3 });
    b.addOp({ "reflect", OpKind::Pad, { { x } }, { layer(Pad { { 2, 2 }, PadMode::Reflect, 0.0F }) } });
    b.addOp({ "edge", OpKind::Pad, { { x } }, { layer(Pad { { 1, 2 }, PadMode::Edge, 0.0F }) } });
    const auto out = run(std::move(b).finish(), { { 1, 2, 3 } });
    EXPECT_EQ(out.at(0), (std::vector<float> { 3, 2, 1, 2, 3, 2, 1 }));
    EXPECT_EQ(out.at(1), (std::vector<float> { 1, 1, 2, 3, 3, 3 }));
}

TEST(CpuTensorOps, ReducesOverSeveralAxes)
{
    GraphBuilder b("reduce", 3);
    const auto x = b.addInput("x", Shape { 2, 3, 4, 5 });
    const auto m = b.addInput("m", Shape { 6, 4 });
    const auto t = b.addInput("t", Shape { 3, 1, 5 });
    auto reduce = [&](const char* name, TensorId in, Reduce r, Activation act = {}) {
        b.addOp({ name, OpKind::Reduce, { { in } }, { layer(std::move(r), act) } });
    };
    reduce("mean_hw", x, Reduce { ReduceKind::Mean, { 2, 3 }, true });
    reduce("sum_nc_drop", x, Reduce { ReduceKind::Sum, { 0, -3 }, false }, Activation::relu());
    reduce("max_all", x, Reduce { ReduceKind::Max, {}, false }); // rank 0 out
    reduce("mean_rank2", m, Reduce { ReduceKind::Mean, { -1 }, true });
    reduce("sum_unit_axis", t, Reduce { ReduceKind::Sum, { 1 }, false }); // extent 1: a copy
    reduce("max_rank3", t, Reduce { ReduceKind::Max, { 0, 2 }, true }, { ActivationKind::Sigmoid });
    expectMatchesReference(std::move(b).finish());
}

// The reductions oneDNN 2.6 runs only in its reference loop (over channels, over the last axis of a
// small tensor) run as host code instead: the same values, and no reference kernel in the plan.
TEST(CpuTensorOps, ReductionsWithoutAJitKernelRunAsHostCode)
{
    GraphBuilder b("reduce_host", 3);
    const auto x = b.addInput("x", Shape { 1, 64, 7, 7 });
    const auto s = b.addInput("s", Shape { 2, 8, 16 });
    auto reduce = [&](const char* name, TensorId in, Reduce r, Activation act = {}) {
        b.addOp({ name, OpKind::Reduce, { { in } }, { layer(std::move(r), act) } });
    };
    reduce("mean_c", x, Reduce { ReduceKind::Mean, { 1 }, true });
    reduce("min_c", x, Reduce { ReduceKind::Min, { 1 }, false }, Activation::relu());
    reduce("sumsquare_c", x, Reduce { ReduceKind::SumSquare, { 1 }, true });
    reduce("l2_last", s, Reduce { ReduceKind::L2, { -1 }, true });
    reduce("l1_c_w", x, Reduce { ReduceKind::L1, { 1, 3 }, true });
    reduce("prod_mid", s, Reduce { ReduceKind::Prod, { 1 }, true });
    const Graph g = std::move(b).finish();
    // Each output against its own magnitude: a product's size must not hide a mean's error.
    const auto inputs = cpu::seededInputs(g, 11);
    cpu::CpuExecutor ex(g, sequentialPlan(g), kOneThread);
    const auto got = ex.run(inputs);
    const auto want = test::referenceRun(g, inputs);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t k = 0; k < got.size(); ++k) {
        float scale = 1e-6F, worst = 0.0F;
        for (float v : want[k])
            scale = std::max(scale, std::abs(v));
        for (std::size_t i = 0; i < got[k].size(); ++i)
            worst = std::max(worst, std::abs(got[k][i] - want[k][i]));
        EXPECT_LE(worst, 1e-5F * scale) << g.tensor(g.outputs()[k]).name;
    }
    std::size_t host = 0;
    for (const auto& p : ex.primitives()) {
        EXPECT_FALSE(cpu::isReferenceImplementation(p.implementation)) << p.op << ": " << p.implementation;
        host += p.implementation == "host";
    }
    EXPECT_GE(host, 1u); // some of them are host code on every ISA
}

TEST(CpuTensorOps, StandaloneBatchNormAtRanksTwoToSix)
{
    int k = 0;
    for (const Shape& shape : { Shape { 4, 3 }, Shape { 2, 3, 5 }, Shape { 2, 3, 4, 5 }, Shape { 1, 3, 2, 2, 2, 2 } }) {
        GraphBuilder b("batchnorm_rank" + std::to_string(shape.rank()), 3);
        const auto x = b.addInput("x", shape);
        const std::string p = "bn" + std::to_string(k++);
        const std::vector<TensorId> w { weight(b, p + ".scale", Shape { 3 }, { 1.5F, -0.5F, 2.0F }),
            weight(b, p + ".bias", Shape { 3 }, { 0.1F, 0.2F, -0.3F }),
            weight(b, p + ".mean", Shape { 3 }, { 0.05F, -0.1F, 0.2F }),
            weight(b, p + ".var", Shape { 3 }, { 0.5F, 2.0F, 0.01F }) };
        b.addOp({ "bn", OpKind::BatchNorm, { { x } }, { layer(BatchNorm { 1e-3F }, Activation::relu6(), w) } });
        expectMatchesReference(std::move(b).finish(), 1e-4F);
    }
}

// The new kinds inside a graph with sharing, views and liveness reuse, at batch 1 and 2.
TEST(CpuTensorOps, ChainsReuseTheArenaSafely)
{
    for (std::int64_t batch : { 1, 2 }) {
        GraphBuilder b("chain_b" + std::to_string(batch), 3);
        const auto x = b.addInput("x", Shape { batch, 4, 6 });
        const auto t = b.addOp({ "t", OpKind::Transpose, { { x } }, { layer(Transpose { { 0, 2, 1 } }) } }); // b,6,4
        const auto s = b.addOp(
            { "s", OpKind::Slice, { { t } }, { layer(Slice { { -1 }, { -7 }, { 1 }, { -1 } }) } }); // reversed
        const auto mm = b.addOp({ "mm", OpKind::MatMul, { { s }, { x } }, { layer(MatMul {}) } }); // b,6,6
        const auto r = b.addOp({ "r", OpKind::Reshape, { { mm } }, { layer(Reshape { { 0, 36 } }) } }); // a view
        const auto p
            = b.addOp({ "p", OpKind::Pad, { { r } }, { layer(Pad { { 0, 2, 0, 2 }, PadMode::Reflect, 0.0F }) } });
        const auto red
            = b.addOp({ "red", OpKind::Reduce, { { p } }, { layer(Reduce { ReduceKind::Mean, { 1 }, true }) } });
        const auto sum = b.addOp({ "sum", OpKind::Add, { { p }, { red } }, { layer(Binary { BinaryKind::Sub }) } });
        b.addOp({ "cat", OpKind::Concat, { { sum }, { p }, { r } }, { layer(Concat { -1, {} }, Activation::relu()) } });
        expectMatchesReference(std::move(b).finish());
    }
}

} // namespace
