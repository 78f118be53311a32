// The simulator behind the StageTimer interface: stage times are the simulator's, the floor from
// ops timed alone lies below every scheduler's latency on every zoo network (so the floor column
// is a real bound on simulated devices too), and the identity changes with every constant.
#include "model/model_ref.h"
#include "schedule/critical_path.h"
#include "schedule/schedulers.h"
#include "sim/sim_stage_timer.h"

#include <gtest/gtest.h>

namespace opsched {
namespace {

TEST(SimStageTimer, FloorLiesBelowEveryScheduleOnEveryNetwork)
{
    for (bool cudaGraph : { false, true }) {
        for (const char* model : { "zoo:squeezenet", "zoo:googlenet", "zoo:inception_v3", "zoo:randwire" }) {
            const Graph g = loadModel(model, 1);
            SimStageTimer timer(findSimDevice("sim:v100"), SimOptions { cudaGraph });
            std::vector<double> ops;
            for (const auto& op : g.ops())
                ops.push_back(timer.timeOp(g, op.id));
            const CriticalPath floor = criticalPath(g, ops);
            ASSERT_GT(floor.seconds, 0) << model;
            ASSERT_FALSE(floor.ops.empty());
            SimulatedStageCost cost(timer.device(), timer.options());
            for (const auto& name : schedulerNames()) {
                const auto out = runScheduler(name, g, cost);
                const auto replays = timer.timePlan(g, out.plan, 3);
                ASSERT_EQ(replays.size(), 3U);
                EXPECT_EQ(replays[0], replays[2]); // deterministic
                EXPECT_LE(floor.seconds, replays[0]) << model << " " << name << (cudaGraph ? " graph" : "");
                // ...and not trivially: within a small factor of the best schedules.
                EXPECT_GT(floor.seconds * 6, replays[0]) << model << " " << name;
            }
        }
    }
}

TEST(SimStageTimer, StagesAreTheSimulatorsAndIdentityFollowsTheConstants)
{
    const Graph g = loadModel("zoo:squeezenet", 1);
    const SimDevice& h100 = findSimDevice("sim:h100");
    SimStageTimer timer(h100);
    SimulatedStageCost cost(h100);
    const Stage stage { StageStrategy::Concurrent, { { OpId(0) } } };
    EXPECT_EQ(timer.timeStage(g, stage), cost.stageLatency(g, stage));

    SimDevice other = h100;
    other.contention = 0.31;
    const TimerIdentity a = timer.identity();
    const TimerIdentity b = SimStageTimer(other).identity();
    EXPECT_EQ(a.device, "sim:h100");
    EXPECT_EQ(a.device, b.device);
    EXPECT_NE(a.driver, b.driver);
    EXPECT_NE(a.options, SimStageTimer(h100, SimOptions { true }).identity().options);
}

} // namespace
} // namespace opsched
