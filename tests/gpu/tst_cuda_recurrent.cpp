// LSTM, GRU and RNN as Recurrent ops on the CUDA executor (a kernel launch per step), compared
// element-wise with the CPU executor on the same imported graph, weights and inputs (the CPU's
// recurrence is checked against ONNX's equations in tst_cpu_recurrent): peepholes, clip,
// input_forget, linear_before_reset both ways, initial states, Y_c from the cell-state op, layout
// 1, reverse and bidirectional, functions with alpha, and a state wide enough for several blocks.
// Skipped visibly without a device.
#include "exec/cpu/cpu_executor.h"
#include "plan/plan.h"
#include "schedule/basic_schedulers.h"

#include "../import/recurrent_model_maker.h"
#include "cuda_test_support.h"

#include <gtest/gtest.h>

using namespace opsched;

namespace {

using Case = opsched::test::RecurrentCase;

void checkOnGpu(const Case& c)
{
    SCOPED_TRACE(c.op + " " + c.direction + " layout " + std::to_string(c.layout));
    const auto model = test::saveRecurrentModel(c, test::randomRecurrentTensors(c, 11), true);
    const Graph g = importOnnx(model.path, c.layout == 1 ? c.batch : c.steps);
    const auto recurrent
        = std::count_if(g.ops().begin(), g.ops().end(), [](const Op& op) { return op.kind == OpKind::Recurrent; });
    // LSTM: an op for the cell states as well.
    ASSERT_EQ(recurrent, (c.op == "LSTM" ? 2 : 1) * c.directions());
    const auto plan = compileSchedule(g, sequentialSchedule(g));
    cpu::CpuExecutor cpuRun(g, plan, cpu::CpuOptions {});
    const auto want = cpuRun.run(model.feeds);
    gpu::CudaExecutor gpuRun(g, plan, gpu::CudaOptions { 0, false, {} });
    const auto got = gpuRun.run(model.feeds);
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
    r.layout = 1;
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
        c.layout = 1;
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
