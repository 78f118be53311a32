// DiviML's lower bound (Section IV-B1) over MILP-SPLIT's module chain, with the OPTIMUM of each
// module-sized piece (exact search, proven) where the paper has OPT; where a piece is too large to
// solve, spans several modules, or its search hits the node limit, the larger of simpleLowerBound
// and the search's root bound (exactSearchRootBound: device windows, chains, loads); for a single
// stretch it does not solve, the bound its searches prove with targets as cutoffs
// (exactSearchProvenBound) while the probes' node budget lasts.
//
// Between separators the join is exact, so the bound is a dynamic program over the separators'
// devices: dp(exit on e) = min over d of dp(entry on d) + B(stretch | entry on d, exit on e), with
// B the stretch's proven optimum when it is one module, else the larger of its chain bound and
// simpleLowerBound. Inside a stretch cut at multi-channel boundaries M_1..M_r (G_s = M_s and the
// modules after it, dep(I) = I and its descendants, pre(O) = O and its ancestors in a module):
//   LB(G_s) >= OPT(M_s) + min over inputs I of G_{s+1} fed by M_s of f(I)
//              (every task of M_s reaches G_{s+1}: the last of M_s to end precedes all of some dep(I));
//   LB(G_s) >= LB(G_{s+1}) + min over outputs O of M_s of OPT(pre(O))
//              (every task of G_{s+1} is reached from M_s: the first of G_{s+1} to start waits for a pre(O));
//   f(I) = LB(dep(I)) >= OPT(dep(I) in I's module) + min over the inputs I' it feeds of f(I'),
//                     >= max over those I' of f(I') + min over its outputs O of OPT(pre(O) in dep(I)).
// Transfers are not counted across channels (they may be zero), so the bound stays valid.
#pragma once

#include "map/problem/map_result.h"
#include "map/problem/mapping_problem.h"

#include <cstdint>

namespace opsched::map {

struct ModuleBoundOptions {
    std::size_t maxModuleTasks = kDefaultMaxModuleTasks; // the module cap the chain is cut with
    std::uint64_t nodesPerSolve = 40000; // exact search limit per piece; past it, simpleLowerBound
    // A module too large to solve here: searches with a target as cutoff prove bounds above the
    // root's (exactSearchProvenBound), this many of this many nodes each.
    int probes = 8;
    std::uint64_t nodesPerProbe = 25000;
    std::uint64_t probeNodes = 600000; // the nodes all probes of one bound visit (about 3 s at most)
};

// The bound for the whole problem; 0 where it does not apply (release times).
double moduleChainLowerBound(const MappingProblem& problem, const ModuleBoundOptions& options = {});

// Whether that bound will probe (a stretch it does not solve, of at most kExactSearchLimit
// tasks): up to ModuleBoundOptions::probeNodes nodes, about 3 s, that a time limit should leave.
bool moduleChainBoundProbes(const MappingProblem& problem, const ModuleBoundOptions& options = {});

} // namespace opsched::map
