// Runs read from a results database (profiler/store), in the form the views show: the timeline
// with a kernel row under each stream, and a ScheduleResult for the results table and comparison.
#pragma once

#include "engine/results/schedule_result.h"
#include "engine/timeline/timeline_data.h"

#include "store/records.h"

#include <memory>

namespace opsched {

// One op row per stream (the kernels of a launch merged into one box) and, when the run has
// kernels, a kernel row under each; stage bands, active warps and op labels from the run.
std::shared_ptr<const TimelineData> timelineFromRun(const store::RunRecord& run);

// The run as the views take a scheduler's result: scheduler, device, batch, median latency,
// average active warps, its timeline, and the record itself (for exports). The schedule is not
// parsed (that needs the model); output.schedule stays empty.
std::shared_ptr<const ScheduleResult> resultFromRun(store::RunRecord run);

// The other way: a result computed in the window recorded as `opsched-cli profile` records a
// simulated run (kernels, stages, warps), so the profiler's exports work on it. `modelRef` is
// what the model was opened as.
store::RunRecord recordFromResult(const Graph& graph, const std::string& modelRef, const ScheduleResult& result);

} // namespace opsched
