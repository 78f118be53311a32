// MILP-SPLIT: DiviML's divide and conquer. The graph is cut at its separators (modules.h); each
// segment is solved by the MILP for every (device of the separator before it, device of the
// separator that ends it) and a dynamic program over the separators joins the best pieces:
//   dp(sep_k+1, v) = min over u of dp(sep_k, u) + OPT(segment k+1 | entry on u, exit on v).
// Exact for latency when every segment fits one MILP and every MILP is proven optimal (then the
// result says optimal). Segments larger than maxModuleTasks
// (multi-channel modules) are cut along a topological order into chunks solved one after the
// other, each starting from what the chunks before it left (release times, busy devices): that
// is where optimality may be lost, and the result says feasible with its gap to the lower bound.
#pragma once

#include "map/map_result.h"

namespace opsched::map {

MapResult mapMilpSplit(const MappingProblem& problem, const MapperOptions& options);

} // namespace opsched::map
