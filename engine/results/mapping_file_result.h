// A mapping file (what `opsched-cli map -o` writes; docs/formats.md) read for the open model and
// shown like a mapping computed in the window: the file's own costs and links give the timeline,
// so a mapping over measured devices (cpu:N, cuda:N) shows what the mapper predicted. A throughput
// file (objective "throughput") is shown as throughput_mapping_result.h draws it.
#pragma once

#include "engine/results/schedule_result.h"

#include <memory>
#include <string>

namespace opsched {

// Reads `path` against the open model (rebuilt at the file's batch when that differs). Throws
// Error with a message naming the file and the problem: unreadable, not JSON or cut short, made
// for another model or batch, no costs for an op (or a batch) on its device, a mapping that
// contradicts the graph, a throughput split that does not add up to its inputs.
std::shared_ptr<const ScheduleResult> loadMappingResult(const Graph& openGraph, const std::string& path);

// Whether `path` looks like a mapping file (a .json file that says "opsched-mapping" near its
// start), so that opening or dropping it loads it as a mapping rather than as a model.
bool looksLikeMappingFile(const std::string& path);

} // namespace opsched
