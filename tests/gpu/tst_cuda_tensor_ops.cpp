// The CUDA executor's kernels for imported models' layers (Binary, MatMul, Concat, Slice,
// Transpose, Pad, Reduce, BatchNorm; TopK against the CPU executor) against the naive references
// (tests/cpu/reference.h, which uses reference_tensor_ops.h), with fused activations, at batch 1 and 2, TF32 off: max
// relative error 1e-3. Skipped visibly without a device.
#include "cpu/reference.h"
#include "cuda_test_support.h"
#include "exec/cpu/cpu_executor.h"
#include "graph/graph_builder.h"
#include "schedule/basic_schedulers.h"
#include "support/test_layers.h"
#include "util/error.h"

using namespace opsched;

using opsched::test::layer;
using opsched::test::weight;

namespace {

const gpu::CudaOptions kNoTf32 { 0, false, {} };

std::vector<float> ramp(std::size_t n, float from, float step)
{
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i)
        v[i] = from + step * static_cast<float>(i);
    return v;
}

void expectMatchesReference(const Graph& g)
{
    const Plan plan = compileSchedule(g, sequentialSchedule(g));
    const auto inputs = cpu::seededInputs(g, 11);
    gpu::CudaExecutor ex(g, plan, kNoTf32);
    const auto got = ex.run(inputs);
    EXPECT_LE(test::maxRelativeError(got, test::referenceRun(g, inputs)), 1e-3) << g.name();
    EXPECT_EQ(ex.run(inputs), got) << g.name() << ": a second replay differs";
}

std::vector<std::vector<float>> runOnGpu(const Graph& g, const std::vector<std::vector<float>>& inputs)
{
    gpu::CudaExecutor ex(g, compileSchedule(g, sequentialSchedule(g)), kNoTf32);
    return ex.run(inputs);
}

TEST(CudaTensorOps, BinaryBroadcastsEveryKind)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    for (auto kind : { BinaryKind::Add, BinaryKind::Sub, BinaryKind::Mul, BinaryKind::Div }) {
        GraphBuilder b(std::string("binary_") + toString(kind), 3);
        const auto x4 = b.addInput("x4", Shape { 2, 3, 4, 5 });
        const auto row = b.addInput("row", Shape { 1, 5 });
        const auto col = b.addInput("col", Shape { 3, 4, 1 });
        const auto x6 = b.addInput("x6", Shape { 2, 1, 3, 2, 1, 5 });
        const auto divisor
            = weight(b, std::string("d_") + toString(kind), Shape { 5 }, { 2.0F, -4.0F, 0.5F, 1.5F, -1.0F });
        const auto scalar = weight(b, std::string("s_") + toString(kind), Shape {}, { -1.5F });
        b.addOp({ "full_first", OpKind::Add, { { x4 }, { col } },
            { layer(Binary { kind }, Activation::relu(), { divisor }) } });
        b.addOp(
            { "small_first", OpKind::Add, { { row }, { col } }, { layer(Binary { kind }, {}, { divisor, scalar }) } });
        b.addOp({ "rank6", OpKind::Add, { { x6 }, { row } },
            { layer(Binary { kind }, { ActivationKind::Tanh }, { scalar }) } });
        expectMatchesReference(std::move(b).finish());
    }
}

TEST(CudaTensorOps, BinaryFoldsMoreOperandsThanOneLaunchTakes)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    GraphBuilder b("binary_many", 3);
    std::vector<InputTerm> terms;
    for (int k = 0; k < 11; ++k)
        terms.push_back({ b.addInput("x" + std::to_string(k), k % 2 ? Shape { 3, 1 } : Shape { 1, 4 }) });
    b.addOp({ "sub11", OpKind::Subtract, terms, { layer(Binary { BinaryKind::Sub }) } });
    expectMatchesReference(std::move(b).finish());
}

TEST(CudaTensorOps, BinaryHandComputed)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    GraphBuilder b("sub_hand", 3);
    const auto x = b.addInput("x", Shape { 2, 1 });
    const auto y = b.addInput("y", Shape { 3 });
    b.addOp({ "sub", OpKind::Subtract, { { x }, { y } }, { layer(Binary { BinaryKind::Sub }) } });
    const auto out = runOnGpu(std::move(b).finish(), { { 10, 20 }, { 1, 2, 3 } });
    EXPECT_EQ(out.at(0), (std::vector<float> { 9, 8, 7, 19, 18, 17 }));
}

