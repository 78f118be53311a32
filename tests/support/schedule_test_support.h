// Small helpers shared by the schedule and plan tests.
#pragma once

#include "graph/graph.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <string>
#include <vector>

namespace opsched::test {

inline OpId id(const Graph& g, const char* name)
{
    return *g.findOp(name);
}

// True when one of the problems contains `text`.
inline bool mentions(const std::vector<std::string>& problems, const std::string& text)
{
    for (const auto& p : problems)
        if (p.find(text) != std::string::npos)
            return true;
    return false;
}

// The connected components of the ops in `mask` (bit v: op v; graphs of up to 32 ops), edges taken
// either way: the groups a stage of exactly these ops has. Ops in id order, components in order of
// their first op.
inline std::vector<std::vector<OpId>> componentsOf(const Graph& g, std::uint32_t mask)
{
    std::vector<std::uint32_t> parent(g.opCount());
    std::iota(parent.begin(), parent.end(), 0U);
    auto find = [&](std::uint32_t x) {
        while (parent[x] != x)
            x = parent[x];
        return x;
    };
    for (std::uint32_t v = 0; v < g.opCount(); ++v)
        if (mask >> v & 1U)
            for (auto w : g.successors(OpId(v)))
                if (mask >> w & 1U)
                    parent[find(v)] = find(w);
    std::map<std::uint32_t, std::vector<OpId>> byRoot;
    for (std::uint32_t v = 0; v < g.opCount(); ++v)
        if (mask >> v & 1U)
            byRoot[find(v)].emplace_back(v);
    std::vector<std::vector<OpId>> out;
    for (auto& [_, members] : byRoot)
        out.push_back(std::move(members));
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace opsched::test
