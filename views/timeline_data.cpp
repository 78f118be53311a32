#include "timeline_data.h"

#include <algorithm>
#include <limits>

namespace opsched {

StreamRowsBuilder::StreamRowsBuilder(TimelineData& data, std::vector<std::int64_t> streams)
    : data_(data), streams_(std::move(streams))
{
    std::sort(streams_.begin(), streams_.end());
    streams_.erase(std::unique(streams_.begin(), streams_.end()), streams_.end());
    for (auto s : streams_) {
        data_.rowNames.push_back("stream " + std::to_string(s));
        data_.rowKinds.push_back(TimelineRowKind::Ops);
        data_.rowNames.push_back("  kernels");
        data_.rowKinds.push_back(TimelineRowKind::Kernels);
    }
}

std::size_t StreamRowsBuilder::opRow(std::int64_t stream) const
{
    return 2 * static_cast<std::size_t>(std::lower_bound(streams_.begin(), streams_.end(), stream) - streams_.begin());
}

void StreamRowsBuilder::addOp(std::int64_t stream, double start, double end, std::uint32_t op, std::uint32_t colour)
{
    data_.rows.addSpan(opRow(stream), {start, end, op, colour});
}

void StreamRowsBuilder::addKernel(std::int64_t stream, double start, double end, std::uint32_t colour,
                                  TimelineKernel kernel)
{
    const auto index = static_cast<std::uint32_t>(data_.kernels.size());
    data_.kernels.push_back(std::move(kernel));
    data_.rows.addSpan(opRow(stream) + 1, {start, end, index, colour});
}

TimelineData timelineFromSimulation(const Graph& graph, const Plan& plan, const SimResult& result,
                                    const SimDevice& device)
{
    TimelineData data;
    std::vector<std::int64_t> streams;
    for (std::uint32_t s = 0; s < plan.streams; ++s)
        streams.push_back(s);
    StreamRowsBuilder rows(data, std::move(streams));

    // One span per launch: from its first kernel's start to its last kernel's end.
    std::vector<double> start(plan.launches.size(), std::numeric_limits<double>::infinity());
    std::vector<double> end(plan.launches.size(), -std::numeric_limits<double>::infinity());
    std::vector<std::uint32_t> parts(plan.launches.size(), 0);
    for (const auto& k : result.kernels) {
        start[k.launch] = std::min(start[k.launch], k.start);
        end[k.launch] = std::max(end[k.launch], k.end);
        ++parts[k.launch];
    }
    for (std::size_t l = 0; l < plan.launches.size(); ++l) {
        if (!(start[l] <= end[l]))
            continue; // no kernel: a view
        const Launch& launch = plan.launches[l];
        for (auto op : launch.ops)
            rows.addOp(launch.stream.value(), start[l], end[l], op.value(),
                       static_cast<std::uint32_t>(graph.op(op).kind));
    }
    // Each kernel in its stream's kernel row, named as a simulated run records it ("a+b/k1").
    data.kernels.reserve(result.kernels.size());
    for (const auto& k : result.kernels) {
        const Launch& launch = plan.launches[k.launch];
        const OpId first = launch.ops.front();
        std::string name;
        for (auto op : launch.ops)
            name += (name.empty() ? "" : "+") + graph.op(op).name;
        if (launch.merged() || parts[k.launch] > 1)
            name += "/k" + std::to_string(k.part);
        rows.addKernel(k.stream.value(), k.start, k.end, static_cast<std::uint32_t>(graph.op(first).kind),
                       {std::move(name), first.value(), k.warps, {}});
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
