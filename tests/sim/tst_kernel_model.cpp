// The kernels the simulator sees for transformer layers: GEMMs tiled over the output (split-K
// when tiles are few, GEMV-like with few rows), softmax and layer norm a warp or block per row,
// element-wise kernels 4 elements a thread; memory-bound below ~8 FLOP/byte. One op per case.
#include "model/model_ref.h"
#include "sim/kernel_model.h"
#include "sim/simulator.h"
#include "zoo/transformer_blocks.h"

#include <gtest/gtest.h>

#include <functional>

using namespace opsched;

namespace {

struct KernelCase {
    const char* name;
    Shape input;
    std::function<void(zoo::NetBuilder&, TensorId)> build; // adds the op under test, last
    double warps;
    bool memoryBound;
};

KernelDesc kernelOfLastOp(const KernelCase& c)
{
    zoo::NetBuilder b("kernel", 1);
    c.build(b, b.input("x", c.input));
    const Graph g = std::move(b).finish();
    const auto kernels = kernelsOf(g, { OpId(g.opCount() - 1) });
    EXPECT_EQ(kernels.size(), 1U) << c.name;
    return kernels.empty() ? KernelDesc {} : kernels.front();
}

// Self-attention's scores or context: two activations of [B, H, S, Dh] shape.
void batched(zoo::NetBuilder& b, TensorId x, std::vector<std::int64_t> perm)
{
    const auto y = b.op("other", OpKind::Transpose, { { x } }, { zoo::layerOf(Transpose { std::move(perm) }) });
    b.op("bmm", OpKind::MatMul, { { x }, { y } }, { zoo::layerOf(MatMul {}) });
}

const KernelCase kCases[] = {
    // [128 x 768] x [768 x 768]: 2 x 12 tiles, split-K 3 -> 4 * 24 * 3 warps; 48 FLOP/byte.
    { "projection", { 1, 128, 768 }, [](auto& b, auto x) { zoo::linear(b, "q", x, 768, false); }, 288, false },
    // With a bias (added in the epilogue): the same GEMM.
    { "projection_bias", { 1, 128, 768 }, [](auto& b, auto x) { zoo::linear(b, "q", x, 768, true); }, 288, false },
    // Batch folds into rows when the right operand is a weight: [1024 x 768] x [768 x 3072],
    // 16 x 48 tiles, no split-K.
    { "ffn_batch8", { 8, 128, 768 },
        [](auto& b, auto x) { zoo::linear(b, "fc1", x, 3072, true, { ActivationKind::Gelu }); }, 3072, false },
    // Scores: 12 heads of [128 x 64] x [64 x 128]: 12 x 2 x 2 tiles, K 64 too short to split.
    { "scores", { 1, 12, 128, 64 },
        [](auto& b, auto x) {
            batched(b, x, { 0, 1, 3, 2 });
        },
        192, false },
    // Context at seq 512: 12 x [512 x 512] x [512 x 64] (probabilities times V): 12 x 8 x 1
    // tiles, enough not to split K.
    { "context_seq512", { 1, 12, 512, 64 },
        [](auto& b, auto v) {
            const auto kt = b.op("kt", OpKind::Transpose, { { v } }, { zoo::layerOf(Transpose { { 0, 1, 3, 2 } }) });
            const auto probs = b.op("scores", OpKind::MatMul, { { v }, { kt } }, { zoo::layerOf(MatMul {}) });
            b.op("context", OpKind::MatMul, { { probs }, { v } }, { zoo::layerOf(MatMul {}) });
        },
        4 * 96, false },
    // A weight on the right folds the batch into rows: [6144 x 512] x [512 x 64], 96 x 1 tiles.
    { "rows_fold", { 1, 12, 512, 512 }, [](auto& b, auto x) { zoo::linear(b, "w", x, 64, false); }, 4 * 96, false },
    // A fully connected layer at batch 1 is GEMV-like: a warp per 4 outputs, and memory-bound.
    { "gemv", { 1, 768 }, [](auto& b, auto x) { b.fullyConnected("fc", { { x } }, 1000); }, 250, true },
    // Softmax over 128 keys: a warp per row, 12 * 128 rows.
    { "softmax", { 1, 12, 128, 128 },
        [](auto& b, auto x) { b.op("sm", OpKind::Softmax, { { x } }, { zoo::layerOf(Softmax { 3 }) }); }, 1536, true },
    // Rows of 4096: a block of 4 warps per row.
    { "softmax_long", { 1, 1, 4, 4096 },
        [](auto& b, auto x) { b.op("sm", OpKind::Softmax, { { x } }, { zoo::layerOf(Softmax { 3 }) }); }, 16, true },
    { "layernorm", { 1, 128, 768 }, [](auto& b, auto x) { zoo::layerNorm(b, "ln", x, 1e-5F); }, 128, true },
    { "rmsnorm_2048", { 2, 16, 2048 }, [](auto& b, auto x) { zoo::layerNorm(b, "ln", x, 1e-6F, true); }, 64, true },
    // Element-wise: GELU, a residual add, a transpose, 4 elements a thread.
    { "gelu", { 1, 128, 3072 },
        [](auto& b, auto x) {
            b.op("g", OpKind::Gelu, { { x } }, { zoo::layerOf(Eltwise { { ActivationKind::Gelu } }) });
        },
        3072, true },
    { "residual", { 1, 128, 768 }, [](auto& b, auto x) { zoo::residualAdd(b, "add", x, x); }, 768, true },
    { "transpose", { 1, 128, 12, 64 },
        [](auto& b, auto x) {
            b.op("t", OpKind::Transpose, { { x } }, { zoo::layerOf(Transpose { { 0, 2, 3, 1 } }) });
        },
        768, true },
    // Convolutions are modelled as before: [196 x 64] output tiles 4 x 1, K = 576 split 2 ways.
    { "conv3x3", { 1, 64, 14, 14 }, [](auto& b, auto x) { b.conv("c", { { x } }, 64, 3, 1, 1); }, 32, false },
};

class TransformerKernels : public ::testing::TestWithParam<KernelCase> { };

TEST_P(TransformerKernels, WarpsAndMemoryBoundness)
{
    const KernelCase& c = GetParam();
    const KernelDesc k = kernelOfLastOp(c);
    EXPECT_DOUBLE_EQ(k.warps, c.warps) << c.name;
    EXPECT_EQ(k.memoryBound, c.memoryBound) << c.name << ": " << k.flops / k.bytes << " FLOP/byte";
    EXPECT_GT(k.bytes, 0.0) << c.name;
}

INSTANTIATE_TEST_SUITE_P(Cases, TransformerKernels, ::testing::ValuesIn(kCases),
    [](const auto& tested) { return std::string(tested.param.name); });

TEST(TransformerKernels, ViewsLaunchNothing)
{
    const Graph g = loadModel("zoo:bert?layers=1");
    for (const char* view : { "l0.attn.q.heads", "l0.attn.context.merge" })
        EXPECT_TRUE(kernelsOf(g, { *g.findOp(view) }).empty()) << view;
    EXPECT_EQ(kernelsOf(g, { *g.findOp("l0.attn.q.t") }).size(), 1U);
}

TEST(TransformerKernels, MergedProjectionsAreOneWiderGemm)
{
    // Q, K and V merged: [128 x 768] x [768 x 2304], 2 x 36 tiles -- enough not to split K.
    const Graph g = loadModel("zoo:bert?layers=1");
    const std::vector<OpId> qkv { *g.findOp("l0.attn.q"), *g.findOp("l0.attn.k"), *g.findOp("l0.attn.v") };
    const auto merged = kernelsOf(g, qkv);
    ASSERT_EQ(merged.size(), 1U);
    const auto q = kernelsOf(g, { qkv.front() }).front();
    EXPECT_DOUBLE_EQ(merged.front().warps, 4.0 * 2 * 36);
    EXPECT_DOUBLE_EQ(merged.front().flops, 3.0 * q.flops);
    // The input is read once, not three times.
    const double input = 128.0 * 768 * 4;
    EXPECT_DOUBLE_EQ(merged.front().bytes, 3.0 * q.bytes - 2.0 * input);
    EXPECT_FALSE(merged.front().memoryBound);
}

TEST(TransformerKernels, BertSpendsMostTimeInGemms)
{
    // At batch 1, seq 128 on an A100 the GEMMs dominate, and a Q projection leaves room for K and V
    // beside it (what inter-operator schedules exploit).
    const Graph g = loadModel("zoo:bert");
    const SimDevice& d = findSimDevice("sim:a100");
    double gemm = 0, total = 0;
    for (const auto& op : g.ops())
        for (const auto& k : kernelsOf(g, { op.id })) {
            const double t = soloSeconds(k, d);
            total += t;
            if (op.kind == OpKind::MatMul)
                gemm += t;
        }
    EXPECT_GT(gemm, 0.5 * total);
    const auto q = kernelsOf(g, { *g.findOp("l0.attn.q") }).front();
    EXPECT_LT(3.0 * demandedLanes(q, d), 1.01 * d.lanes());
}

} // namespace

