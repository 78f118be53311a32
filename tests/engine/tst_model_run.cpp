// engine::runModel, the one function behind `run`: the plan it picks, outputs that depend on the
// plan only within rounding, a check that passes clean and fails on an injected fault, and the
// requests it refuses before running anything.
#include "engine/run/model_run.h"

#include "util/error.h"

#include <gtest/gtest.h>

#include <cmath>

namespace opsched::engine {
namespace {

constexpr const char* kModel = "zoo:random?ops=12&width=3&seed=5";

RunRequest request(const std::string& scheduler = {})
{
    RunRequest r;
    r.model = kModel;
    r.scheduler = scheduler;
    r.repeat = 1;
    r.threads = 1;
    return r;
}

TEST(ModelRun, SequentialPlanByDefaultAndEveryKernelListed)
{
    if (!cpu::cpuBackendAvailable())
        GTEST_SKIP() << "skipped: no CPU backend (oneDNN) in this build";
    const ModelRun run = runModel(request());
    EXPECT_EQ(run.scheduler, "sequential");
    EXPECT_EQ(run.backend, "cpu");
    EXPECT_EQ(run.inputSource, "seeded");
    ASSERT_EQ(run.outputs.size(), run.graph.outputs().size());
    ASSERT_EQ(run.checksums.size(), run.outputs.size());
    EXPECT_EQ(run.latenciesMs.size(), 1u);
    EXPECT_FALSE(run.kernels.empty());
    EXPECT_FALSE(run.cpuIsa.empty());
    EXPECT_TRUE(run.checks.empty());
    EXPECT_TRUE(run.passed());
}

TEST(ModelRun, ASchedulersPlanComputesWhatTheSequentialOneDoes)
{
    if (!cpu::cpuBackendAvailable())
        GTEST_SKIP() << "skipped: no CPU backend (oneDNN) in this build";
    const ModelRun sequential = runModel(request());
    const ModelRun ios = runModel(request("ios"));
    EXPECT_EQ(ios.scheduler, "ios");
    ASSERT_EQ(ios.outputs.size(), sequential.outputs.size());
    for (std::size_t k = 0; k < ios.outputs.size(); ++k) {
        ASSERT_EQ(ios.outputs[k].size(), sequential.outputs[k].size());
        for (std::size_t i = 0; i < ios.outputs[k].size(); ++i)
            EXPECT_NEAR(ios.outputs[k][i], sequential.outputs[k][i], 1e-4 * (1 + std::fabs(sequential.outputs[k][i])));
    }
}

TEST(ModelRun, TheCheckPassesCleanAndCatchesAnInjectedFault)
{
    if (!cpu::cpuBackendAvailable())
        GTEST_SKIP() << "skipped: no CPU backend (oneDNN) in this build";
    // Without test data the reference is the single-device run; the plan under test is ios's.
    RunRequest clean = request("ios");
    clean.check = true;
    clean.tolerance = kSingleDeviceTolerance;
    const ModelRun ok = runModel(clean);
    EXPECT_EQ(ok.referenceSource, kSingleDeviceReference);
    ASSERT_FALSE(ok.checks.empty());
    EXPECT_TRUE(ok.passed());

    RunRequest faulty = clean;
    faulty.fault = "input-seed=7"; // other inputs than the reference's
    const ModelRun bad = runModel(faulty);
    EXPECT_FALSE(bad.passed());
}

TEST(ModelRun, RefusesWhatCannotRunBeforeRunning)
{
    RunRequest unknown = request();
    unknown.backend = "tpu";
    try {
        (void)runModel(unknown);
        FAIL() << "an unknown backend ran";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("unknown backend"), std::string::npos) << e.what();
    }
    RunRequest costOnly = request();
    costOnly.model = "zoo:gpt3?layers=1";
    EXPECT_THROW((void)runModel(costOnly), Error);
    RunRequest both = request();
    both.mapping = "m.json";
    both.schedule = "s.json";
    EXPECT_THROW((void)runModel(both), Error);
}

TEST(ModelRun, CudnnVariantsAreCheckedByName)
{
    EXPECT_EQ(convVariantProblem("epilogue=fused,algo=find"), "");
    EXPECT_NE(convVariantProblem("epilogue=sideways"), "");
}

} // namespace
} // namespace opsched::engine
