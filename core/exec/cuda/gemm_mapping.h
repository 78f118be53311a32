// Row-major GEMMs (what the graph holds) expressed as the column-major calls cuBLAS takes. A
// row-major matrix is the column-major view of its transpose, so C = A * B (row-major) is computed
// as C^T = B^T * A^T (column-major): B goes first, A second, and nothing is copied. Pure C++ so
// the mapping is tested on machines without a GPU (tst_gpu_gemm_mapping interprets the call).
#pragma once

#include "exec/cuda/tensor_kernel_params.h"

#include <cstdint>
#include <vector>

namespace opsched::gpu {

// For each batch index b < batch: C_b[m, n] = A_b[m, k] * B_b[k, n], all dense row-major, where
// X_b starts at X + offsetX + b * strideX (a stride 0 broadcasts that operand). With bTransposed,
// B is stored as [n, k] (a Gemm layer's weights [out, in]) and used transposed.
struct RowMajorGemm {
    std::int64_t m = 0, n = 0, k = 0;
    bool bTransposed = false;
    std::int64_t batch = 1;
    std::int64_t strideA = 0, strideB = 0, strideC = 0;
    std::int64_t offsetA = 0, offsetB = 0, offsetC = 0; // elements; the caller adds them to the pointers
};

// One cublasGemmStridedBatchedEx call: C_b (m x n, leading dimension ldc) = op(first_b) *
// op(second_b), column-major, where `first` is the row-major B and `second` the row-major A.
struct ColumnMajorGemm {
    bool transposeFirst = false, transposeSecond = false;
    std::int64_t m = 0, n = 0, k = 0;
    std::int64_t ldFirst = 1, ldSecond = 1, ldc = 1;
    std::int64_t strideFirst = 0, strideSecond = 0, strideC = 0;
    std::int64_t batch = 1;
};

ColumnMajorGemm toColumnMajor(const RowMajorGemm& g);

// Whether every size fits the int arguments of cublasGemmStridedBatchedEx (else: own kernels).
bool fitsCublasInt(const ColumnMajorGemm& c);

// A Gemm layer: y[n, o] = x[n, k] * w[o, k]^T (bias and activation follow separately).
RowMajorGemm gemmLayerProblem(std::int64_t n, std::int64_t k, std::int64_t o);

// A MatMul's geometry as cuBLAS calls, each one strided batch:
// - one batch axis (attention's [B, H, S, D] x [B, H, D, S] collapses to one): one call, a
//   broadcast operand with stride 0;
// - the right operand shared by every batch and the left one dense ([B, S, K] x a weight [K, N]):
//   one plain GEMM with the batch folded into m ([B*S, K] x [K, N]);
// - batch axes that broadcast differently ([B, 1, S, D] x [1, H, D, S]): one call per index of
//   the outer batch axes, over the innermost one, as long as that is at most kMaxMatMulCalls.
// Empty when none fits (more calls than that): the own kernel runs it.
inline constexpr std::int64_t kMaxMatMulCalls = 64;
std::vector<RowMajorGemm> matMulProblems(const kernels::BatchedMatMul& g);

} // namespace opsched::gpu
