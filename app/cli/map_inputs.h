// The options of `map` and `compare --devices` that name where the problem comes from besides
// --devices: --costs, --topology, --links, --write-costs, --symmetry. What they do is
// the engine's (engine/map_inputs.h).
#pragma once

#include "common_options.h"

#include "engine/map_inputs.h"

#include <CLI/CLI.hpp>

namespace opsched::cli {

// --costs, --topology, --links, --write-costs, --symmetry.
void addMapInputOptions(CLI::App& cmd, MapInputOptions& o);

} // namespace opsched::cli
