// CUDA kernels that work on dense rows of transformer layers: LayerNorm / RMS norm (one block per
// row, float accumulation) and Gather (embedding lookups and constant-index gathers copy whole
// rows). Launchers as in cuda_kernels.h: one kernel on `stream`, capturable, returning the
// launch's error. Descriptions come from tensor_op_geometry.h.
#pragma once

#include "exec/cuda/cuda_kernels.h"
#include "exec/cuda/tensor_kernel_params.h"

namespace opsched::gpu::kernels {

// out = act(normalised in * scale + bias) row by row (RowNorm); scale and bias may be null when
// their counts are 0; in == out is allowed.
cudaError_t rowNorm(
    cudaStream_t stream, const float* in, float* out, const float* scale, const float* bias, const RowNorm& p, Act act);

// out = act(data gathered as `g` says); an out-of-range id is reported through g.error.
cudaError_t gatherRows(cudaStream_t stream, const float* data, float* out, const GatherRows& g, Act act);
// out = act(data gathered element by element as `g` says); out-of-range ids as in gatherRows.
cudaError_t gatherElements(cudaStream_t stream, const float* data, float* out, const GatherElements& g, Act act);

} // namespace opsched::gpu::kernels
