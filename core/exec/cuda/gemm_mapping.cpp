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
    for (std::int64_t v : { c.m, c.n, c.k, c.ldFirst, c.ldSecond, c.ldc, c.batch })
        if (v < 0 || v > limit)
            return false;
    return true;
}

RowMajorGemm gemmLayerProblem(std::int64_t n, std::int64_t k, std::int64_t o)
{
    return { .m = n, .n = o, .k = k, .bTransposed = true };
}

std::vector<RowMajorGemm> matMulProblems(const kernels::BatchedMatMul& g)
{
    const int rank = g.batchRank;
    RowMajorGemm p;
    p.m = g.m;
    p.n = g.n;
    p.k = g.k;
    p.batch = rank > 0 ? g.batchDims[rank - 1] : 1;
    p.strideA = rank > 0 ? g.aBatchStrides[rank - 1] : 0;
    p.strideB = rank > 0 ? g.bBatchStrides[rank - 1] : 0;
    p.strideC = g.m * g.n; // the output is dense [batch..., m, n]
    if (rank <= 1) {
        // One weight for every matrix of a dense left operand: rows of one GEMM, not a batch.
        if (p.batch > 1 && p.strideB == 0 && p.strideA == g.m * g.k) {
            p.m *= p.batch;
            p.batch = 1;
            p.strideA = p.strideC = 0;
        }
        return { p };
    }
    // The outer batch axes walked on the host, one call each.
    std::int64_t calls = 1;
    for (int d = 0; d + 1 < rank; ++d)
        calls *= g.batchDims[d];
    if (calls > kMaxMatMulCalls)
        return {};
    std::vector<RowMajorGemm> out;
    for (std::int64_t i = 0; i < calls; ++i) {
        RowMajorGemm call = p;
        std::int64_t rest = i;
        for (int d = rank - 2; d >= 0; --d) {
            const std::int64_t x = rest % g.batchDims[d];
            rest /= g.batchDims[d];
            call.offsetA += x * g.aBatchStrides[d];
            call.offsetB += x * g.bBatchStrides[d];
        }
        call.offsetC = i * p.batch * p.strideC;
        out.push_back(call);
    }
    return out;
}

} // namespace opsched::gpu