// A recurrence is a chain of small kernels, one per step (two for a GRU whose reset gate
// multiplies the state before its product), together doing the layer's work.
TEST(RecurrentKernels, OneKernelPerStep)
{
    for (const auto cell : { RecurrentCell::Lstm, RecurrentCell::Gru, RecurrentCell::Rnn }) {
        for (const bool lbr : { false, true }) {
            Recurrent r;
            r.cell = cell;
            r.hidden = 32;
            r.linearBeforeReset = lbr && cell == RecurrentCell::Gru;
            const std::int64_t steps = 10, batch = 2, gh = r.gates() * r.hidden;
            zoo::NetBuilder b("recurrent", 1);
            const TensorId x = b.input("x", Shape { steps, batch, gh });
            std::vector<TensorId> weights { b.weight("R", Shape { r.hidden, gh },
                WeightData::stored(std::vector<float>(static_cast<std::size_t>(r.hidden * gh), 0.01F))) };
            if (r.linearBeforeReset)
                weights.push_back(b.weight("Rbh", Shape { r.hidden },
                    WeightData::stored(std::vector<float>(static_cast<std::size_t>(r.hidden), 0.0F))));
            b.op("rec", OpKind::Recurrent, { { x } }, { zoo::layerOf(r, {}, weights) });
            const Graph g = std::move(b).finish();
            const Op& op = g.op(OpId(0));
            EXPECT_EQ(op.output.valid() ? g.tensor(op.output).shape : Shape {}, (Shape { steps, batch, r.hidden }));
            const auto kernels = kernelsOf(g, { OpId(0) });
            const bool twoPerStep = cell == RecurrentCell::Gru && !r.linearBeforeReset;
            ASSERT_EQ(kernels.size(), static_cast<std::size_t>(steps * (twoPerStep ? 2 : 1))) << toString(cell);
            double flops = 0;
            for (const auto& k : kernels) {
                flops += k.flops;
                EXPECT_EQ(k.warps, 1.0); // 64 state values: one warp's worth of threads
            }
            EXPECT_NEAR(flops, op.cost.flops, 1e-6 * op.cost.flops);
            // h times R^T for every step and row, at least.
            EXPECT_GE(op.cost.flops, 2.0 * static_cast<double>(steps * batch * gh * r.hidden));
        }
    }
}
