// Plain C++ kernels for the layers oneDNN 2.6 has no primitive for (embedding lookups, gathers by
// constant indices, Where, Expand, element-wise power and the functions erf, not, nonzero and
// truncate) and for RMS normalisation. Dense row-major float32 data; NumPy broadcasting where
// operands have fewer or size-1 dimensions. Loops of 32k elements and more run on the calling
// thread's OpenMP team (the executor's --threads, or a partition's cores).
#pragma once

#include "exec/cpu/resize_taps.h"
#include "graph/layer.h"

#include <cstdint>
#include <vector>

namespace opsched::cpu {

using Dims = std::vector<std::int64_t>;

// out = table gathered along `axis` by ids (integer-valued floats, negative ones count from the
// end). Throws Error naming the first id that is not an integer in [-n, n).
void embeddingLookup(
    const float* table, const Dims& tableDims, int axis, const float* ids, std::int64_t idCount, float* out);

// out = src gathered element-wise along `axis` (ONNX GatherElements): out has the indices' shape
// and out[i] = src[i with its `axis` coordinate replaced by ids[i]]. Ids as in embeddingLookup.
void gatherElements(const float* src, const Dims& srcDims, int axis, const float* ids, const Dims& idDims, float* out);

// out = src gathered along `axis` by constant indices (already checked against the shape).
void gatherConstant(
    const float* src, const Dims& srcDims, int axis, const std::vector<std::int64_t>& indices, float* out);

// out[i] = a[i'] kind b[i''] over out's dims, a and b broadcast to them: pow (oneDNN 2.6 has none)
// and broadcasts oneDNN only runs in its reference kernel (Swin's [1,64,3,49,49] + [1,64,1,49,49]).
void broadcastBinary(BinaryKind kind, const float* a, const Dims& aDims, const float* b, const Dims& bDims, float* out,
    const Dims& outDims);

// out = cond != 0 ? x : y, all three broadcast to out's dims.
void where(const float* cond, const Dims& condDims, const float* x, const Dims& xDims, const float* y,
    const Dims& yDims, float* out, const Dims& outDims);

// out = src broadcast to out's dims.
void expand(const float* src, const Dims& srcDims, float* out, const Dims& outDims);

// The element-wise functions oneDNN lacks, in place over `count` values.
bool isHostActivation(ActivationKind kind);
void applyHostActivation(const Activation& act, float* data, std::int64_t count);

// The index of the largest (ArgMax) or smallest value along `axis` of dense `in`, as a float;
// the first of equal ones, or the last with selectLast. out is dense with the axis removed.
void argExtreme(const float* in, const Dims& inDims, int axis, bool largest, bool selectLast, float* out);

// The k largest (or smallest) values along `axis` of dense `in`, best first and the lower index
// first among equal ones (ONNX's TopK), or with `indices` their positions as floats. out is dense
// with the axis k long.
void topK(const float* in, const Dims& inDims, int axis, std::int64_t k, bool largest, bool indices, float* out);

// out = `in` reduced over the axes where outDims is 1 and inDims is not (Mean, Sum, Max, Min, Prod,
// L1, L2, SumSquare; not ArgMax/ArgMin), both read and written through their strides (any layout,
// dims of the same rank): the reductions oneDNN 2.6 runs only in its reference kernel (over
// channels, or the last axis of a small tensor). Output elements are shared among the threads (a
// reduction to a handful of values runs on few of them).
void reduceAxes(ReduceKind kind, const float* in, const Dims& inDims, const Dims& inStrides, float* out,
    const Dims& outDims, const Dims& outStrides);

// out[x] = sum over the taps of every axis of the product of their weights times in at their
// indices (resize_taps.h): nearest, linear and cubic resampling in any number of axes. `out` is
// dense row-major in outDims; `in` is read through inStrides (any layout, axes in the same order).
void resizeGather(const float* in, const Dims& inDims, const Dims& inStrides, float* out, const Dims& outDims,
    const std::vector<AxisTaps>& taps);

// y = x / sqrt(mean(x^2) + eps) * scale over rows of `inner` values (T5's RMS norm); also the
// plain layer norm ((x - mean) / sqrt(var + eps) * scale + bias) when `center` is set.
void normaliseRows(const float* x, float* y, std::int64_t rows, std::int64_t inner, float epsilon, const float* scale,
    const float* bias, bool center);

} // namespace opsched::cpu
