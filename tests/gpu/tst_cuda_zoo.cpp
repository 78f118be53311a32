// Zoo networks on the GPU under every scheduler's plan, against the CPU executor's sequential run
// (or the naive reference where oneDNN is not built), TF32 off: max relative error 1e-3. And the
// GPU stage timer. Skipped visibly without a device.
#include "cpu/reference.h"
#include "cuda_test_support.h"
#include "exec/cpu/cpu_executor.h"
#include "exec/cuda/cuda_stage_timer.h"
#include "gpu_plan_cases.h"
#include "schedule/basic_schedulers.h"
#include "util/error.h"

#include <ostream>

using namespace opsched;

namespace {

struct ZooCase {
    const char* model;
    const char* scheduler;
    std::int64_t batch;
};

// How gtest shows a case (instead of its bytes).
void PrintTo(const ZooCase& c, std::ostream* os)
{
    *os << c.model << " " << c.scheduler << " batch " << c.batch;
}

std::vector<std::vector<float>> expectedOutputs(const Graph& g, const std::vector<std::vector<float>>& inputs)
{
    if (!cpu::cpuBackendAvailable())
        return test::referenceRun(g, inputs);
    cpu::CpuExecutor ex(g, compileSchedule(g, sequentialSchedule(g)));
    return ex.run(inputs);
}

class ZooOnCuda : public ::testing::TestWithParam<ZooCase> { };

TEST_P(ZooOnCuda, MatchesTheCpuUnderThePlan)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    const auto& c = GetParam();
    const Graph g = loadModel(c.model, c.batch);
    const Plan plan = test::planFor(g, c.scheduler);
    const auto inputs = cpu::seededInputs(g, 1);
    gpu::CudaExecutor ex(g, plan, gpu::CudaOptions { 0, false, {} });
    const auto got = ex.run(inputs);
    EXPECT_LE(test::maxRelativeError(got, expectedOutputs(g, inputs)), 1e-3);
    EXPECT_EQ(ex.run(inputs), got) << "a second replay differs";
    const auto times = ex.timeReplays(2, 5);
    ASSERT_EQ(times.size(), 5U);
    for (double t : times)
        EXPECT_GT(t, 0.0);
}

std::vector<ZooCase> zooCases()
{
    std::vector<ZooCase> cases;
    for (const char* model : { "zoo:squeezenet", "zoo:googlenet", "zoo:inception_v3" })
        for (const char* s : { "sequential", "greedy", "ios", "ios-merge", "nimble", "opara" })
            cases.push_back({ model, s, 1 });
    for (const char* s : { "sequential", "nimble", "opara" }) {
        cases.push_back({ "zoo:randwire", s, 1 });
        cases.push_back({ "zoo:nasnet_a", s, 1 });
    }
    cases.push_back({ "zoo:squeezenet", "ios-merge", 2 }); // merged slices copied out
    cases.push_back({ "zoo:googlenet", "nimble", 4 });
    return cases;
}

INSTANTIATE_TEST_SUITE_P(Schedulers, ZooOnCuda, ::testing::ValuesIn(zooCases()), [](const auto& param) {
    return test::caseName({ param.param.model, param.param.scheduler, param.param.batch });
});

TEST(CudaStageTimer, RefusesWithoutADeviceAndSuggestsTheSimulator)
{
    if (!test::whyNoCuda().empty()) {
        try {
            makeCudaStageTimer({});
            FAIL() << "a GPU timer without a GPU";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("sim:"), std::string::npos) << e.what();
        }
        return;
    }
    CudaTimerOptions o;
    o.device = 99;
    EXPECT_THROW(makeCudaStageTimer(o), Error);
}

TEST(CudaStageTimer, TimesStagesOpsAndPlans)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    const Graph g = loadModel("zoo:squeezenet");
    auto timer = makeCudaStageTimer({});
    EXPECT_NE(timer->identity().device.find("cuda:0"), std::string::npos);
    const OpId conv1 = *g.findOp("conv1");
    const double op = timer->timeOp(g, conv1);
    EXPECT_GT(op, 0.0);
    EXPECT_LT(op, 0.1);
    // fire2's expand convs: concurrently, and merged into one conv.
    const OpId e1 = *g.findOp("fire2.expand1x1"), e3 = *g.findOp("fire2.expand3x3");
    const double concurrent = timer->timeStage(g, Stage { StageStrategy::Concurrent, { { e1 }, { e3 } } });
    const double merged = timer->timeStage(g, Stage { StageStrategy::Merge, { { e1 }, { e3 } } });
    EXPECT_GT(concurrent, 0.0);
    EXPECT_GT(merged, 0.0);
    const Plan plan = compileSchedule(g, sequentialSchedule(g));
    const auto replays = timer->timePlan(g, plan, 7);
    ASSERT_EQ(replays.size(), 7U);
    double sumOps = 0;
    for (const auto& o : g.ops())
        sumOps += timer->timeOp(g, o.id);
    // A whole-plan replay is not slower than its ops one by one with a graph launch each.
    EXPECT_LT(*std::min_element(replays.begin(), replays.end()), sumOps * 1.5);
}

} // namespace
