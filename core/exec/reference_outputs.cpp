#include "exec/reference_outputs.h"

#include "exec/cpu/cpu_executor.h"
#include "plan/plan.h"
#include "schedule/basic_schedulers.h"

namespace opsched {

std::vector<std::vector<float>> singleDeviceOutputs(const Graph& graph, const std::vector<std::vector<float>>& inputs)
{
    cpu::CpuExecutor executor(graph, compileSchedule(graph, sequentialSchedule(graph)));
    return executor.run(inputs);
}

} // namespace opsched