TEST(CudaTensorOps, MatMulBroadcastsBatchesPromotesVectorsAndTiles)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    GraphBuilder b("matmul", 3);
    const auto a4 = b.addInput("a4", Shape { 2, 1, 3, 4 });
    const auto b3 = b.addInput("b3", Shape { 3, 4, 5 });
    const auto a2 = b.addInput("a2", Shape { 6, 4 });
    const auto v = b.addInput("v", Shape { 4 });
    const auto big = b.addInput("big", Shape { 2, 37, 53 }); // not a multiple of the tile
    const auto bigB = b.addInput("bigB", Shape { 53, 29 });
    const auto w = weight(b, "w", Shape { 4, 5 }, ramp(20, -1.0F, 0.13F));
    b.addOp({ "batched", OpKind::MatMul, { { a4 }, { b3 } }, { layer(MatMul {}, Activation::relu()) } });
    b.addOp({ "by_weight", OpKind::MatMul, { { a2 } }, { layer(MatMul {}, { ActivationKind::Sigmoid }, { w }) } });
    b.addOp({ "vector_left", OpKind::MatMul, { { v } }, { layer(MatMul {}, {}, { w }) } });
    b.addOp({ "vector_right", OpKind::MatMul, { { a2 }, { v } }, { layer(MatMul {}) } });
    b.addOp({ "tiled", OpKind::MatMul, { { big }, { bigB } }, { layer(MatMul {}) } });
    expectMatchesReference(std::move(b).finish());
}

TEST(CudaTensorOps, ConcatOnAnyAxisWithConstants)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    for (std::int64_t batch : { 1, 2 }) {
        GraphBuilder b("concat_b" + std::to_string(batch), 3);
        const auto x = b.addInput("x", Shape { batch, 3, 4 });
        const auto y = b.addInput("y", Shape { batch, 3, 2 });
        const auto z = b.addInput("z", Shape { batch, 5, 4 });
        const auto c
            = weight(b, "c", Shape { batch, 3, 1 }, std::vector<float>(static_cast<std::size_t>(batch * 3), 0.75F));
        b.addOp({ "last_axis", OpKind::Concat, { { x }, { y } },
            { layer(Concat { -1, {} }, { ActivationKind::Tanh }, { c }) } });
        b.addOp({ "axis1", OpKind::Concat, { { x }, { z }, { x } }, { layer(Concat { 1, {} }) } });
        b.addOp({ "axis0", OpKind::Concat, { { x }, { x } }, { layer(Concat { 0, {} }, Activation::relu()) } });
        expectMatchesReference(std::move(b).finish());
    }
}

TEST(CudaTensorOps, SlicesWithNegativeStepsAndTransposes)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    GraphBuilder b("slice_transpose", 3);
    const auto x = b.addInput("x", Shape { 2, 5, 6 });
    const auto big = b.addInput("big", Shape { 2, 3, 4, 5, 6 });
    auto slice = [&](const char* name, TensorId in, Slice s, Activation act = {}) {
        b.addOp({ name, OpKind::Slice, { { in } }, { layer(std::move(s), act) } });
    };
    slice("forward", x, Slice { { 1, 0 }, { 100, -1 }, { 1, 2 }, { 2, 1 } });
    slice("backward", x, Slice { { -1, 4 }, { -100, 0 }, { -2, 2 }, { -2, -1 } }, Activation::relu());
    slice("rank5", big, Slice { { 1, -2, 0 }, { 3, 0, 6 }, { 1, 3, 4 }, { 1, -1, 4 } });
    b.addOp({ "t3", OpKind::Transpose, { { x } }, { layer(Transpose { { 2, 0, 1 } }, { ActivationKind::Sigmoid }) } });
    b.addOp({ "t5", OpKind::Transpose, { { big } }, { layer(Transpose { { 4, 2, 0, 3, 1 } }) } });
    expectMatchesReference(std::move(b).finish());
}

TEST(CudaTensorOps, NegativeStepSliceHandComputed)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    GraphBuilder b("slice_hand", 3);
    const auto x = b.addInput("x", Shape { 10 });
    b.addOp({ "rev", OpKind::Slice, { { x } }, { layer(Slice { { -2 }, { -100 }, { 0 }, { -3 } }) } });
    const auto out = runOnGpu(std::move(b).finish(), { { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 } });
    EXPECT_EQ(out.at(0), (std::vector<float> { 8, 5, 2 }));
}

TEST(CudaTensorOps, PadsInEveryMode)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
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
    pad("reflect_long", m, Pad { { 2, 4, 2, 4 }, PadMode::Reflect, 0.0F }, { ActivationKind::Tanh });
    pad("edge", x, Pad { { 1, 0, 2, 1, 3, 0 }, PadMode::Edge, 0.0F });
    pad("reflect_size1", one, Pad { { 1, 0, 1, 0 }, PadMode::Reflect, 0.0F });
    expectMatchesReference(std::move(b).finish());
}

