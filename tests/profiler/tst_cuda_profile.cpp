// The measured backend end to end: zoo:squeezenet profiled on cuda:0 into a temp database, runs
// and kernels read back. Skips visibly without a GPU; the refusal is checked everywhere.
#include "profiler_test_support.h"

#include "exec/cuda/cuda_runtime_info.h"
#include "exec/cuda/cuda_stage_timer.h"
#include "schedule/measured_stage_cost.h"
#include "session/cuda_backend.h"
#include "sim/sim_device.h"

#include <gtest/gtest.h>

namespace opsched {
namespace {

TEST(CudaProfile, WithoutAGpuTheBackendRefusesNamingTheCauseAndSuggestingSim)
{
    if (profiler::cudaProfilingUnavailable(0).empty())
        GTEST_SKIP() << "skipped: a CUDA device with CUPTI is present (this checks the refusal)";
    SimulatedStageCost cost(findSimDevice("sim:h100"), SimOptions {});
    try {
        profiler::CudaBackend backend(profiler::CudaBackendOptions { 0 }, cost);
        FAIL() << "constructed without a usable GPU";
    } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("--device cuda:0: "), std::string::npos) << what;
        EXPECT_NE(what.find(profiler::cudaProfilingUnavailable(0)), std::string::npos) << what;
        EXPECT_NE(what.find("sim:h100"), std::string::npos) << what;
    }
}

TEST(CudaProfile, SqueezenetOnCuda0FillsRunsAndKernelsTiedToOps)
{
    if (const auto why = profiler::cudaProfilingUnavailable(0); !why.empty())
        GTEST_SKIP() << "skipped: no CUDA device (" << why << ")";
    test::TempDir dir;
    store::Store db = store::Store::open(dir.file("gpu.db"), store::OpenMode::ReadWrite);
    CudaTimerOptions timerOptions;
    auto timer = makeCudaStageTimer(timerOptions);
    MeasuredStageCost cost(*timer, "cuda:0", findSimDevice("sim:h100"));
    profiler::CudaBackend backend(profiler::CudaBackendOptions { 0 }, cost);
    profiler::ProfileSettings settings;
    settings.deviceRef = "cuda:0";
    settings.repeats = 5;
    settings.warps = true; // may be refused (permissions): the run must be stored anyway
    profiler::BatchRunner runner(db, backend, settings);
    const auto result = runner.run(profiler::expandJobs({ "zoo:squeezenet" }, { "sequential", "ios" }, { 1 }));
    ASSERT_TRUE(result.allSucceeded());
    ASSERT_EQ(result.runs.size(), 2U);
    for (auto id : result.runs) {
        const auto run = db.loadRun(id);
        SCOPED_TRACE(run.schedule->scheduler + ": " + run.notes);
        EXPECT_FALSE(run.simulated);
        EXPECT_EQ(run.device.key.rfind("cuda:", 0), 0U);
        ASSERT_EQ(run.latenciesNs.size(), 5U);
        for (double ns : run.latenciesNs)
            EXPECT_GT(ns, 0);
        ASSERT_FALSE(run.kernels.empty());
        std::size_t tied = 0;
        for (const auto& k : run.kernels) {
            EXPECT_LE(k.start, k.end);
            if (k.launchId) {
                ++tied;
                ASSERT_TRUE(k.opId);
                EXPECT_LT(static_cast<std::size_t>(*k.opId), run.model.opCount);
            }
        }
        EXPECT_EQ(tied, run.kernels.size()) << "every kernel of the eager run carries its launch's id";
        EXPECT_FALSE(run.stages.empty());
        if (!run.warpsCollected) {
            EXPECT_NE(run.notes.find("active warps not recorded"), std::string::npos);
        }
    }
}

} // namespace
} // namespace opsched
