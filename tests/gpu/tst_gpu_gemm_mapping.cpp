// The row-major -> column-major mapping of the cuBLAS GEMMs, proven without a GPU: the mapped call
// is interpreted on the host exactly as cuBLAS defines it (column-major, op() per operand, leading
// dimensions, batch strides, the pointers' offsets) and compared with a naive row-major GEMM, and
// each MatMul shape case's calls (attention, activations x weights, broadcasts) with ONNX MatMul.
#include "cpu/reference_tensor_ops.h"
#include "exec/cuda/gemm_mapping.h"
#include "exec/cuda/tensor_op_geometry.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <vector>

using namespace opsched;
using namespace opsched::gpu;

namespace {

// cublasGemmStridedBatchedEx's definition with alpha 1, beta 0, on host arrays, each operand
// starting at its offset; .at() so a call that reaches past an operand fails the test.
void interpretColumnMajor(const ColumnMajorGemm& c, const std::vector<float>& first, std::int64_t firstOffset,
    const std::vector<float>& second, std::int64_t secondOffset, std::vector<float>& out, std::int64_t outOffset)
{
    auto element = [](const std::vector<float>& x, std::int64_t base, bool transposed, std::int64_t ld,
                       std::int64_t row, std::int64_t col) {
        return x.at(static_cast<std::size_t>(base + (transposed ? col + row * ld : row + col * ld)));
    };
    for (std::int64_t b = 0; b < c.batch; ++b)
        for (std::int64_t i = 0; i < c.m; ++i)
            for (std::int64_t j = 0; j < c.n; ++j) {
                double acc = 0;
                for (std::int64_t p = 0; p < c.k; ++p)
                    acc += static_cast<double>(
                               element(first, firstOffset + b * c.strideFirst, c.transposeFirst, c.ldFirst, i, p))
                        * element(second, secondOffset + b * c.strideSecond, c.transposeSecond, c.ldSecond, p, j);
                out.at(static_cast<std::size_t>(outOffset + b * c.strideC + i + j * c.ldc)) = static_cast<float>(acc);
            }
}

// The reference: C_b = A_b * B_b (or A_b * B_b^T) on dense row-major matrices.
std::vector<float> naiveRowMajor(const RowMajorGemm& g, const std::vector<float>& a, const std::vector<float>& b)
{
    std::vector<float> c(static_cast<std::size_t>(g.batch * g.m * g.n), -1.0F);
    for (std::int64_t bi = 0; bi < g.batch; ++bi)
        for (std::int64_t i = 0; i < g.m; ++i)
            for (std::int64_t j = 0; j < g.n; ++j) {
                double acc = 0;
                for (std::int64_t p = 0; p < g.k; ++p) {
                    const float bv = g.bTransposed ? b[bi * g.strideB + j * g.k + p] : b[bi * g.strideB + p * g.n + j];
                    acc += static_cast<double>(a[bi * g.strideA + i * g.k + p]) * bv;
                }
                c[bi * g.strideC + i * g.n + j] = static_cast<float>(acc);
            }
    return c;
}

std::vector<float> randomValues(std::size_t count, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0F, 1.0F);
    std::vector<float> v(count);
    for (auto& x : v)
        x = dist(rng);
    return v;
}

// Operands sized for their strides (a broadcast operand holds one matrix).
void expectMappingMatches(const RowMajorGemm& g)
{
    const auto aCount = static_cast<std::size_t>((g.strideA == 0 ? 1 : g.batch) * g.m * g.k);
    const auto bCount = static_cast<std::size_t>((g.strideB == 0 ? 1 : g.batch) * g.k * g.n);
    const auto a = randomValues(aCount, 1);
    const auto b = randomValues(bCount, 2);
    const auto expected = naiveRowMajor(g, a, b);
    const ColumnMajorGemm c = toColumnMajor(g);
    std::vector<float> got(expected.size(), -7.0F);
    interpretColumnMajor(c, b, 0, a, 0, got, 0);
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        ASSERT_NEAR(got[i], expected[i], 1e-5) << "element " << i << " of m=" << g.m << " n=" << g.n << " k=" << g.k;
}

} // namespace

