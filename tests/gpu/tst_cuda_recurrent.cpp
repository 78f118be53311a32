// LSTM, GRU and RNN as Recurrent ops on the CUDA executor (a kernel launch per step), compared
// element-wise with the CPU executor on the same imported graph, weights and inputs (the CPU's
// recurrence is checked against ONNX's equations in tst_cpu_recurrent): peepholes, clip,
// input_forget, linear_before_reset both ways, initial states, Y_c from the cell-state op, layout
// 1, reverse and bidirectional, functions with alpha, and a state wide enough for several blocks.
// Skipped visibly without a device.
#include "exec/cpu/cpu_executor.h"
#include "plan/plan.h"
#include "schedule/basic_schedulers.h"

#include "../import/onnx_model_maker.h"
#include "cuda_test_support.h"

#include <gtest/gtest.h>

#include <random>

using namespace opsched;
using opsched::test::ModelMaker;

namespace {

struct Case {
    std::string op = "LSTM";
    std::int64_t steps = 6, batch = 2, input = 5, hidden = 8;
    std::string direction = "forward";
    bool batchFirst = false, peepholes = false, initialStates = false, inputForget = false, linearBeforeReset = false;
    float clip = 0;
    std::vector<std::string> functions;
    std::vector<float> alphas;
};

std::vector<float> randoms(std::mt19937& rng, std::int64_t n, float scale)
{
    std::uniform_real_distribution<float> u(-scale, scale);
    std::vector<float> v(static_cast<std::size_t>(n));
    for (auto& x : v)
        x = u(rng);
    return v;
}

void checkOnGpu(const Case& c)
{
    SCOPED_TRACE(c.op + " " + c.direction + (c.batchFirst ? " layout 1" : ""));
    const std::int64_t D = c.direction == "bidirectional" ? 2 : 1, T = c.steps, B = c.batch, I = c.input, H = c.hidden;
    const std::int64_t G = c.op == "LSTM" ? 4 : c.op == "GRU" ? 3 : 1;
    std::mt19937 rng(11);
    ModelMaker m(14);
    const auto seqDims = c.batchFirst ? std::vector<std::int64_t> { B, T, I } : std::vector<std::int64_t> { T, B, I };
    m.input("X", seqDims);
    std::vector<std::vector<float>> feeds { randoms(rng, T * B * I, 1.0F) };
    m.weight("W", { D, G * H, I }, randoms(rng, D * G * H * I, 0.5F))
        .weight("R", { D, G * H, H }, randoms(rng, D * G * H * H, 0.5F))
        .weight("B", { D, 2 * G * H }, randoms(rng, D * 2 * G * H, 0.3F));
    std::vector<std::string> inputs { "X", "W", "R", "B", "" };
    if (c.initialStates) {
        const auto stateDims
            = c.batchFirst ? std::vector<std::int64_t> { B, D, H } : std::vector<std::int64_t> { D, B, H };
        m.input("h0", stateDims);
        inputs.push_back("h0");
        feeds.push_back(randoms(rng, D * B * H, 0.8F));
        if (c.op == "LSTM") {
            m.input("c0", stateDims);
            inputs.push_back("c0");
            feeds.push_back(randoms(rng, D * B * H, 0.8F));
        }
    } else if (c.peepholes) {
        inputs.insert(inputs.end(), { "", "" });
    }
    if (c.peepholes) {
        m.weight("P", { D, 3 * H }, randoms(rng, D * 3 * H, 0.5F));
        inputs.push_back("P");
    }
    std::vector<std::string> outputs { "Y", "Y_h" };
    if (c.op == "LSTM")
        outputs.push_back("Y_c");
    for (const auto& o : outputs)
        m.output(o);
    auto& node = m.node(c.op, inputs, outputs, "rec");
    ModelMaker::attr(node, "hidden_size", H);
    ModelMaker::attr(node, "direction", c.direction);
    if (c.batchFirst)
        ModelMaker::attr(node, "layout", std::int64_t { 1 });
    if (c.inputForget)
        ModelMaker::attr(node, "input_forget", std::int64_t { 1 });
    if (c.linearBeforeReset)
        ModelMaker::attr(node, "linear_before_reset", std::int64_t { 1 });
    if (c.clip > 0)
        ModelMaker::attr(node, "clip", c.clip);
    if (!c.functions.empty()) {
        auto* a = node.add_attribute();
        a->set_name("activations");
        a->set_type(onnx::AttributeProto::STRINGS);
        for (const auto& f : c.functions)
            a->add_strings(f);
    }
    if (!c.alphas.empty()) {
        auto* a = node.add_attribute();
        a->set_name("activation_alpha");
        a->set_type(onnx::AttributeProto::FLOATS);
        for (auto v : c.alphas)
            a->add_floats(v);
    }
    const Graph g = importOnnx(m.save(), c.batchFirst ? B : T);
    const auto recurrent
        = std::count_if(g.ops().begin(), g.ops().end(), [](const Op& op) { return op.kind == OpKind::Recurrent; });
    ASSERT_EQ(recurrent, c.op == "LSTM" ? 2 * D : D); // LSTM: the cell-state op as well
    const auto plan = compileSchedule(g, sequentialSchedule(g));
    cpu::CpuExecutor cpuRun(g, plan, cpu::CpuOptions {});
    const auto want = cpuRun.run(feeds);
    gpu::CudaExecutor gpuRun(g, plan, gpu::CudaOptions { 0, false, {} });
    const auto got = gpuRun.run(feeds);
    EXPECT_LE(test::maxRelativeError(got, want), 1e-5);
}

} // namespace

TEST(CudaRecurrent, LstmVariantsMatchTheCpu)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    Case c;
    c.direction = "bidirectional";
    c.peepholes = true;
    c.initialStates = true;
    checkOnGpu(c);
    Case r;
    r.direction = "reverse";
    r.batchFirst = true;
    r.inputForget = true;
    r.clip = 0.7F;
    r.functions = { "HardSigmoid", "Softsign", "Tanh" };
    r.alphas = { 0.3F };
    checkOnGpu(r);
}

TEST(CudaRecurrent, GruBothResetFormsMatchTheCpu)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    for (bool lbr : { false, true }) {
        Case c;
        c.op = "GRU";
        c.linearBeforeReset = lbr;
        c.direction = "bidirectional";
        c.initialStates = true;
        checkOnGpu(c);
        c.initialStates = false;
        c.direction = "reverse";
        c.batchFirst = true;
        checkOnGpu(c);
    }
}

TEST(CudaRecurrent, RnnAndWideStatesMatchTheCpu)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    Case rnn;
    rnn.op = "RNN";
    rnn.functions = { "LeakyRelu" };
    rnn.alphas = { 0.2F };
    rnn.clip = 0.9F;
    rnn.initialStates = true;
    checkOnGpu(rnn);
    Case wide; // 3 x 96 state values: more than one block of 128 threads
    wide.hidden = 96;
    wide.batch = 3;
    wide.steps = 4;
    wide.direction = "bidirectional";
    checkOnGpu(wide);
}
