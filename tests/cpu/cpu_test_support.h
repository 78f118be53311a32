// What the CPU executor's tests share: one thread (ctest runs two tests at once on two cores),
// the sequential plan, and a run of a graph on given inputs.
#pragma once

#include "exec/cpu/cpu_executor.h"
#include "reference.h"
#include "schedule/basic_schedulers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace opsched::test {

inline const cpu::CpuOptions kOneThread = [] {
    cpu::CpuOptions o;
    o.threads = 1;
    return o;
}();

// What the plan checks allow: max|actual - sequential| <= kPlanTolerance x max|sequential| (float32
// through another kernel order; relative, so it means the same for outputs of any scale).
inline constexpr float kPlanTolerance = 1e-4F;

inline float maxAbs(const std::vector<float>& values)
{
    float m = 0.0F;
    for (float v : values)
        m = std::max(m, std::abs(v));
    return m;
}

// max|got - want| / max|want| over all outputs: what the plan checks compare with kPlanTolerance.
inline float planError(const std::vector<std::vector<float>>& got, const std::vector<std::vector<float>>& want)
{
    float scale = 0.0F;
    for (const auto& o : want)
        scale = std::max(scale, maxAbs(o));
    return maxAbsDiff(got, want) / (scale > 0.0F ? scale : 1.0F);
}

inline Plan sequentialPlan(const Graph& g)
{
    return compileSchedule(g, sequentialSchedule(g));
}

// The graph's outputs for `inputs` under the sequential plan, on one thread.
inline std::vector<std::vector<float>> runSequential(const Graph& g, const std::vector<std::vector<float>>& inputs)
{
    cpu::CpuExecutor ex(g, sequentialPlan(g), kOneThread);
    return ex.run(inputs);
}

// The executor against the naive reference on `inputs` (seeded ones when empty), within
// `tolerance` of the largest reference value; also a consistent memory layout and a second run
// that gives the same bytes.
inline void expectMatchesReference(const Graph& g, float tolerance = 2e-5F, std::vector<std::vector<float>> inputs = {})
{
    if (inputs.empty())
        inputs = cpu::seededInputs(g, 11);
    cpu::CpuExecutor ex(g, sequentialPlan(g), kOneThread);
    const auto got = ex.run(inputs);
    const auto want = referenceRun(g, inputs);
    float scale = 1.0F;
    for (const auto& o : want)
        for (float v : o)
            scale = std::max(scale, std::abs(v));
    EXPECT_LE(maxAbsDiff(got, want), tolerance * scale) << g.name();
    const auto problems = ex.layout().check();
    EXPECT_TRUE(problems.empty()) << problems.front();
    EXPECT_EQ(ex.run(inputs), got) << g.name() << ": a second run differs";
}

} // namespace opsched::test
