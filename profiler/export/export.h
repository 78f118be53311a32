// Exports of one stored run: its schedule (or plan) file, a Chrome trace (Perfetto, chrome://tracing)
// of its timeline, or its kernels as CSV.
#pragma once

#include "store/records.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opsched::profiler {

enum class ExportFormat { Schedule, ChromeTrace, Csv };

// "schedule", "chrome-trace", "csv"; nullopt otherwise.
std::optional<ExportFormat> parseExportFormat(std::string_view name);
const char* toString(ExportFormat f);
// The usual file extension: .json, .trace.json, .csv
const char* fileSuffix(ExportFormat f);

// Chrome trace event format: one track per stream with the ops (launches) as complete ("X") events
// and, when present, stages on their own track; active warps (and SM-active %) as counter ("C")
// events; the plan's cross-stream waits and barrier joins as flow ("s"/"f") events, the arrows the
// window draws (core/plan/plan_flows.h); the host thread's calls on a "host" track. Microseconds
// relative to the run start.
nlohmann::ordered_json chromeTrace(const store::RunRecord& run);

// One line per kernel, Nsight Systems' column names plus the op it belongs to.
std::string kernelsCsv(const store::RunRecord& run);

// The export as text. Throws Error when the run has nothing to export in that format (a failed
// run has no schedule).
std::string exportRun(const store::RunRecord& run, ExportFormat format);

// Writes through a temporary file and a rename: an existing file is never left half written.
void writeTextFile(const std::string& path, const std::string& text);

// The ops of each plan launch of a run ("a+b" for a merged launch), from its stored plan.
std::vector<std::string> launchNames(const store::RunRecord& run);

} // namespace opsched::profiler
