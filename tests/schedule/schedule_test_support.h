// Small helpers shared by the schedule and plan tests.
#pragma once

#include "graph/graph.h"

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

} // namespace opsched::test
