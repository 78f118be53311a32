// A result as the files a user takes elsewhere, for the window's File > Export and the CLI alike: the
// schedule file the CLI reads back (`evaluate --schedule`, or a mapping's own file), and the
// timeline as a Chrome trace or its kernels as CSV (profiler/export, as `opsched-cli export`
// writes them). Each throws Error naming why it cannot write.
#pragma once

#include "engine/results/schedule_result.h"

#include <string>

namespace opsched {

// An opsched-schedule (or opsched-plan) file; a run read from a database writes the file it ran
// (`graph` may then be null), a mapping its mapping file. A throughput mapping has none here.
void writeResultSchedule(const std::string& file, const Graph* graph, const ScheduleResult& result);

enum class TraceFormat { ChromeTrace, KernelsCsv };

// The timeline: a run from a database as stored; a result computed here recorded as the profiler
// records a simulated run first (needs `graph`, opened as `modelRef`).
void writeResultTrace(const std::string& file, TraceFormat format, const Graph* graph, const std::string& modelRef,
    const ScheduleResult& result);

} // namespace opsched
