// Row-major GEMMs (what the graph holds) expressed as the column-major calls cuBLAS takes. A
// row-major matrix is the column-major view of its transpose, so C = A * B (row-major) is computed
// as C^T = B^T * A^T (column-major): B goes first, A second, and nothing is copied. Pure C++ so
// the mapping is tested on machines without a GPU (tst_gpu_gemm_mapping interprets the call).
#pragma once

#include "exec/cuda/tensor_kernel_params.h"

#include <cstdint>
#include <optional>

namespace opsched::gpu {

// For each batch index b < batch: C_b[m, n] = A_b[m, k] * B_b[k, n], all dense row-major, where
// X_b starts at X + b * strideX (a stride 0 broadcasts that operand). With bTransposed, B is
// stored as [n, k] (a Gemm layer's weights [out, in]) and used transposed.
struct RowMajorGemm {
    std::int64_t m = 0, n = 0, k = 0;
    bool bTransposed = false;
    std::int64_t batch = 1;
    std::int64_t strideA = 0, strideB = 0, strideC = 0;
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

// A MatMul's geometry as one strided batch; nullopt when its batch dimensions do not collapse to
// one (broadcasting over two or more distinct axes), which the own kernel handles.
std::optional<RowMajorGemm> matMulProblem(const kernels::BatchedMatMul& g);

} // namespace opsched::gpu
