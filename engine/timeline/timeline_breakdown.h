// The speedup breakdown (profiler/analysis/speedup_breakdown.h) of two timelines as the window
// shows them (results computed here and stored runs alike): each timeline's kernel rows and host
// row read back as a run record, then explained.
#pragma once

#include "engine/timeline/timeline_data.h"

#include "analysis/speedup_breakdown.h"
#include "store/records.h"

namespace opsched {

// The kernels (from kernel rows), host calls and latency of a timeline as a run record (one
// latency, no variation); op names from its op labels when it has them.
store::RunRecord breakdownRecord(const TimelineData& data);

// A against B. Throws std::invalid_argument when either has no kernels (a mapping predicted from
// per-op costs, a run recorded without them).
analysis::SpeedupBreakdown explainTimelines(const TimelineData& a, const TimelineData& b);

} // namespace opsched
