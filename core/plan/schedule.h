// A stage schedule, the IOS model of what runs when: ordered stages; the groups of a stage run
// concurrently (one stream each), the ops of a group run in order, and a stage starts when the
// previous one has finished. A merge stage runs all its ops as one stacked kernel.
#pragma once

#include "graph/graph.h"

#include <string>
#include <vector>

namespace opsched {

enum class StageStrategy : std::uint8_t { Concurrent, Merge };

const char* toString(StageStrategy s);

struct Stage {
    StageStrategy strategy = StageStrategy::Concurrent;
    std::vector<std::vector<OpId>> groups;

    std::size_t opCount() const;
    friend bool operator==(const Stage&, const Stage&) = default;
};

struct Schedule {
    std::vector<Stage> stages;

    std::size_t opCount() const;
    friend bool operator==(const Schedule&, const Schedule&) = default;
};

// Every problem with a schedule for `graph`, each naming the ops involved; empty when valid.
// Checks: every op exactly once; dependencies point to earlier stages or earlier in the same
// group; ops joined by an edge inside one stage sit in one group; merge stages hold mergeable
// convs only (same input, same stride, same activation, groups 1: IOS section 3), or matmuls by
// constant matrices that read the same input with the same activation (Q, K, V projections).
std::vector<std::string> validate(const Graph& graph, const Schedule& schedule);

// Why `ops` cannot be merged into one conv (or one GEMM), or empty when they can.
std::string mergeProblem(const Graph& graph, const std::vector<OpId>& ops);

} // namespace opsched
