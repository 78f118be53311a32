// The catalogue of built-in networks and the `zoo:NAME?key=value&...` reference syntax.
#pragma once

#include "graph/graph.h"

#include <string>
#include <string_view>
#include <vector>

namespace opsched::zoo {

struct ZooEntry {
    std::string name;
    std::string summary;
    std::vector<std::string> parameters; // accepted keys
};

const std::vector<ZooEntry>& catalogue();

// `spec` is the part after "zoo:", e.g. "random?ops=30&width=4&seed=7". Throws ModelRefError
// naming the problem (unknown network, unknown or malformed parameter).
Graph build(std::string_view spec, std::int64_t batch);

// Why `graph` cannot be executed, for graphs built only to be costed and mapped (zoo:gpt3: its
// FP32 weights need 696 GB); empty for every graph that runs.
std::string costOnlyReason(const Graph& graph);

} // namespace opsched::zoo
