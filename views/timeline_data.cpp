#include "timeline_data.h"

#include <algorithm>
#include <limits>

namespace opsched {

TimelineData timelineFromSimulation(const Graph& graph, const Plan& plan, const SimResult& result,
                                    const SimDevice& device)
{
    TimelineData data;
    for (std::uint32_t s = 0; s < plan.streams; ++s)
        data.rowNames.push_back("stream " + std::to_string(s));
    // One span per launch: from its first kernel's start to its last kernel's end.
    std::vector<double> start(plan.launches.size(), std::numeric_limits<double>::infinity());
    std::vector<double> end(plan.launches.size(), -std::numeric_limits<double>::infinity());
    for (const auto& k : result.kernels) {
        start[k.launch] = std::min(start[k.launch], k.start);
        end[k.launch] = std::max(end[k.launch], k.end);
    }
    for (std::size_t l = 0; l < plan.launches.size(); ++l) {
        if (!(start[l] <= end[l]))
            continue; // no kernel: a view
        const Launch& launch = plan.launches[l];
        for (auto op : launch.ops)
            data.rows.addSpan(launch.stream.value(),
                              {start[l], end[l], op.value(), static_cast<std::uint32_t>(graph.op(op).kind)});
    }
    data.rows.finish();

    // Stage bands: the launches between barriers.
    std::vector<std::uint32_t> cuts = plan.barriers;
    std::sort(cuts.begin(), cuts.end());
    cuts.push_back(static_cast<std::uint32_t>(plan.launches.size()));
    std::uint32_t first = 0;
    for (auto cut : cuts) {
        double s = std::numeric_limits<double>::infinity(), e = -s;
        for (std::uint32_t l = first; l < cut; ++l)
            if (start[l] <= end[l]) {
                s = std::min(s, start[l]);
                e = std::max(e, end[l]);
            }
        if (s <= e && !plan.barriers.empty())
            data.stages.emplace_back(s, e);
        first = cut;
    }
    data.warps = result.warps;
    data.maxWarps = device.maxResidentWarps();
    data.latency = result.latency;
    return data;
}

} // namespace opsched
