// LSTM, GRU and RNN run on the CPU and compared element-wise with ONNX's equations written out
// here as plain loops, on random weights: the options PyTorch never writes and ONNX's own cases
// (constant weights) cannot tell apart: peepholes, clip, input_forget, linear_before_reset both
// ways, initial states computed by the model, layout 1, reverse and bidirectional directions,
// activation functions with alpha and beta. Each case in both of the importer's forms: Recurrent
// ops (one per direction, and one more for the cell states when Y_c is read), and unrolled into
// per-step ops on request; with one thread and with two (small launches then run on one thread).
#include "exec/cpu/cpu_executor.h"
#include "import/onnx_importer.h"
#include "plan/plan.h"
#include "schedule/basic_schedulers.h"

#include "../import/recurrent_model_maker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>

using namespace opsched;
using opsched::test::swapFirstTwo;

namespace {

// How the importer is to write the layer: one Recurrent op per direction (Y and Y_h read), two
// when Y_c is read as well, or unrolled on request (OPSCHED_UNROLL_RECURRENT, Y_c read if LSTM).
enum class Form { Fused, FusedWithCellState, UnrolledOnRequest };

using Case = opsched::test::RecurrentCase;

float apply(const std::string& f, float alpha, float beta, float x)
{
    if (f == "Sigmoid")
        return 1.0F / (1.0F + std::exp(-x));
    if (f == "Tanh")
        return std::tanh(x);
    if (f == "Relu")
        return std::max(x, 0.0F);
    if (f == "HardSigmoid")
        return std::clamp(alpha * x + beta, 0.0F, 1.0F);
    if (f == "Softsign")
        return x / (1.0F + std::abs(x));
    if (f == "LeakyRelu")
        return x < 0 ? alpha * x : x;
    ADD_FAILURE() << "no reference for " << f;
    return x;
}

struct Function {
    std::string name;
    float alpha = 0, beta = 0;
    float operator()(float x) const { return apply(name, alpha, beta, x); }
};

using Tensors = opsched::test::RecurrentTensors;

// ONNX's equations, one direction at a time; Y as [T, D, B, H], Y_h and Y_c as [D, B, H]
// (layout 0; the caller transposes for layout 1).
struct Reference {
    std::vector<float> y, yh, yc;
};

Reference reference(const Case& c, const Tensors& t, const std::vector<Function>& fs)
{
    const int D = c.direction == "bidirectional" ? 2 : 1;
    const std::int64_t T = c.steps, B = c.batch, I = c.input, H = c.hidden;
    const int G = c.gates();
    const std::size_t perDir = c.op == "LSTM" ? 3 : c.op == "GRU" ? 2 : 1;
    Reference out;
    out.y.assign(static_cast<std::size_t>(T * D * B * H), 0);
    out.yh.assign(static_cast<std::size_t>(D * B * H), 0);
    out.yc.assign(static_cast<std::size_t>(D * B * H), 0);
    for (int d = 0; d < D; ++d) {
        const bool reverse = c.direction == "reverse" || d == 1;
        const Function& f = fs[d * perDir];
        const Function& g = fs[std::min(d * perDir + 1, fs.size() - 1)];
        const Function& hf = fs[std::min(d * perDir + 2, fs.size() - 1)];
        std::vector<float> h(static_cast<std::size_t>(B * H), 0), cell(static_cast<std::size_t>(B * H), 0);
        if (c.initialStates)
            for (std::int64_t i = 0; i < B * H; ++i) {
                h[i] = t.h0[d * B * H + i];
                if (c.op == "LSTM")
                    cell[i] = t.c0[d * B * H + i];
            }
        const auto W = [&](std::int64_t row, std::int64_t k) { return t.w[(d * G * H + row) * I + k]; };
        const auto R = [&](std::int64_t row, std::int64_t k) { return t.r[(d * G * H + row) * H + k]; };
        const auto Wb = [&](std::int64_t row) { return t.b.empty() ? 0.0F : t.b[d * 2 * G * H + row]; };
        const auto Rb = [&](std::int64_t row) { return t.b.empty() ? 0.0F : t.b[d * 2 * G * H + G * H + row]; };
        const auto clip = [&](float v) { return c.clip > 0 ? std::clamp(v, -c.clip, c.clip) : v; };
        for (std::int64_t k = 0; k < T; ++k) {
            const std::int64_t step = reverse ? T - 1 - k : k;
            std::vector<float> next(h.size()), nextCell(cell.size());
            for (std::int64_t n = 0; n < B; ++n) {
                const float* xt = &t.x[(step * B + n) * I];
                const float* hp = &h[n * H];
                const auto xw = [&](std::int64_t row) {
                    float s = Wb(row);
                    for (std::int64_t q = 0; q < I; ++q)
                        s += xt[q] * W(row, q);
                    return s;
                };
                const auto hr = [&](std::int64_t row, const float* state) {
                    float s = 0;
                    for (std::int64_t q = 0; q < H; ++q)
                        s += state[q] * R(row, q);
                    return s;
                };
                for (std::int64_t j = 0; j < H; ++j) {
                    const std::size_t at = static_cast<std::size_t>(n * H + j);
                    if (c.op == "RNN") {
                        next[at] = f(clip(xw(j) + hr(j, hp) + Rb(j)));
                    } else if (c.op == "GRU") {
                        const float z = f(clip(xw(j) + hr(j, hp) + Rb(j)));
                        float nh;
                        if (c.linearBeforeReset) {
                            const float r = f(clip(xw(H + j) + hr(H + j, hp) + Rb(H + j)));
                            nh = g(clip(xw(2 * H + j) + r * (hr(2 * H + j, hp) + Rb(2 * H + j))));
                        } else {
                            std::vector<float> rh(static_cast<std::size_t>(H));
                            for (std::int64_t q = 0; q < H; ++q)
                                rh[q] = f(clip(xw(H + q) + hr(H + q, hp) + Rb(H + q))) * hp[q];
                            nh = g(clip(xw(2 * H + j) + hr(2 * H + j, rh.data()) + Rb(2 * H + j)));
                        }
                        next[at] = (1 - z) * nh + z * hp[j];
                    } else {
                        const float cp = cell[at];
                        const auto P = [&](int k2) { return c.peepholes ? t.p[d * 3 * H + k2 * H + j] : 0.0F; };
                        const float i = f(clip(xw(j) + hr(j, hp) + Rb(j) + P(0) * cp));
                        const float fg = c.inputForget
                            ? 1 - i
                            : f(clip(xw(2 * H + j) + hr(2 * H + j, hp) + Rb(2 * H + j) + P(2) * cp));
                        const float cc = g(clip(xw(3 * H + j) + hr(3 * H + j, hp) + Rb(3 * H + j)));
                        const float cn = fg * cp + i * cc;
                        const float o = f(clip(xw(H + j) + hr(H + j, hp) + Rb(H + j) + P(1) * cn));
                        nextCell[at] = cn;
                        next[at] = o * hf(cn);
                    }
                }
            }
            h = next;
            cell = nextCell;
            for (std::int64_t i = 0; i < B * H; ++i)
                out.y[((step * D + d) * B) * H + i] = h[i];
        }
        for (std::int64_t i = 0; i < B * H; ++i) {
            out.yh[d * B * H + i] = h[i];
            out.yc[d * B * H + i] = cell[i];
        }
    }
    return out;
}

// Imports the case in `form`, runs it with `threads` and checks Y, Y_h (and Y_c) against the
// reference.
void check(const Case& c, int threads, Form form)
{
    SCOPED_TRACE(c.op + " " + c.direction + " layout " + std::to_string(c.layout) + ", threads "
        + std::to_string(threads) + ", form " + std::to_string(static_cast<int>(form)));
    const int D = c.directions();
    const std::int64_t T = c.steps, B = c.batch, H = c.hidden;
    const Tensors t = opsched::test::randomRecurrentTensors(c, 7);
    std::vector<Function> fs;
    {
        std::vector<std::string> names = c.functions;
        if (names.empty())
            names = c.op == "LSTM" ? std::vector<std::string> { "Sigmoid", "Tanh", "Tanh" }
                : c.op == "GRU"    ? std::vector<std::string> { "Sigmoid", "Tanh" }
                                   : std::vector<std::string> { "Tanh" };
        std::size_t a = 0, b = 0;
        for (int d = 0; d < D; ++d)
            for (const auto& n : names) {
                Function f { n };
                if (n == "HardSigmoid" || n == "LeakyRelu")
                    f.alpha = a < c.alphas.size() ? c.alphas[a++] : (n == "LeakyRelu" ? 0.01F : 0.2F);
                if (n == "HardSigmoid")
                    f.beta = b < c.betas.size() ? c.betas[b++] : 0.5F;
                fs.push_back(f);
            }
        // One list for both directions: alpha and beta are read once per list entry.
        if (D == 2 && !c.functions.empty())
            for (std::size_t k = 0; k < names.size(); ++k)
                fs[names.size() + k] = fs[k];
    }
    const Reference ref = reference(c, t, fs);

    const bool l1 = c.layout == 1;
    const auto model = opsched::test::saveRecurrentModel(c, t, form != Form::Fused);
    const auto& feeds = model.feeds;
    const auto& outputs = model.outputs;
    if (form == Form::UnrolledOnRequest)
        setenv("OPSCHED_UNROLL_RECURRENT", "1", 1);
    const Graph g = importOnnx(model.path, l1 ? B : T);
    unsetenv("OPSCHED_UNROLL_RECURRENT");
    const auto recurrentOps
        = std::count_if(g.ops().begin(), g.ops().end(), [](const Op& op) { return op.kind == OpKind::Recurrent; });
    EXPECT_EQ(recurrentOps, form == Form::Fused ? D : form == Form::FusedWithCellState ? 2 * D : 0);
    cpu::CpuOptions options;
    options.threads = threads;
    cpu::CpuExecutor ex(g, compileSchedule(g, sequentialSchedule(g)), options);
    const auto got = ex.run(feeds);
    ASSERT_EQ(got.size(), outputs.size());
    // Layout 1: Y is [B, T, D, H], the states [B, D, H].
    std::vector<std::vector<float>> want { ref.y, ref.yh, ref.yc };
    if (l1) {
        // [T, D, B, H] -> [B, T, D, H]
        std::vector<float> yb(ref.y.size());
        for (std::int64_t s = 0; s < T; ++s)
            for (int d = 0; d < D; ++d)
                for (std::int64_t n = 0; n < B; ++n)
                    std::copy_n(&ref.y[((s * D + d) * B + n) * H], H, &yb[((n * T + s) * D + d) * H]);
        want[0] = yb;
        want[1] = swapFirstTwo(ref.yh, D, B);
        want[2] = swapFirstTwo(ref.yc, D, B);
    }
    for (std::size_t o = 0; o < outputs.size(); ++o) {
        ASSERT_EQ(got[o].size(), want[o].size()) << outputs[o];
        for (std::size_t i = 0; i < want[o].size(); ++i)
            ASSERT_NEAR(got[o][i], want[o][i], 2e-5) << outputs[o] << "[" << i << "]";
    }
}

void checkBoth(const Case& c)
{
    const bool cellState = c.op == "LSTM";
    for (Form form : { Form::Fused, Form::FusedWithCellState, Form::UnrolledOnRequest }) {
        if (form == Form::FusedWithCellState && !cellState)
            continue;
        check(c, 1, form);
        check(c, 2, form);
    }
}

} // namespace

