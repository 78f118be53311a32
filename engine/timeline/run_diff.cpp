#include "engine/timeline/run_diff.h"

#include <algorithm>

namespace opsched {

RunDiff diffRuns(const TimelineData& a, const TimelineData& b, const std::function<std::string(std::uint32_t)>& name)
{
    RunDiff diff;
    diff.latencyA = std::max(a.latency, a.rows.lastEnd());
    diff.latencyB = std::max(b.latency, b.rows.lastEnd());
    const auto pa = opPlacements(a), pb = opPlacements(b);
    const std::size_t n = std::max(pa.size(), pb.size());
    for (std::size_t id = 0; id < n; ++id) {
        OpDiff d;
        d.op = static_cast<std::uint32_t>(id);
        if (id < pa.size())
            d.a = pa[id];
        if (id < pb.size())
            d.b = pb[id];
        if (!d.a && !d.b)
            continue;
        if (name)
            d.name = name(d.op);
        else if (id < a.opLabels.size())
            d.name = a.opLabels[id].substr(0, a.opLabels[id].find('\n'));
        else if (id < b.opLabels.size())
            d.name = b.opLabels[id].substr(0, b.opLabels[id].find('\n'));
        else
            d.name = "op " + std::to_string(id);
        diff.onlyInA += d.a && !d.b ? 1 : 0;
        diff.onlyInB += d.b && !d.a ? 1 : 0;
        diff.streamChanges += d.streamChanged() ? 1 : 0;
        diff.ops.push_back(std::move(d));
    }
    return diff;
}

} // namespace opsched