TEST(GemmMapping, GemmLayerWeightsAreOutByIn)
{
    for (auto [n, k, o] : { std::array<std::int64_t, 3> { 1, 7, 5 }, { 4, 3, 9 }, { 3, 16, 1 }, { 5, 1, 2 } }) {
        const RowMajorGemm g = gemmLayerProblem(n, k, o);
        EXPECT_TRUE(g.bTransposed);
        expectMappingMatches(g);
        const ColumnMajorGemm c = toColumnMajor(g);
        EXPECT_EQ(c.m, o); // cuBLAS writes y^T: o rows
        EXPECT_EQ(c.n, n);
        EXPECT_TRUE(c.transposeFirst);
        EXPECT_FALSE(c.transposeSecond);
    }
}

TEST(GemmMapping, PlainMatMul)
{
    RowMajorGemm g;
    g.m = 3;
    g.n = 5;
    g.k = 4;
    expectMappingMatches(g);
    const ColumnMajorGemm c = toColumnMajor(g);
    EXPECT_EQ(c.ldFirst, 5);
    EXPECT_EQ(c.ldSecond, 4);
    EXPECT_EQ(c.ldc, 5);
}

namespace {

// Every call of a MatMul's mapping interpreted at its offsets, against the naive ONNX MatMul.
std::vector<RowMajorGemm> expectMatMulCallsMatch(const std::vector<std::int64_t>& aDims,
    const std::vector<std::int64_t>& bDims, const std::vector<std::int64_t>& outDims)
{
    const auto calls = matMulProblems(matMulGeometry(aDims, bDims, outDims));
    EXPECT_FALSE(calls.empty());
    const test::HostTensor a { aDims, randomValues(static_cast<std::size_t>(test::product(aDims)), 3) };
    const test::HostTensor b { bDims, randomValues(static_cast<std::size_t>(test::product(bDims)), 4) };
    const auto want = test::referenceMatMul(a, b, outDims);
    std::vector<float> got(want.data.size(), NAN);
    for (const auto& call : calls)
        interpretColumnMajor(toColumnMajor(call), b.data, call.offsetB, a.data, call.offsetA, got, call.offsetC);
    for (std::size_t i = 0; i < got.size(); ++i)
        EXPECT_NEAR(got[i], want.data[i], 1e-5) << "element " << i; // NaN: an element no call wrote
    return calls;
}

struct MatMulCase {
    const char* name;
    std::vector<std::int64_t> a, b, out;
    std::size_t calls; // cuBLAS calls
    std::int64_t batch; // matrices per call
    std::int64_t m; // rows per matrix (a folded batch shows here)
};

class GemmMappingMatMul : public testing::TestWithParam<MatMulCase> { };

} // namespace

TEST_P(GemmMappingMatMul, CallsMatchTheReference)
{
    const MatMulCase& c = GetParam();
    const auto calls = expectMatMulCallsMatch(c.a, c.b, c.out);
    ASSERT_EQ(calls.size(), c.calls);
    EXPECT_EQ(calls.front().batch, c.batch);
    EXPECT_EQ(calls.front().m, c.m);
}