TEST(CudaTensorOps, ReducesOverSeveralAxes)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    GraphBuilder b("reduce", 3);
    const auto x = b.addInput("x", Shape { 2, 3, 4, 5 });
    const auto t = b.addInput("t", Shape { 3, 1, 5 });
    auto reduce = [&](const char* name, TensorId in, Reduce r, Activation act = {}) {
        b.addOp({ name, OpKind::Reduce, { { in } }, { layer(std::move(r), act) } });
    };
    reduce("mean_hw", x, Reduce { ReduceKind::Mean, { 2, 3 }, true });
    reduce("sum_nc_drop", x, Reduce { ReduceKind::Sum, { 0, -3 }, false }, Activation::relu());
    reduce("max_all", x, Reduce { ReduceKind::Max, {}, false });
    reduce("sum_unit_axis", t, Reduce { ReduceKind::Sum, { 1 }, false });
    reduce("max_rank3", t, Reduce { ReduceKind::Max, { 0, 2 }, true }, { ActivationKind::Sigmoid });
    expectMatchesReference(std::move(b).finish());
}

// Few outputs over long sums take the block-per-output kernel.
TEST(CudaTensorOps, LongReductionsMatchReference)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    GraphBuilder b("reduce_long", 3);
    const auto x = b.addInput("x", Shape { 2, 3, 32, 33 });
    auto reduce = [&](const char* name, Reduce r, Activation act = {}) {
        b.addOp({ name, OpKind::Reduce, { { x } }, { layer(std::move(r), act) } });
    };
    reduce("mean_hw", Reduce { ReduceKind::Mean, { 2, 3 }, true });
    reduce("max_all", Reduce { ReduceKind::Max, {}, false }, Activation::relu());
    reduce("sum_nhw", Reduce { ReduceKind::Sum, { 0, 2, 3 }, false }); // reduced axes not contiguous
    expectMatchesReference(std::move(b).finish());
}

// TopK's selection passes against the CPU executor's sort, on data with ties (the lower index
// first among equal values), values and indices, largest and smallest, every axis.
TEST(CudaTensorOps, TopKMatchesTheCpuExecutorWithTies)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    GraphBuilder b("topk", 3);
    const auto x = b.addInput("x", Shape { 2, 5, 3 });
    auto top
        = [&](const char* name, std::int64_t axis, std::int64_t k, bool largest, bool indices, Activation act = {}) {
              Reduce r { ReduceKind::TopK, { axis }, true };
              r.k = k;
              r.largest = largest;
              r.indices = indices;
              b.addOp({ name, OpKind::Reduce, { { x } }, { layer(std::move(r), act) } });
          };
    top("values_c", 1, 3, true, false);
    top("indices_c", 1, 5, true, true);
    top("smallest_w", -1, 2, false, false, Activation::relu());
    top("indices_n", 0, 2, false, true);
    const Graph g = std::move(b).finish();
    std::vector<float> in(30);
    for (std::size_t i = 0; i < in.size(); ++i)
        in[i] = static_cast<float>((i * 7 + i / 4) % 5) - 2.0F;
    const auto want = cpu::CpuExecutor(g, compileSchedule(g, sequentialSchedule(g))).run({ in });
    EXPECT_EQ(runOnGpu(g, { in }), want);
}

TEST(CudaTensorOps, StandaloneBatchNormAtRanksTwoToSix)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
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
        expectMatchesReference(std::move(b).finish());
    }
}

// The new kinds chained in one graph with views and arena reuse, at batch 1 and 2.
TEST(CudaTensorOps, ChainsReuseTheArenaSafely)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    for (std::int64_t batch : { 1, 2 }) {
        GraphBuilder b("chain_b" + std::to_string(batch), 3);
        const auto x = b.addInput("x", Shape { batch, 4, 6 });
        const auto t = b.addOp({ "t", OpKind::Transpose, { { x } }, { layer(Transpose { { 0, 2, 1 } }) } });
        const auto s = b.addOp({ "s", OpKind::Slice, { { t } }, { layer(Slice { { -1 }, { -7 }, { 1 }, { -1 } }) } });
        const auto mm = b.addOp({ "mm", OpKind::MatMul, { { s }, { x } }, { layer(MatMul {}) } });
        const auto r = b.addOp({ "r", OpKind::Reshape, { { mm } }, { layer(Reshape { { 0, 36 } }) } });
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
