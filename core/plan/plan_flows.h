// The arrows a timeline draws for a plan: which launch's end lets which launch start, across
// streams. Event waits, looked through launches that run no kernel (a concat written in place, a
// view), which no timeline draws: what waits for such a launch waits for what it waited for, and
// the launch after it on its stream inherits its waits (the join into a concat shows as a join into
// its consumer). Barriers give one join per stream, from the launch that ended last before the
// barrier to the first launch of every other stream after it. The window and the Chrome trace
// export draw the same arrows from this.
#pragma once

#include "plan/plan.h"

#include <cstdint>
#include <vector>

namespace opsched {

struct PlanFlow {
    std::uint32_t from = 0; // launch whose end releases ...
    std::uint32_t to = 0; // ... this launch's start
    bool join = false; // a barrier's join rather than an event wait
};

// `drawn[l]`: launch l ran kernels (has a span); `end[l]`: when it ended (for barrier joins).
// Both sized to plan.launches; otherwise empty. Only flows between different streams, both drawn.
std::vector<PlanFlow> planFlows(const Plan& plan, const std::vector<bool>& drawn, const std::vector<double>& end);

} // namespace opsched
