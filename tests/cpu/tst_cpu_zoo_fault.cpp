// Fault injection: the CPU plan checks catch a wrong weight deep in a zoo network. One conv of
// Inception V3's last block with its weights 5% too large, run under each scheduler's plan, fails
// the check every plan passes unperturbed: the test against the sequential plan (tst_cpu_zoo's,
// kPlanTolerance of the largest output) and run --check's element-wise rule (exec/output_check.h,
// its default tolerance). Prints the errors.
#include "cpu_test_support.h"
#include "exec/output_check.h"
#include "graph/graph_builder.h"
#include "model/model_ref.h"
#include "schedule/schedulers.h"
#include "sim/sim_device.h"

#include <gtest/gtest.h>

#include <cstdio>

using namespace opsched;

namespace {

// A copy of `g` with the weights of `name` scaled by `factor`.
Graph withScaledWeight(const Graph& g, const std::string& name, float factor)
{
    for (const auto& t : g.tensors())
        if (t.role == TensorRole::Weight && t.name == name) {
            auto values = t.weight->values(static_cast<std::size_t>(t.shape.elements()));
            for (auto& v : values)
                v *= factor;
            return GraphBuilder::withWeight(g, t.id, WeightData::stored(std::move(values)));
        }
    throw std::runtime_error("no weight " + name);
}

bool checkPasses(
    const Graph& g, const std::vector<std::vector<float>>& got, const std::vector<std::vector<float>>& want)
{
    bool pass = true;
    for (std::size_t k = 0; k < want.size(); ++k) {
        const auto& shape = g.tensor(g.outputs()[k]).shape.dims;
        pass = pass && compareOutput("y", got[k], shape, want[k], shape, Tolerance {}).passed;
    }
    return pass;
}

TEST(ZooFault, FivePercentOnOneLateConvFailsThePlanChecks)
{
    const Graph g = loadModel("zoo:inception_v3");
    const Graph faulty = withScaledWeight(g, "Mixed_7c.branch3x3dbl_2.weight", 1.05F);
    const auto inputs = cpu::seededInputs(g, 1);
    const auto want = test::runSequential(g, inputs);
    SimulatedStageCost cost(findSimDevice("sim:v100"));
    for (const char* scheduler : { "greedy", "ios", "nimble", "opara" }) {
        const Plan plan = runScheduler(scheduler, g, cost).plan;
        const auto good = cpu::CpuExecutor(g, plan, test::kOneThread).run(inputs);
        const auto bad = cpu::CpuExecutor(faulty, plan, test::kOneThread).run(inputs);
        const float goodError = test::planError(good, want), badError = test::planError(bad, want);
        std::printf("%-7s max|y - sequential| / max|sequential|: unperturbed %.2e, faulty %.2e (tolerance %.0e)\n",
            scheduler, goodError, badError, test::kPlanTolerance);
        EXPECT_LE(goodError, test::kPlanTolerance) << scheduler;
        EXPECT_GT(badError, test::kPlanTolerance) << scheduler;
        EXPECT_TRUE(checkPasses(g, good, want)) << scheduler;
        EXPECT_FALSE(checkPasses(g, bad, want)) << scheduler;
    }
}

} // namespace
