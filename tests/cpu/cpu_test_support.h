// What the CPU executor's tests share: one thread (ctest runs two tests at once on two cores),
// the sequential plan, and a run of a graph on given inputs.
#pragma once

#include "exec/cpu/cpu_executor.h"
#include "schedule/basic_schedulers.h"

#include <vector>

namespace opsched::test {

inline const cpu::CpuOptions kOneThread = [] {
    cpu::CpuOptions o;
    o.threads = 1;
    return o;
}();

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

} // namespace opsched::test
