// The simulated V100 is fitted to the IOS paper (Figure 7, batch 1): sequential/IOS speedups
// within 20% of the paper's, and greedy slower than sequential on SqueezeNet. A change to the
// model that breaks the fit must be deliberate.
#include "model/model_ref.h"
#include "schedule/basic_schedulers.h"
#include "schedule/ios_scheduler.h"
#include "sim/simulator.h"

#include <gtest/gtest.h>

using namespace opsched;

namespace {

struct Target {
    const char* model;
    double iosSpeedup;
};

class V100Calibration : public ::testing::TestWithParam<Target> { };

double run(const Graph& g, const Schedule& s)
{
    return simulate(g, compileSchedule(g, s), findSimDevice("sim:v100")).latency;
}

TEST_P(V100Calibration, SequentialOverIosWithin20PercentOfThePaper)
{
    const Graph g = loadModel(GetParam().model);
    SimulatedStageCost cost(findSimDevice("sim:v100"));
    const IosResult ios = iosSchedule(g, cost); // r = 3, s = 8 as in the paper
    const double speedup = run(g, sequentialSchedule(g)) / run(g, ios.schedule);
    RecordProperty("speedup", std::to_string(speedup));
    EXPECT_NEAR(speedup / GetParam().iosSpeedup, 1.0, 0.2) << GetParam().model << " speedup " << speedup;
}

INSTANTIATE_TEST_SUITE_P(IosPaper, V100Calibration,
    ::testing::Values(Target { "zoo:inception_v3", 1.62 }, Target { "zoo:randwire", 1.41 },
        Target { "zoo:nasnet_a", 1.43 }, Target { "zoo:squeezenet", 1.18 }));

TEST(V100Calibration, GreedyIsSlowerThanSequentialOnSqueezeNet)
{
    const Graph g = loadModel("zoo:squeezenet");
    EXPECT_GT(run(g, greedySchedule(g)), run(g, sequentialSchedule(g)));
}

} // namespace
