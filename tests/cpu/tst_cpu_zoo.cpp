// Whole zoo networks on the CPU: they run, give finite outputs, the same outputs under every
// scheduler (merged launches included, within kPlanTolerance of the largest output) and the same
// outputs run after run.
#include "cpu_test_support.h"
#include "model/model_ref.h"
#include "schedule/basic_schedulers.h"
#include "schedule/schedulers.h"
#include "sim/sim_device.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace opsched;
using opsched::test::kPlanTolerance;
using opsched::test::planError;

namespace {

class ZooOnCpu : public ::testing::TestWithParam<const char*> { };

TEST_P(ZooOnCpu, SchedulesAgreeAndRunsRepeat)
{
    const Graph g = loadModel(GetParam());
    const auto inputs = cpu::seededInputs(g, 1);
    cpu::CpuExecutor sequential(g, compileSchedule(g, sequentialSchedule(g)));
    const auto expected = sequential.run(inputs);
    ASSERT_EQ(expected.size(), g.outputs().size());
    for (const auto& out : expected) {
        for (float v : out)
            ASSERT_TRUE(std::isfinite(v));
        EXPECT_NE(cpu::checksum(out), 0.0);
    }
    EXPECT_EQ(sequential.run(inputs), expected) << "runs differ";
    EXPECT_LT(sequential.peakArenaBytes(), sequential.activationBytes() / 3);

    SimulatedStageCost cost(findSimDevice("sim:v100"));
    for (const char* scheduler : { "greedy", "ios", "ios-merge" }) {
        const Plan plan = runScheduler(scheduler, g, cost).plan;
        cpu::CpuExecutor ex(g, plan);
        EXPECT_LE(planError(ex.run(inputs), expected), kPlanTolerance) << scheduler;
        const auto problems = ex.layout().check();
        EXPECT_TRUE(problems.empty()) << scheduler << ": " << problems.front();
    }
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooOnCpu, ::testing::Values("zoo:squeezenet", "zoo:googlenet"),
    [](const auto& param) { return std::string(param.param).substr(4); });

// ios-merge runs each fire module's expand1x1 and expand3x3 as one 3x3 convolution.
TEST(ZooMerge, SqueezeNetExpandPairsMatchSeparateConvs)
{
    const Graph g = loadModel("zoo:squeezenet");
    SimulatedStageCost cost(findSimDevice("sim:v100"));
    const Plan plan = runScheduler("ios-merge", g, cost).plan;
    const OpId e1 = *g.findOp("fire3.expand1x1"), e3 = *g.findOp("fire3.expand3x3");
    EXPECT_TRUE(std::any_of(plan.launches.begin(), plan.launches.end(), [&](const Launch& l) {
        return l.merged() && std::find(l.ops.begin(), l.ops.end(), e1) != l.ops.end()
            && std::find(l.ops.begin(), l.ops.end(), e3) != l.ops.end();
    }));
    const auto inputs = cpu::seededInputs(g, 2);
    cpu::CpuExecutor merged(g, plan);
    cpu::CpuExecutor sequential(g, compileSchedule(g, sequentialSchedule(g)));
    EXPECT_LE(planError(merged.run(inputs), sequential.run(inputs)), kPlanTolerance);
}

} // namespace
