// Name scopes of an op graph, as TensorBoard's graph view groups ops: "l3.attn.q" lies in scopes
// l3 > attn, "/encoder/layer.3/attention/MatMul" in encoder > layer.3 > attention (names with a '/'
// split on '/', others on '.'; the last part is the op's own). A scope of fewer than two ops is no
// group, and a scope holding exactly one sub-scope's ops is merged with it ("encoder/layer.3").
//
// A view of the graph draws every collapsed scope as one node and, on request, a run of identical
// sibling scopes (a transformer's 12 encoder layers) as one stack node "x12". Collapsing can close a
// cycle (scope A -> op outside -> A again); the view then unfolds the stack or opens the scope on the
// cycle, so it stays a DAG that the layered layout can draw.
#pragma once

#include "graph/dag.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace opsched {

struct NameScope {
    std::string path; // the prefix its ops' names share ("l3.attn", "/encoder/layer.3"); empty: root
    std::string name; // its own part(s) of the path ("attn", "encoder/layer.3" when merged)
    int parent = -1;
    int depth = 0; // the root is 0
    std::vector<int> children; // sub-scopes, in order of their first op (topologically)
    std::vector<std::uint32_t> ownOps; // ops directly in it, not in a sub-scope, topologically
    std::vector<std::uint32_t> ops; // every op under it, topologically
    // Equal for scopes of the same structure: kinds and names relative to the scope, internal edges.
    std::string signature;
};

struct NameScopes {
    std::vector<NameScope> scopes; // [0] is the root, the whole graph
    std::vector<int> scopeOf; // per op: the innermost scope holding it
    std::vector<std::uint32_t> position; // per op: its place in the graph's topological order

    std::size_t size() const { return scopes.size(); }
    // Whether `ancestor` is `scope` or holds it.
    bool contains(int ancestor, int scope) const;
    // The scopes from the root's child down to `scope` (empty for the root).
    std::vector<int> pathTo(int scope) const;
};

// `names` and `kinds` give each op's name and kind (kinds enter only the signatures); `dag` is the
// op graph (its edges enter the signatures and order the scopes).
NameScopes buildNameScopes(const std::vector<std::string>& names, const std::vector<int>& kinds, const Dag& dag);

struct ScopeNode {
    enum class Kind { Op, Scope, Stack };
    Kind kind = Kind::Op;
    std::uint32_t op = 0; // Kind::Op
    std::vector<int> scopes; // Kind::Scope: the scope; Kind::Stack: the folded siblings, in order
    std::vector<std::uint32_t> ops; // every op the node stands for
};

struct ScopeView {
    std::vector<ScopeNode> nodes;
    std::vector<std::uint32_t> nodeOf; // per op: the node that draws it
    Dag dag; // between nodes: an edge where any op edge joins two different nodes
    std::vector<int> opened; // scopes shown open although collapsed, because collapsing closed a cycle
};

// `expanded[s]` says whether scope s shows its contents (the root always does; a missing entry is
// collapsed). With `foldRepeats`, consecutive collapsed siblings of equal signature fold into a stack.
ScopeView collapseScopes(const NameScopes& scopes, const Dag& dag, const std::vector<bool>& expanded, bool foldRepeats);

// The scopes to open so that a large graph is readable at first sight: level by level from the
// root, a whole level at a time (siblings look alike), while the nodes shown stay within `maxNodes`.
std::vector<bool> defaultExpansion(const NameScopes& scopes, std::size_t maxNodes);

// Every scope open: the plain op graph.
std::vector<bool> allExpanded(const NameScopes& scopes);

// A stack's label: "l0–l11" from its first and last scopes' names (their common start and end kept once
// where they share it: "layer.0–11").
std::string stackRangeLabel(const NameScopes& scopes, const ScopeNode& stack);

} // namespace opsched
