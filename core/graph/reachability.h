// Transitive closure of a DAG as bitsets: who reaches whom, in O(1) per query.
#pragma once

#include "graph/dag.h"
#include "util/bitset.h"

namespace opsched {

class Reachability {
public:
    // The DAG must be acyclic (a built Graph always is). Throws GraphError otherwise.
    explicit Reachability(const Dag& dag);

    std::size_t size() const { return descendants_.size(); }
    // Nodes reachable from v by a path of length >= 1 (v itself excluded).
    const DynamicBitset& descendants(std::uint32_t v) const { return descendants_[v]; }
    const DynamicBitset& ancestors(std::uint32_t v) const { return ancestors_[v]; }
    bool reaches(std::uint32_t from, std::uint32_t to) const { return descendants_[from].test(to); }
    // True when a path joins the two nodes in either direction (or they are the same node).
    bool comparable(std::uint32_t a, std::uint32_t b) const { return a == b || reaches(a, b) || reaches(b, a); }

private:
    std::vector<DynamicBitset> descendants_;
    std::vector<DynamicBitset> ancestors_;
};

} // namespace opsched
