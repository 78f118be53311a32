// Inception v3 under ios-merge: its 1x3 / 3x1 pairs (and 1x1 triples) run as one stacked
// convolution each and give the sequential plan's outputs.
#include "cpu_test_support.h"
#include "model/model_ref.h"
#include "schedule/basic_schedulers.h"
#include "schedule/schedulers.h"
#include "sim/sim_device.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace opsched;

TEST(InceptionOnCpu, MergedOneByThreeAndThreeByOnePairsMatchSequential)
{
    const Graph g = loadModel("zoo:inception_v3");
    SimulatedStageCost cost(findSimDevice("sim:v100"));
    const Plan plan = runScheduler("ios-merge", g, cost).plan;
    const OpId a = *g.findOp("Mixed_7b.branch3x3_2a"), b = *g.findOp("Mixed_7b.branch3x3_2b");
    EXPECT_TRUE(std::any_of(plan.launches.begin(), plan.launches.end(), [&](const Launch& l) {
        return l.ops.size() == 2 && std::find(l.ops.begin(), l.ops.end(), a) != l.ops.end()
            && std::find(l.ops.begin(), l.ops.end(), b) != l.ops.end();
    })) << "ios-merge no longer merges the 1x3 / 3x1 pair";
    const auto inputs = cpu::seededInputs(g, 3);
    cpu::CpuExecutor merged(g, plan);
    const auto got = merged.run(inputs);
    cpu::CpuExecutor sequential(g, compileSchedule(g, sequentialSchedule(g)));
    EXPECT_LE(opsched::test::planError(got, sequential.run(inputs)), opsched::test::kPlanTolerance);
    EXPECT_TRUE(merged.layout().check().empty());
}
