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

// The hot loops (recurrent_loops.inc) compiled for AVX-512, AVX2 and the baseline, the one to run
// picked from the CPU and the ISA oneDNN is limited to (ONEDNN_MAX_CPU_ISA), so that a run limited
// to AVX2 is AVX2 throughout. A 32-wide LSTM step is ~4k multiply-adds and 160 exponentials: with
// one libm call per exponential the functions, not the product, took most of a step.
namespace avx512 {
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")
#include "exec/cpu/recurrent_loops.inc"
#pragma GCC pop_options
} // namespace avx512

namespace avx2 {
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#include "exec/cpu/recurrent_loops.inc"
#pragma GCC pop_options
} // namespace avx2

namespace baseline {
#include "exec/cpu/recurrent_loops.inc"
} // namespace baseline

struct Loops {
    void (*product)(const float*, std::int64_t, const float*, std::int64_t, float*, std::int64_t, std::int64_t,
        std::int64_t, std::int64_t);
    void (*sigmoid)(float*, std::int64_t, float);
    void (*tanh)(float*, std::int64_t, float);
};

const Loops& loops()
{
    static const Loops chosen = [] {
        const auto isa = static_cast<unsigned>(dnnl_get_effective_cpu_isa());
        const auto has
            = [isa](dnnl_cpu_isa_t want) { return (isa & static_cast<unsigned>(want)) == static_cast<unsigned>(want); };
        __builtin_cpu_init();
        if (has(dnnl_cpu_isa_avx512_core) && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
            && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
            return Loops { avx512::productLoop, avx512::sigmoidRow, avx512::tanhRow };
        if (has(dnnl_cpu_isa_avx2) && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
            return Loops { avx2::productLoop, avx2::sigmoidRow, avx2::tanhRow };
        return Loops { baseline::productLoop, baseline::sigmoidRow, baseline::tanhRow };
    }();
    return chosen;
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
    loops().product(a, lda, b, ldb, c, ldc, rows, k, n);
}

// `fn` over values[0, n) in place, the input clipped to [-clip, clip] first when clip > 0. One
// switch per row, so each loop is a single function.
void applyFunction(const Activation& fn, float clip, float* v, std::int64_t n)
{
    if (fn.kind == ActivationKind::Sigmoid)
        return loops().sigmoid(v, n, clip);
    if (fn.kind == ActivationKind::Tanh)
        return loops().tanh(v, n, clip);
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
    // gates [B, gates x H], then c [B, H] (LSTM) or r * h / h R_h [B, H] (GRU), then h [B, H]
    // when the output holds c.
    scratch.resize(static_cast<std::size_t>(batch * (gh + 2 * h)));
    float* gates = scratch.data();
    float* extra = gates + batch * gh;
    float* hiddenState = extra + batch * h;
    const bool cellOut = r.cellStates && r.cell == RecurrentCell::Lstm;
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
                float* y = cellOut ? hiddenState + b * h : y0 + b * yStride;
                std::copy(c, c + h, y);
                applyFunction(hf, 0.0F, y, h); // h(c): the cell state is not clipped
                for (std::int64_t j = 0; j < h; ++j)
                    y[j] *= out[j];
                if (cellOut)
                    std::copy(c, c + h, y0 + b * yStride);
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
        prevH = cellOut ? hiddenState : y0; // the product reads it before the step writes it
        prevStride = cellOut ? h : yStride;
    }
}

} // namespace opsched::cpu