TEST(CpuRecurrent, LstmBidirectionalWithPeepholesAndInitialStates)
{
    Case c;
    c.direction = "bidirectional";
    c.peepholes = true;
    c.initialStates = true;
    checkBoth(c);
}

TEST(CpuRecurrent, LstmReverseLayoutOneCoupledGatesAndClip)
{
    Case c;
    c.direction = "reverse";
    c.layout = 1;
    c.inputForget = true;
    c.clip = 0.7F;
    c.initialStates = true;
    checkBoth(c);
}

TEST(CpuRecurrent, LstmFunctionsWithAlphaAndBeta)
{
    Case c;
    c.direction = "bidirectional";
    c.functions = { "HardSigmoid", "Softsign", "Tanh" };
    c.alphas = { 0.3F };
    c.betas = { 0.4F };
    checkBoth(c);
}

TEST(CpuRecurrent, GruBothResetForms)
{
    for (bool lbr : { false, true }) {
        Case c;
        c.op = "GRU";
        c.linearBeforeReset = lbr;
        c.direction = "bidirectional";
        c.initialStates = true;
        checkBoth(c);
        c.initialStates = false; // the first step's zero state leaves R's bias alone in the reset product
        c.direction = "reverse";
        c.layout = 1;
        checkBoth(c);
    }
}

TEST(CpuRecurrent, RnnWithLeakyReluAndClip)
{
    Case c;
    c.op = "RNN";
    c.functions = { "LeakyRelu" };
    c.alphas = { 0.2F };
    c.clip = 0.9F;
    c.initialStates = true;
    checkBoth(c);
    c.direction = "bidirectional";
    c.functions = { "Relu", "Tanh" };
    c.alphas = {};
    c.layout = 1;
    checkBoth(c);
}

// Sizes where the recurrent product goes to oneDNN's sgemm rather than the plain loop.
TEST(CpuRecurrent, WiderLayersThroughSgemm)
{
    Case lstm;
    lstm.hidden = 64;
    lstm.batch = 3;
    lstm.input = 7;
    lstm.steps = 5;
    lstm.direction = "bidirectional";
    lstm.initialStates = true;
    checkBoth(lstm);
    Case gru = lstm;
    gru.op = "GRU";
    gru.batch = 4;
    checkBoth(gru);
    gru.linearBeforeReset = true;
    gru.layout = 1;
    checkBoth(gru);
}
