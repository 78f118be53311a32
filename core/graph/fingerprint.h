// A batch-independent SHA-256 of a model's structure (op names, types, wiring, layer kinds,
// weight and output shapes). Schedule files carry it so a schedule is never applied to a model it
// was not made for.
#pragma once

#include "graph/graph.h"

#include <string>

namespace opsched {

std::string modelFingerprint(const Graph& graph);

} // namespace opsched
