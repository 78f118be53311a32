// Graphs and plans the host-side GPU tests sweep: random layered DAGs and small zoo networks under
// every scheduler, at batch 1 (in-place slices) and 2 (copies).
#pragma once

#include "model/model_ref.h"
#include "schedule/schedulers.h"
#include "sim/sim_device.h"

#include <cctype>
#include <ostream>
#include <string>
#include <vector>

namespace opsched::test {

struct PlanCase {
    std::string model;
    std::string scheduler;
    std::int64_t batch = 1;
};

// How gtest shows a case (instead of its bytes).
inline void PrintTo(const PlanCase& c, std::ostream* os)
{
    *os << c.model << " " << c.scheduler << " batch " << c.batch;
}

inline std::vector<PlanCase> planCases()
{
    std::vector<PlanCase> cases;
    const std::vector<std::string> models { "zoo:random?ops=30&width=4&seed=1", "zoo:random?ops=40&width=6&seed=2",
        "zoo:random?ops=25&width=3&seed=9", "zoo:squeezenet", "zoo:googlenet" };
    for (const auto& m : models)
        for (const auto& s : schedulerNames())
            for (std::int64_t b : { 1, 2 })
                cases.push_back({ m, s, b });
    return cases;
}

inline Plan planFor(const Graph& g, const std::string& scheduler)
{
    SimulatedStageCost cost(findSimDevice("sim:v100"));
    return runScheduler(scheduler, g, cost).plan;
}

inline std::string caseName(const PlanCase& c)
{
    std::string name = c.model.substr(4) + "_" + c.scheduler + "_b" + std::to_string(c.batch);
    for (auto& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch)))
            ch = '_';
    return name;
}

} // namespace opsched::test
