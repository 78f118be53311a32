// The speedup breakdown (profiler/analysis/speedup_breakdown.h) as `explain` and `compare
// --explain` print it: text and JSON.
#pragma once

#include "engine/results_database.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

namespace opsched::cli {

// "scheduler run N" for a run, e.g. "ios (run 15)".
std::string runLabel(const store::RunRecord& run);

nlohmann::ordered_json breakdownJson(
    const store::RunRecord& a, const store::RunRecord& b, const analysis::SpeedupBreakdown& r, std::size_t topOps);
void printBreakdown(
    const store::RunRecord& a, const store::RunRecord& b, const analysis::SpeedupBreakdown& r, std::size_t topOps);

// The leading terms in one line, for `compare --explain`: "overlap 62%, launch idle 30%, ...".
std::string leadingTerms(const analysis::SpeedupBreakdown& r, std::size_t count);

} // namespace opsched::cli
