// The row-major -> column-major mapping of the cuBLAS GEMMs, proven without a GPU: the mapped call
// is interpreted on the host exactly as cuBLAS defines it (column-major, op() per operand, leading
// dimensions, batch strides) and compared with a naive row-major GEMM.
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

// cublasGemmStridedBatchedEx's definition with alpha 1, beta 0, on host arrays.
void interpretColumnMajor(const ColumnMajorGemm& c, const float* first, const float* second, float* out)
{
    auto element = [](const float* x, bool transposed, std::int64_t ld, std::int64_t row, std::int64_t col) {
        return transposed ? x[col + row * ld] : x[row + col * ld];
    };
    for (std::int64_t b = 0; b < c.batch; ++b)
        for (std::int64_t i = 0; i < c.m; ++i)
            for (std::int64_t j = 0; j < c.n; ++j) {
                double acc = 0;
                for (std::int64_t p = 0; p < c.k; ++p)
                    acc += static_cast<double>(element(first + b * c.strideFirst, c.transposeFirst, c.ldFirst, i, p)) *
                           element(second + b * c.strideSecond, c.transposeSecond, c.ldSecond, p, j);
                out[b * c.strideC + i + j * c.ldc] = static_cast<float>(acc);
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
    interpretColumnMajor(c, b.data(), a.data(), got.data());
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        ASSERT_NEAR(got[i], expected[i], 1e-5) << "element " << i << " of m=" << g.m << " n=" << g.n << " k=" << g.k;
}

} // namespace

TEST(GemmMapping, GemmLayerWeightsAreOutByIn)
{
    for (auto [n, k, o] : {std::array<std::int64_t, 3>{1, 7, 5}, {4, 3, 9}, {3, 16, 1}, {5, 1, 2}}) {
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

TEST(GemmMapping, BatchedMatMulFromGeometryWithBroadcast)
{
    // [2, 3, 4] x [4, 6]: the right operand is broadcast over the batch (stride 0).
    const auto geometry = matMulGeometry({2, 3, 4}, {4, 6}, {2, 3, 6});
    const auto g = matMulProblem(geometry);
    ASSERT_TRUE(g.has_value());
    EXPECT_EQ(g->batch, 2);
    EXPECT_EQ(g->strideB, 0);
    EXPECT_EQ(g->strideA, 12);
    EXPECT_EQ(g->strideC, 18);
    expectMappingMatches(*g);

    // [1, 3, 4] x [5, 4, 2]: the left one broadcast.
    const auto h = matMulProblem(matMulGeometry({1, 3, 4}, {5, 4, 2}, {5, 3, 2}));
    ASSERT_TRUE(h.has_value());
    EXPECT_EQ(h->strideA, 0);
    expectMappingMatches(*h);

    // [2, 3, 2, 4] x [2, 3, 4, 5]: two batch axes collapse into one of 6.
    const auto both = matMulProblem(matMulGeometry({2, 3, 2, 4}, {2, 3, 4, 5}, {2, 3, 2, 5}));
    ASSERT_TRUE(both.has_value());
    EXPECT_EQ(both->batch, 6);
    expectMappingMatches(*both);
}

TEST(GemmMapping, BroadcastOverTwoAxesIsLeftToTheOwnKernel)
{
    // [2, 1, 3, 4] x [1, 5, 4, 2]: the batch walks two axes with different broadcasts; no single stride.
    EXPECT_FALSE(matMulProblem(matMulGeometry({2, 1, 3, 4}, {1, 5, 4, 2}, {2, 5, 3, 2})).has_value());
}

TEST(GemmMapping, SizesPastIntAreRefused)
{
    EXPECT_TRUE(fitsCublasInt(toColumnMajor(gemmLayerProblem(8, 1024, 1000))));
    EXPECT_FALSE(fitsCublasInt(toColumnMajor(gemmLayerProblem(8, std::int64_t{1} << 32, 10))));
}
