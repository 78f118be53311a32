// The execution plan: the one contract between schedulers and backends. A launch order of ops,
// a stream per launch, the cross-stream waits (event edges), and barriers (stage boundaries,
// executed as join/fork events). Stage schedules compile into plans; Nimble and Opara emit plans
// directly. Every backend runs plans only.
#pragma once

#include "graph/graph.h"
#include "plan/schedule.h"
#include "util/bitset.h"

#include <cstdint>
#include <string>
#include <vector>

namespace opsched {

struct Launch {
    std::vector<OpId> ops; // one op, or several mergeable convs run as one stacked kernel
    StreamId stream;
    std::vector<std::uint32_t> waitFor; // earlier launches on other streams this one waits for

    bool merged() const { return ops.size() > 1; }
    friend bool operator==(const Launch&, const Launch&) = default;
};

struct Plan {
    std::uint32_t streams = 1;
    std::vector<Launch> launches; // host launch order
    std::vector<std::uint32_t> barriers; // launch indices: launch i and later start after all before i

    std::size_t waitCount() const;
    friend bool operator==(const Plan&, const Plan&) = default;
};

// Every problem with a plan for `graph`, empty when valid: each op launched exactly once, streams
// in range, waits pointing backwards to other streams, barrier positions in range, every
// dependency ordered by stream order, a wait chain or a barrier, merged launches mergeable.
std::vector<std::string> validate(const Graph& graph, const Plan& plan);

// before[i]: the launches guaranteed to finish before launch i starts (stream order, waits and
// barriers, transitively). The plan must be structurally sound (streams and waits in range, as
// validate checks first); backends use it to decide which buffers may share bytes.
std::vector<DynamicBitset> launchHappensBefore(const Plan& plan);

// Group g of every stage runs on stream g; stage boundaries become barriers. Launches are issued
// round-robin over the groups of a stage so every stream gets work early. A merge stage is one
// launch on stream 0.
Plan compileSchedule(const Graph& graph, const Schedule& schedule);

} // namespace opsched
