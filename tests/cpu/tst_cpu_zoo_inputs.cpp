// Every zoo network's outputs depend on its input: two seeded inputs give outputs that differ by at
// least 100 times the tolerance the CPU checks compare plans with (and fail run --check's rule), so
// a check that passes means the plan computed this input's answer, not a near-constant. Prints
// the figures (max|y|, difference).
#include "cpu_test_support.h"
#include "exec/output_check.h"
#include "model/model_ref.h"
#include "zoo/zoo.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

using namespace opsched;

namespace {

// The zoo's networks at sizes a test can afford: transformers on short sequences, the rest as built.
std::vector<std::string> zooModels()
{
    std::vector<std::string> out;
    for (const auto& e : zoo::catalogue()) {
        if (e.name == "gpt3")
            continue; // cost-only (zoo::costOnlyReason): 696 GB of weights, built to be mapped, never run
        const bool transformer = e.name == "bert" || e.name == "gpt2" || e.name == "t5";
        out.push_back("zoo:" + e.name + (transformer ? "?seq=32" : ""));
    }
    return out;
}

class ZooInputs : public ::testing::TestWithParam<std::string> { };

TEST_P(ZooInputs, OutputsDependOnTheInput)
{
    const Graph g = loadModel(GetParam());
    cpu::CpuExecutor ex(g, test::sequentialPlan(g), test::kOneThread);
    const auto y1 = ex.run(cpu::seededInputs(g, 1));
    const auto y2 = ex.run(cpu::seededInputs(g, 2));
    for (std::size_t k = 0; k < y1.size(); ++k) {
        const Tensor& out = g.tensor(g.outputs()[k]);
        const float relative = test::planError({ y2[k] }, { y1[k] });
        std::printf("%-24s %-28s max|y| %.3e  max|y1-y2|/max|y1| %.3e  tolerance %.0e\n", GetParam().c_str(),
            out.name.c_str(), test::maxAbs(y1[k]), relative, test::kPlanTolerance);
        EXPECT_GE(relative, 100 * test::kPlanTolerance) << out.name;
        EXPECT_FALSE(compareOutput(out.name, y2[k], out.shape.dims, y1[k], out.shape.dims, Tolerance {}).passed);
    }
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooInputs, ::testing::ValuesIn(zooModels()),
    [](const auto& param) { return param.param.substr(4, param.param.find('?') - 4); });

} // namespace
