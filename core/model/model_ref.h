// Model references, the one way every command names a model: `zoo:NAME[?k=v&...]` or a file path.
#pragma once

#include "graph/graph.h"

#include <string_view>

namespace opsched {

inline constexpr std::string_view kZooPrefix = "zoo:";

// Throws ModelRefError (or GraphError) with a message naming the problem.
Graph loadModel(std::string_view ref, std::int64_t batch = 1);

} // namespace opsched
