#include "exec/cuda/gemm_mapping.h"

#include <algorithm>
#include <limits>

namespace opsched::gpu {

ColumnMajorGemm toColumnMajor(const RowMajorGemm& g)
{
    ColumnMajorGemm c;
    // C^T (n x m) = B^T (n x k) * A^T (k x m) in column-major terms.
    c.m = g.n;
    c.n = g.m;
    c.k = g.k;
    // Row-major B [k, n] is column-major n x k with leading dimension n: already op(first).
    // Row-major B stored [n, k] is column-major k x n (ld k): transposed to n x k.
    c.transposeFirst = g.bTransposed;
    c.ldFirst = std::max<std::int64_t>(1, g.bTransposed ? g.k : g.n);
    // Row-major A [m, k] is column-major k x m with leading dimension k: already op(second).
    c.transposeSecond = false;
    c.ldSecond = std::max<std::int64_t>(1, g.k);
    // Row-major C [m, n] is column-major n x m with leading dimension n.
    c.ldc = std::max<std::int64_t>(1, g.n);
    c.strideFirst = g.strideB;
    c.strideSecond = g.strideA;
    c.strideC = g.strideC;
    c.batch = g.batch;
    return c;
}

bool fitsCublasInt(const ColumnMajorGemm& c)
{
    constexpr std::int64_t limit = std::numeric_limits<int>::max();
    for (std::int64_t v : {c.m, c.n, c.k, c.ldFirst, c.ldSecond, c.ldc, c.batch})
        if (v < 0 || v > limit)
            return false;
    return true;
}

RowMajorGemm gemmLayerProblem(std::int64_t n, std::int64_t k, std::int64_t o)
{
    RowMajorGemm g;
    g.m = n;
    g.n = o;
    g.k = k;
    g.bTransposed = true;
    return g;
}

std::optional<RowMajorGemm> matMulProblem(const kernels::BatchedMatMul& g)
{
    if (g.batchRank > 1)
        return std::nullopt;
    RowMajorGemm p;
    p.m = g.m;
    p.n = g.n;
    p.k = g.k;
    p.batch = g.batchRank == 1 ? g.batchDims[0] : 1;
    if (p.batch != g.batch)
        return std::nullopt;
    p.strideA = g.batchRank == 1 ? g.aBatchStrides[0] : 0;
    p.strideB = g.batchRank == 1 ? g.bBatchStrides[0] : 0;
    p.strideC = g.m * g.n; // the output is dense [batch, m, n]
    return p;
}

} // namespace opsched::gpu
