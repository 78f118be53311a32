// Two runs of one model compared op by op: where each op started, how long it ran and on which
// stream in run A and in run B. A value type computed from two TimelineData alone (the Diff view
// shows it; its speed-up breakdown is timeline_breakdown.h's).
#pragma once

#include "engine/timeline/timeline_data.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace opsched {

struct OpDiff {
    std::uint32_t op = 0;
    std::string name;
    std::optional<OpPlacement> a, b; // empty: the op did not run (or ran no kernel) in that run

    bool inBoth() const { return a && b; }
    double startDelta() const { return inBoth() ? b->start - a->start : 0.0; }
    double durationDelta() const { return inBoth() ? b->duration() - a->duration() : 0.0; }
    bool streamChanged() const { return inBoth() && a->stream != b->stream; }
};

struct RunDiff {
    std::vector<OpDiff> ops; // by op id
    double latencyA = 0, latencyB = 0;
    std::size_t onlyInA = 0, onlyInB = 0, streamChanges = 0;
    double latencyDelta() const { return latencyB - latencyA; }
};

// Ops matched by id. `name(id)` names ops (default: data's opLabels, else "op N").
RunDiff diffRuns(
    const TimelineData& a, const TimelineData& b, const std::function<std::string(std::uint32_t)>& name = {});

} // namespace opsched
