// Small LSTM, GRU and RNN models for the recurrence tests (CPU against ONNX's equations, CUDA
// against the CPU): a case's options, its random tensors in ONNX's layouts, and the model written
// with the inputs and outputs the case asks for.
#pragma once

#include "onnx_model_maker.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace opsched::test {

struct RecurrentCase {
    std::string op = "LSTM";
    std::int64_t steps = 4, batch = 2, input = 3, hidden = 5;
    std::string direction = "forward";
    int layout = 0;
    bool peepholes = false, initialStates = false, inputForget = false, linearBeforeReset = false;
    float clip = 0; // 0: none
    std::vector<std::string> functions; // empty: the defaults
    std::vector<float> alphas, betas;

    int directions() const { return direction == "bidirectional" ? 2 : 1; }
    int gates() const { return op == "LSTM" ? 4 : op == "GRU" ? 3 : 1; }
};

// X [T, B, I], W, R, B, P as ONNX stores them, the initial states [D, B, H] (layout 0 order).
struct RecurrentTensors {
    std::vector<float> x, w, r, b, p, h0, c0;
};

inline std::vector<float> uniformValues(std::mt19937& rng, std::int64_t n, float scale)
{
    std::uniform_real_distribution<float> u(-scale, scale);
    std::vector<float> v(static_cast<std::size_t>(n));
    for (auto& x : v)
        x = u(rng);
    return v;
}

inline RecurrentTensors randomRecurrentTensors(const RecurrentCase& c, unsigned seed)
{
    const std::int64_t D = c.directions(), G = c.gates(), T = c.steps, B = c.batch, I = c.input, H = c.hidden;
    std::mt19937 rng(seed);
    RecurrentTensors t;
    t.x = uniformValues(rng, T * B * I, 1.0F);
    t.w = uniformValues(rng, D * G * H * I, 0.6F);
    t.r = uniformValues(rng, D * G * H * H, 0.6F);
    t.b = uniformValues(rng, D * 2 * G * H, 0.3F);
    if (c.peepholes)
        t.p = uniformValues(rng, D * 3 * H, 0.5F);
    if (c.initialStates) {
        t.h0 = uniformValues(rng, D * B * H, 0.8F);
        t.c0 = uniformValues(rng, D * B * H, 0.8F);
    }
    return t;
}

// [a, b, rest] -> [b, a, rest]
inline std::vector<float> swapFirstTwo(const std::vector<float>& v, std::int64_t a, std::int64_t b)
{
    const std::int64_t rest = static_cast<std::int64_t>(v.size()) / (a * b);
    std::vector<float> out(v.size());
    for (std::int64_t i = 0; i < a; ++i)
        for (std::int64_t j = 0; j < b; ++j)
            std::copy_n(&v[(i * b + j) * rest], rest, &out[(j * a + i) * rest]);
    return out;
}

struct RecurrentModel {
    std::string path;
    std::vector<std::vector<float>> feeds; // in the graph's input order, in the model's layout
    std::vector<std::string> outputs;
};

// The case as a one-node model reading Y and Y_h, and Y_c when `readCellState` (LSTM).
inline RecurrentModel saveRecurrentModel(const RecurrentCase& c, const RecurrentTensors& t, bool readCellState)
{
    const std::int64_t D = c.directions(), G = c.gates(), T = c.steps, B = c.batch, I = c.input, H = c.hidden;
    const bool l1 = c.layout == 1;
    RecurrentModel out;
    ModelMaker m(14);
    m.input("X", l1 ? std::vector<std::int64_t> { B, T, I } : std::vector<std::int64_t> { T, B, I });
    std::vector<std::string> inputs { "X", "W", "R", "B", "" };
    m.weight("W", { D, G * H, I }, t.w).weight("R", { D, G * H, H }, t.r).weight("B", { D, 2 * G * H }, t.b);
    out.feeds.push_back(l1 ? swapFirstTwo(t.x, T, B) : t.x);
    if (c.initialStates) {
        const std::vector<std::int64_t> stateDims
            = l1 ? std::vector<std::int64_t> { B, D, H } : std::vector<std::int64_t> { D, B, H };
        m.input("h0", stateDims);
        inputs.push_back("h0");
        out.feeds.push_back(l1 ? swapFirstTwo(t.h0, D, B) : t.h0);
        if (c.op == "LSTM") {
            m.input("c0", stateDims);
            inputs.push_back("c0");
            out.feeds.push_back(l1 ? swapFirstTwo(t.c0, D, B) : t.c0);
        }
    } else if (c.op == "LSTM" && c.peepholes) {
        inputs.push_back("");
        inputs.push_back("");
    }
    if (c.peepholes) {
        m.weight("P", { D, 3 * H }, t.p);
        inputs.push_back("P");
    }
    out.outputs = { "Y", "Y_h" };
    if (c.op == "LSTM" && readCellState)
        out.outputs.push_back("Y_c");
    for (const auto& o : out.outputs)
        m.output(o);
    auto& node = m.node(c.op, inputs, out.outputs, "rec");
    ModelMaker::attr(node, "hidden_size", H);
    ModelMaker::attr(node, "direction", c.direction);
    if (c.layout)
        ModelMaker::attr(node, "layout", std::int64_t { 1 });
    if (c.inputForget)
        ModelMaker::attr(node, "input_forget", std::int64_t { 1 });
    if (c.linearBeforeReset)
        ModelMaker::attr(node, "linear_before_reset", std::int64_t { 1 });
    if (c.clip > 0)
        ModelMaker::attr(node, "clip", c.clip);
    const auto listAttr = [&](const char* name, auto type, const auto& values, auto add) {
        if (values.empty())
            return;
        auto* a = node.add_attribute();
        a->set_name(name);
        a->set_type(type);
        for (const auto& v : values)
            add(*a, v);
    };
    listAttr("activations", onnx::AttributeProto::STRINGS, c.functions,
        [](onnx::AttributeProto& a, const std::string& v) { a.add_strings(v); });
    listAttr("activation_alpha", onnx::AttributeProto::FLOATS, c.alphas,
        [](onnx::AttributeProto& a, float v) { a.add_floats(v); });
    listAttr("activation_beta", onnx::AttributeProto::FLOATS, c.betas,
        [](onnx::AttributeProto& a, float v) { a.add_floats(v); });
    out.path = m.save();
    return out;
}

} // namespace opsched::test
