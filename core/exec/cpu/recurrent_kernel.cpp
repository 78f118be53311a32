#include "exec/cpu/recurrent_kernel.h"

#include "util/error.h"

#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>

namespace opsched::cpu {
namespace {

// Below this many multiply-adds a product is a plain loop: oneDNN's sgemm costs a few
// microseconds to dispatch, more than a 32-wide LSTM step's whole product.
constexpr std::int64_t kLoopProductBelow = 1 << 15;

// The hot loops are compiled for AVX-512, AVX2 and the baseline, picked at load time (the build
// targets baseline x86-64, where they would run 4 floats at a time). A 32-wide LSTM step is ~4k
// multiply-adds and 160 exponentials: at one libm call per exponential the functions, not the
// product, took most of a step.
#define OPSCHED_VECTOR_CLONES [[gnu::target_clones("avx512f", "avx2", "default")]]

// C[m, :] += A[m, :] B for m < rows: A is rows x k (row stride lda), B is k x n (row stride ldb),
// C n wide (row stride ldc). The loop walks B's rows contiguously (axpy form), which vectorises
// without reassociating sums.
OPSCHED_VECTOR_CLONES void productLoop(const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float* c,
    std::int64_t ldc, std::int64_t rows, std::int64_t k, std::int64_t n)
{
    for (std::int64_t m = 0; m < rows; ++m) {
        float* cRow = c + m * ldc;
        for (std::int64_t kk = 0; kk < k; ++kk) {
            const float av = a[m * lda + kk];
            const float* bRow = b + kk * ldb;
#pragma omp simd
            for (std::int64_t j = 0; j < n; ++j)
                cRow[j] += av * bRow[j];
        }
    }
}

void accumulateProduct(const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float* c, std::int64_t ldc,
    std::int64_t rows, std::int64_t k, std::int64_t n)
{
    if (rows * k * n >= kLoopProductBelow) {
        const dnnl_status_t s = dnnl_sgemm('N', 'N', rows, n, k, 1.0F, a, lda, b, ldb, 1.0F, c, ldc);
        if (s != dnnl_success)
            throw Error("a recurrent layer's product failed in oneDNN's sgemm (status " + std::to_string(s) + ")");
        return;
    }
    productLoop(a, lda, b, ldb, c, ldc, rows, k, n);
}

// exp(x) for x in [-87, 88] (clamped there) to about 2 ulp, branch-free so that a loop of it
// vectorises: 2^n times a degree-7 polynomial of the remainder (Cody and Waite's reduction with
// the coefficients of the Cephes library's expf).
[[gnu::always_inline]] inline float expApprox(float x)
{
    x = std::fmin(std::fmax(x, -87.0F), 88.0F);
    constexpr float kRound = 12582912.0F; // 1.5 * 2^23: adding it rounds to an integer
    const float n = (x * 1.44269504088896341F + kRound) - kRound;
    const float r = (x - n * 0.693359375F) - n * -2.12194440e-4F;
    float p = 1.9875691500E-4F;
    p = p * r + 1.3981999507E-3F;
    p = p * r + 8.3334519073E-3F;
    p = p * r + 4.1665795894E-2F;
    p = p * r + 1.6666665459E-1F;
    p = p * r + 5.0000001201E-1F;
    p = p * r * r + r + 1.0F;
    const auto bits = static_cast<std::uint32_t>(static_cast<std::int32_t>(n) + 127) << 23;
    return p * std::bit_cast<float>(bits);
}

OPSCHED_VECTOR_CLONES void sigmoidRow(float* v, std::int64_t n, float clip)
{
    const float lo = clip > 0.0F ? -clip : -INFINITY, hi = clip > 0.0F ? clip : INFINITY;
#pragma omp simd
    for (std::int64_t i = 0; i < n; ++i)
        v[i] = 1.0F / (1.0F + expApprox(-std::fmin(std::fmax(v[i], lo), hi)));
}

// tanh x = 1 - 2 / (1 + e^2x): absolute error ~1e-7 near 0, where the quotient cancels.
OPSCHED_VECTOR_CLONES void tanhRow(float* v, std::int64_t n, float clip)
{
    const float lo = clip > 0.0F ? -clip : -INFINITY, hi = clip > 0.0F ? clip : INFINITY;
#pragma omp simd
    for (std::int64_t i = 0; i < n; ++i)
        v[i] = 1.0F - 2.0F / (1.0F + expApprox(2.0F * std::fmin(std::fmax(v[i], lo), hi)));
}

// `fn` over values[0, n) in place, the input clipped to [-clip, clip] first when clip > 0. One
// switch per row, so each loop is a single function.
void applyFunction(const Activation& fn, float clip, float* v, std::int64_t n)
{
    if (fn.kind == ActivationKind::Sigmoid)
        return sigmoidRow(v, n, clip);
    if (fn.kind == ActivationKind::Tanh)
        return tanhRow(v, n, clip);
    if (clip > 0.0F)
        for (std::int64_t i = 0; i < n; ++i)
            v[i] = std::clamp(v[i], -clip, clip);
    const float alpha = fn.alpha, beta = fn.beta;
    switch (fn.kind) {
    case ActivationKind::Relu:
        for (std::int64_t i = 0; i < n; ++i)
            v[i] = std::max(v[i], 0.0F);
        return;
    case ActivationKind::LeakyRelu:
        for (std::int64_t i = 0; i < n; ++i)
            v[i] = v[i] < 0.0F ? alpha * v[i] : v[i];
        return;
    case ActivationKind::ThresholdedRelu:
        for (std::int64_t i = 0; i < n; ++i)
            v[i] = v[i] > alpha ? v[i] : 0.0F;
        return;
    case ActivationKind::HardSigmoid:
        for (std::int64_t i = 0; i < n; ++i)
            v[i] = std::clamp(alpha * v[i] + beta, 0.0F, 1.0F);
        return;
    case ActivationKind::Elu:
        for (std::int64_t i = 0; i < n; ++i)
            v[i] = v[i] < 0.0F ? alpha * std::expm1(v[i]) : v[i];
        return;
    case ActivationKind::Softsign:
        for (std::int64_t i = 0; i < n; ++i)
            v[i] = v[i] / (1.0F + std::abs(v[i]));
        return;
    case ActivationKind::Softplus:
        for (std::int64_t i = 0; i < n; ++i)
            v[i] = v[i] > 20.0F ? v[i] : std::log1p(std::exp(v[i]));
        return;
    default:
        throw Error(std::string("a recurrent layer cannot apply '") + toString(fn.kind) + "'");
    }
}

// The sequence's layout: where step t of batch row b starts, in rows of `width` values.
struct SequenceLayout {
    std::int64_t steps, batch;
    bool batchFirst;
    std::int64_t row(std::int64_t t, std::int64_t b) const { return batchFirst ? b * steps + t : t * batch + b; }
    // Distance between batch rows of one step, in rows.
    std::int64_t batchStride() const { return batchFirst ? steps : 1; }
};

} // namespace

bool isRecurrentFunction(const Activation& fn)
{
    switch (fn.kind) {
    case ActivationKind::Sigmoid:
    case ActivationKind::Tanh:
    case ActivationKind::Relu:
    case ActivationKind::LeakyRelu:
    case ActivationKind::ThresholdedRelu:
    case ActivationKind::HardSigmoid:
    case ActivationKind::Elu:
    case ActivationKind::Softsign:
    case ActivationKind::Softplus:
        return true;
    default:
        return false;
    }
}

void runRecurrent(const Recurrent& r, const RecurrentData& d, std::vector<float>& scratch)
{
    const std::int64_t h = r.hidden, gh = r.gates() * h, batch = d.batch;
    const SequenceLayout seq { d.steps, batch, r.batchFirst };
    // gates [B, gates x H], then c [B, H] (LSTM) or r * h / h R_h [B, H] (GRU).
    scratch.resize(static_cast<std::size_t>(batch * (gh + h)));
    float* gates = scratch.data();
    float* extra = gates + batch * gh;
    const Activation& f = r.functions[0];
    const Activation& g = r.functions[1];
    const Activation& hf = r.functions[2];
    if (r.cell == RecurrentCell::Lstm) {
        if (d.initialC)
            std::copy(d.initialC, d.initialC + batch * h, extra);
        else
            std::fill(extra, extra + batch * h, 0.0F);
    }
    const float* prevH = d.initialH; // null: zero
    std::int64_t prevStride = h;
    for (std::int64_t k = 0; k < d.steps; ++k) {
        const std::int64_t t = r.reverse ? d.steps - 1 - k : k;
        for (std::int64_t b = 0; b < batch; ++b) {
            const float* x = d.projection + seq.row(t, b) * gh;
            std::copy(x, x + gh, gates + b * gh);
        }
        float* y0 = d.out + seq.row(t, 0) * h;
        const std::int64_t yStride = seq.batchStride() * h;
        switch (r.cell) {
        case RecurrentCell::Rnn:
            if (prevH)
                accumulateProduct(prevH, prevStride, d.recurrence, gh, gates, gh, batch, h, h);
            for (std::int64_t b = 0; b < batch; ++b) {
                float* row = gates + b * gh;
                applyFunction(f, r.clip, row, h);
                std::copy(row, row + h, y0 + b * yStride);
            }
            break;
        case RecurrentCell::Lstm: {
            if (prevH)
                accumulateProduct(prevH, prevStride, d.recurrence, gh, gates, gh, batch, h, gh);
            const float* p = d.peepholes;
            for (std::int64_t b = 0; b < batch; ++b) {
                float* row = gates + b * gh;
                float* in = row; // ONNX's order: i, o, f, c
                float* out = row + h;
                float* forget = row + 2 * h;
                float* cand = row + 3 * h;
                float* c = extra + b * h;
                if (p)
                    for (std::int64_t j = 0; j < h; ++j) {
                        in[j] += p[j] * c[j];
                        forget[j] += p[2 * h + j] * c[j];
                    }
                applyFunction(f, r.clip, in, h);
                if (r.inputForget)
                    for (std::int64_t j = 0; j < h; ++j)
                        forget[j] = 1.0F - in[j];
                else
                    applyFunction(f, r.clip, forget, h);
                applyFunction(g, r.clip, cand, h);
                for (std::int64_t j = 0; j < h; ++j)
                    c[j] = forget[j] * c[j] + in[j] * cand[j];
                if (p)
                    for (std::int64_t j = 0; j < h; ++j)
                        out[j] += p[h + j] * c[j];
                applyFunction(f, r.clip, out, h);
                float* y = y0 + b * yStride;
                std::copy(c, c + h, y);
                applyFunction(hf, 0.0F, y, h); // h(c): the cell state is not clipped
                for (std::int64_t j = 0; j < h; ++j)
                    y[j] *= out[j];
            }
            break;
        }
        case RecurrentCell::Gru: {
            // z and r first: the hidden gate's product needs r (unless linear before reset).
            if (prevH)
                accumulateProduct(prevH, prevStride, d.recurrence, gh, gates, gh, batch, h, 2 * h);
            for (std::int64_t b = 0; b < batch; ++b)
                applyFunction(f, r.clip, gates + b * gh, 2 * h);
            float* hidden = extra; // [B, H]: r * h, or h R_h + Rb_h
            if (r.linearBeforeReset) {
                for (std::int64_t b = 0; b < batch; ++b)
                    for (std::int64_t j = 0; j < h; ++j)
                        hidden[b * h + j] = d.hiddenBias ? d.hiddenBias[j] : 0.0F;
                if (prevH)
                    accumulateProduct(prevH, prevStride, d.recurrence + 2 * h, gh, hidden, h, batch, h, h);
                for (std::int64_t b = 0; b < batch; ++b) {
                    float* row = gates + b * gh;
                    for (std::int64_t j = 0; j < h; ++j)
                        row[2 * h + j] += row[h + j] * hidden[b * h + j];
                }
            } else if (prevH) {
                for (std::int64_t b = 0; b < batch; ++b)
                    for (std::int64_t j = 0; j < h; ++j)
                        hidden[b * h + j] = gates[b * gh + h + j] * prevH[b * prevStride + j];
                accumulateProduct(hidden, h, d.recurrence + 2 * h, gh, gates + 2 * h, gh, batch, h, h);
            }
            for (std::int64_t b = 0; b < batch; ++b) {
                float* row = gates + b * gh;
                float* n = row + 2 * h;
                applyFunction(g, r.clip, n, h);
                float* y = y0 + b * yStride;
                const float* z = row;
                for (std::int64_t j = 0; j < h; ++j) {
                    const float before = prevH ? prevH[b * prevStride + j] : 0.0F;
                    y[j] = n[j] + z[j] * (before - n[j]);
                }
            }
            break;
        }
        }
        prevH = y0;
        prevStride = yStride;
    }
}

} // namespace opsched::cpu
