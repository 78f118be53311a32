// A mapping over the CPU and a GPU through the segment runner (exec/segment_runner.h): ops
// alternate between cpu and cuda:0 so values cross both ways, and the outputs equal the CPU
// executor's. Skipped visibly without a CUDA device; the refusal without one is tested everywhere.
#include "cuda_test_support.h"

#include "exec/cpu/cpu_executor.h"
#include "exec/segment_executors.h"
#include "exec/segment_plan.h"
#include "exec/segment_runner.h"
#include "model/model_ref.h"
#include "plan/plan.h"
#include "schedule/basic_schedulers.h"
#include "util/error.h"

#include <gtest/gtest.h>

using namespace opsched;

namespace {

const char* kRwnn = "zoo:rwnn?gen=er&n=12&modules=2&channels=2&seed=3&res=32";

// Op i on device i % 2 (topological order), each device's ops in that order.
exec::SegmentRunner alternating(const Graph& g, bool tf32)
{
    std::vector<std::uint32_t> deviceOf(g.opCount());
    std::vector<std::vector<std::uint32_t>> order(2);
    for (std::uint32_t i = 0; i < g.opCount(); ++i) {
        deviceOf[i] = i % 2;
        order[i % 2].push_back(i);
    }
    return exec::SegmentRunner(
        g, exec::cutSegments(g, deviceOf, order), { "cpu", "cuda:0" }, [tf32](const Subgraph& sub, std::uint32_t u) {
            return u == 1 ? exec::makeCudaSegmentExecutor(sub.graph, 0, tf32)
                          : exec::makeCpuSegmentExecutor(sub.graph, {});
        });
}

} // namespace

TEST(CudaSegments, WithoutADeviceTheRunnerRefusesNamingTheSegment)
{
    if (test::whyNoCuda().empty())
        GTEST_SKIP() << "this machine has a CUDA device: the refusal is not reachable";
    const Graph g = loadModel(kRwnn);
    try {
        alternating(g, true);
        FAIL() << "a CUDA segment was built without a CUDA device";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("cuda:0, segment 0 of"), std::string::npos) << e.what();
    }
}

TEST(CudaSegments, CpuAndGpuSegmentsGiveTheCpuOutputs)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    if (!cpu::cpuBackendAvailable())
        GTEST_SKIP() << "skipped: no CPU backend (oneDNN) in this build";
    const Graph g = loadModel(kRwnn);
    const auto inputs = cpu::seededInputs(g, 1);
    cpu::CpuExecutor single(g, compileSchedule(g, sequentialSchedule(g)));
    const auto want = single.run(inputs);
    auto runner = alternating(g, false); // plain FP32 on the GPU: a tight comparison
    ASSERT_GE(runner.segments().size(), 4U);
    for (int run = 0; run < 3; ++run)
        EXPECT_LT(test::maxRelativeError(runner.run(inputs), want), 1e-4) << "run " << run;
    const auto& times = runner.lastTimings();
    for (std::size_t s = 0; s < times.size(); ++s)
        for (std::size_t p : runner.waitsFor()[s])
            EXPECT_GE(times[s].startNs, times[p].endNs) << runner.segmentLabel(s);
}
