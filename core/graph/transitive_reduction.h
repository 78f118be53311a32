// Minimum equivalent graph of a DAG: the fewest edges with the same reachability (unique for DAGs).
// Schedulers and the DAG view use it to drop edges that add no constraint.
#pragma once

#include "graph/dag.h"
#include "graph/reachability.h"

namespace opsched {

Dag transitiveReduction(const Dag& dag, const Reachability& reach);
Dag transitiveReduction(const Dag& dag);

} // namespace opsched
