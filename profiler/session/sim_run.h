// Runs on the simulated GPU recorded like measured ones: the simulator's kernel timeline fills the
// kernels table, its active-warps step function the warp samples, all marked simulated, so that
// compare, export and the views work on any machine.
#pragma once

#include "schedule/schedulers.h"
#include "sim/simulator.h"
#include "store/records.h"

#include <string>

namespace opsched::profiler {

store::DeviceRecord simDeviceRecord(const SimDevice& device);

// The model's identity and op list (index = op id).
store::ModelRecord modelRecord(const Graph& graph, const std::string& ref);

// The schedule (or plan) file as `schedule -o` writes it, and the plan that ran.
store::ScheduleRecord scheduleRecord(const Graph& graph, const SchedulerOutput& out, const std::string& deviceKey,
    bool cudaGraph, double latencySeconds);

struct SimRunOptions {
    SimOptions sim;
    int repeats = 1; // the simulator is deterministic: every repeat gives the same latency
    bool warps = false; // record the warp samples and their average
};

// Simulates the plan `repeats` times and fills latencies, stage latencies (stage schedules),
// kernels and, with `warps`, warp samples. Identity fields (job key, model, device, schedule,
// times) are left to the caller.
void fillSimulatedRun(store::RunRecord& run, const Graph& graph, const SchedulerOutput& out, const SimDevice& device,
    const SimRunOptions& options);

} // namespace opsched::profiler