INSTANTIATE_TEST_SUITE_P(Shapes, GemmMappingMatMul,
    testing::Values(MatMulCase { "plain", { 3, 4 }, { 4, 5 }, { 3, 5 }, 1, 1, 3 },
        MatMulCase { "vector_left", { 4 }, { 4, 5 }, { 5 }, 1, 1, 1 },
        MatMulCase { "vector_right", { 3, 4 }, { 4 }, { 3 }, 1, 1, 3 },
        // Activations x a weight [K, N]: the batch folds into the rows of one GEMM.
        MatMulCase { "activation_by_weight", { 2, 3, 4 }, { 4, 6 }, { 2, 3, 6 }, 1, 1, 6 },
        MatMulCase { "activation4d_by_weight", { 2, 3, 5, 4 }, { 4, 6 }, { 2, 3, 5, 6 }, 1, 1, 30 },
        // A weight on the left is shared too, but the rows do not fold: a batch with stride 0.
        MatMulCase { "weight_by_activation", { 3, 4 }, { 5, 4, 2 }, { 5, 3, 2 }, 1, 5, 3 },
        // Attention: [B, H, S, D] x [B, H, D, S], then [B, H, S, S] x [B, H, S, D].
        MatMulCase { "attention_scores", { 2, 3, 5, 4 }, { 2, 3, 4, 5 }, { 2, 3, 5, 5 }, 1, 6, 5 },
        MatMulCase { "attention_context", { 2, 3, 5, 5 }, { 2, 3, 5, 4 }, { 2, 3, 5, 4 }, 1, 6, 5 },
        // One side shared by the batch but not by the heads: one call per batch index.
        MatMulCase { "shared_across_batch", { 1, 3, 5, 4 }, { 2, 3, 4, 2 }, { 2, 3, 5, 2 }, 2, 3, 5 },
        // Two axes broadcast differently: one call per outer index.
        MatMulCase { "cross_broadcast", { 2, 1, 3, 4 }, { 1, 5, 4, 2 }, { 2, 5, 3, 2 }, 2, 5, 3 },
        MatMulCase { "cross_broadcast_rank5", { 2, 1, 3, 3, 4 }, { 1, 2, 1, 4, 2 }, { 2, 2, 3, 3, 2 }, 4, 3, 3 }),
    [](const testing::TestParamInfo<MatMulCase>& p) { return std::string(p.param.name); });

TEST(GemmMapping, ActivationByWeightIsOneGemmWithoutBatch)
{
    const auto calls = matMulProblems(matMulGeometry({ 4, 7, 8 }, { 8, 3 }, { 4, 7, 3 }));
    ASSERT_EQ(calls.size(), 1U);
    EXPECT_EQ(calls[0].m, 28);
    EXPECT_EQ(calls[0].batch, 1);
    EXPECT_EQ(calls[0].strideB, 0);
}

TEST(GemmMapping, AttentionIsOneStridedBatch)
{
    // BERT-base's scores at batch 2: [2, 12, 128, 64] x [2, 12, 64, 128].
    const auto calls = matMulProblems(matMulGeometry({ 2, 12, 128, 64 }, { 2, 12, 64, 128 }, { 2, 12, 128, 128 }));
    ASSERT_EQ(calls.size(), 1U);
    EXPECT_EQ(calls[0].batch, 24);
    EXPECT_EQ(calls[0].strideA, 128 * 64);
    EXPECT_EQ(calls[0].strideB, 64 * 128);
    EXPECT_EQ(calls[0].strideC, 128 * 128);
    const ColumnMajorGemm c = toColumnMajor(calls[0]);
    EXPECT_EQ(c.strideFirst, 64 * 128); // B goes first
    EXPECT_TRUE(fitsCublasInt(c));
}

TEST(GemmMapping, TooManyOuterBatchesAreLeftToTheOwnKernel)
{
    // 65 outer indices with a different broadcast each: more calls than kMaxMatMulCalls.
    EXPECT_TRUE(matMulProblems(matMulGeometry({ 65, 1, 3, 4 }, { 1, 5, 4, 2 }, { 65, 5, 3, 2 })).empty());
}

TEST(GemmMapping, SizesPastIntAreRefused)
{
    EXPECT_TRUE(fitsCublasInt(toColumnMajor(gemmLayerProblem(8, 1024, 1000))));
    EXPECT_FALSE(fitsCublasInt(toColumnMajor(gemmLayerProblem(8, std::int64_t { 1 } << 32, 10))));
}
