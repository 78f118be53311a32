// `compare MODEL --objective pipeline`: every pipeline mapper (the GPT-3 case study's objective) on
// one problem, side by side, each against the paper's "single node, replicated" baseline (Table V's
// ratios); engine/map_actions.h computes the table, this prints it.
#pragma once

#include <nlohmann/json.hpp>

namespace opsched::cli {

void printPipelineTable(const nlohmann::ordered_json& doc);

} // namespace opsched::cli
