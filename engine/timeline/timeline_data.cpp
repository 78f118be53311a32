#include "engine/timeline/timeline_data.h"

#include "plan/plan_flows.h"

#include <algorithm>
#include <limits>

namespace opsched {

StreamRowsBuilder::StreamRowsBuilder(TimelineData& data, std::vector<std::int64_t> streams)
    : data_(data)
    , streams_(std::move(streams))
{
    std::sort(streams_.begin(), streams_.end());
    streams_.erase(std::unique(streams_.begin(), streams_.end()), streams_.end());
    for (auto s : streams_) {
        data_.rowNames.push_back("stream " + std::to_string(s));
        data_.rowKinds.push_back(TimelineRowKind::Ops);
        data_.rowStreams.push_back(s);
        data_.rowNames.push_back("  kernels");
        data_.rowKinds.push_back(TimelineRowKind::Kernels);
        data_.rowStreams.push_back(s);
    }
}

std::size_t StreamRowsBuilder::opRow(std::int64_t stream) const
{
    return 2 * static_cast<std::size_t>(std::lower_bound(streams_.begin(), streams_.end(), stream) - streams_.begin());
}

void StreamRowsBuilder::addOp(std::int64_t stream, double start, double end, std::uint32_t op, std::uint32_t colour)
{
    data_.rows.addSpan(opRow(stream), { start, end, op, colour });
}

void StreamRowsBuilder::addKernel(
    std::int64_t stream, double start, double end, std::uint32_t colour, TimelineKernel kernel)
{
    const auto index = static_cast<std::uint32_t>(data_.kernels.size());
    data_.kernels.push_back(std::move(kernel));
    data_.rows.addSpan(opRow(stream) + 1, { start, end, index, colour });
}

void StreamRowsBuilder::useTransferRows(const std::string& name)
{
    for (std::size_t r = 0; r < data_.rowKinds.size(); ++r)
        if (data_.rowKinds[r] == TimelineRowKind::Kernels) {
            data_.rowKinds[r] = TimelineRowKind::Transfers;
            data_.rowNames[r] = name;
        }
}

void StreamRowsBuilder::addTransfer(
    std::int64_t toStream, double start, double end, std::uint32_t colour, TimelineTransfer transfer)
{
    const auto index = static_cast<std::uint32_t>(data_.transfers.size());
    data_.transfers.push_back(std::move(transfer));
    data_.rows.addSpan(opRow(toStream) + 1, { start, end, index, colour });
}

bool TimelineData::hasKernelRows() const
{
    return std::any_of(
        rowKinds.begin(), rowKinds.end(), [](TimelineRowKind k) { return k == TimelineRowKind::Kernels; });
}

std::vector<std::optional<OpPlacement>> opPlacements(const TimelineData& data)
{
    std::vector<std::optional<OpPlacement>> out;
    std::int64_t ordinal = -1;
    for (std::size_t r = 0; r < data.rows.rowCount(); ++r) {
        if (data.rowKind(r) != TimelineRowKind::Ops)
            continue;
        ++ordinal;
        const std::int64_t stream = r < data.rowStreams.size() ? data.rowStreams[r] : ordinal;
        for (const auto& s : data.rows.row(r)) {
            if (out.size() <= s.id)
                out.resize(s.id + 1);
            auto& place = out[s.id];
            if (!place || s.start < place->start)
                place = OpPlacement { s.start, s.end, stream };
        }
    }
    return out;
}

std::vector<TimelineFlow> timelineFlows(const Plan& plan, const std::vector<double>& start,
    const std::vector<double>& end, const std::vector<std::int64_t>& row)
{
    std::vector<TimelineFlow> flows;
    const std::size_t n = plan.launches.size();
    if (start.size() != n || end.size() != n || row.size() != n)
        return flows;
    std::vector<bool> drawn(n);
    for (std::size_t l = 0; l < n; ++l)
        drawn[l] = start[l] <= end[l] && row[l] >= 0;
    for (const PlanFlow& f : planFlows(plan, drawn, end))
        if (row[f.from] != row[f.to])
            flows.push_back({ end[f.from], start[f.to], static_cast<std::uint32_t>(row[f.from]),
                static_cast<std::uint32_t>(row[f.to]), f.join });
    std::sort(flows.begin(), flows.end(), [](const TimelineFlow& a, const TimelineFlow& b) { return a.from < b.from; });
    return flows;
}

void addPlanStructure(TimelineData& data, const Plan& plan)
{
    // Each op's first span and its row.
    std::vector<double> opStart, opEnd;
    std::vector<std::int64_t> opRow;
    for (std::size_t r = 0; r < data.rows.rowCount(); ++r) {
        if (data.rowKind(r) != TimelineRowKind::Ops)
            continue;
        for (const auto& s : data.rows.row(r)) {
            if (opRow.size() <= s.id) {
                opRow.resize(s.id + 1, -1);
                opStart.resize(s.id + 1, 0);
                opEnd.resize(s.id + 1, 0);
            }
            if (opRow[s.id] < 0 || s.start < opStart[s.id]) {
                opRow[s.id] = static_cast<std::int64_t>(r);
                opStart[s.id] = s.start;
                opEnd[s.id] = s.end;
            }
        }
    }
    const std::size_t n = plan.launches.size();
    std::vector<double> start(n, std::numeric_limits<double>::infinity()),
        end(n, -std::numeric_limits<double>::infinity());
    std::vector<std::int64_t> row(n, -1);
    for (std::size_t l = 0; l < n; ++l)
        for (OpId op : plan.launches[l].ops)
            if (op.value() < opRow.size() && opRow[op.value()] >= 0) {
                start[l] = std::min(start[l], opStart[op.value()]);
                end[l] = std::max(end[l], opEnd[op.value()]);
                row[l] = opRow[op.value()];
            }
    data.flows = timelineFlows(plan, start, end, row);
    data.criticalPath = criticalPathOps(plan, start, end);
}

std::vector<std::uint32_t> criticalPathOps(
    const Plan& plan, const std::vector<double>& start, const std::vector<double>& end)
{
    // A launch's predecessors: the launch before it on its stream, those it waits for, and every
    // launch before the last barrier at or before it. Walking back from the launch that ends last
    // through the predecessor that ends last gives the chain that sets the latency. Launches with
    // no kernel (views) end when their predecessors do.
    const std::size_t n = plan.launches.size();
    if (n == 0 || start.size() != n || end.size() != n)
        return {};
    std::vector<double> finish(n, 0.0);
    std::vector<std::int64_t> pred(n, -1);
    std::vector<std::int64_t> lastOnStream(plan.streams + 1, -1);
    std::vector<std::uint32_t> barriers = plan.barriers;
    std::sort(barriers.begin(), barriers.end());
    std::size_t nextBarrier = 0;
    std::int64_t latestBeforeBarrier = -1; // the launch ending last before the current barrier
    std::int64_t latestSoFar = -1;
    for (std::size_t l = 0; l < n; ++l) {
        while (nextBarrier < barriers.size() && barriers[nextBarrier] <= l) {
            latestBeforeBarrier = latestSoFar;
            ++nextBarrier;
        }
        const Launch& launch = plan.launches[l];
        std::int64_t best = -1;
        auto consider = [&](std::int64_t p) {
            if (p >= 0 && (best < 0 || finish[static_cast<std::size_t>(p)] > finish[static_cast<std::size_t>(best)]))
                best = p;
        };
        const auto stream = std::min<std::size_t>(launch.stream.value(), plan.streams);
        consider(lastOnStream[stream]);
        for (auto w : launch.waitFor)
            if (w < l)
                consider(w);
        consider(latestBeforeBarrier);
        pred[l] = best;
        const bool ran = start[l] <= end[l];
        finish[l] = ran ? end[l] : (best >= 0 ? finish[static_cast<std::size_t>(best)] : 0.0);
        lastOnStream[stream] = static_cast<std::int64_t>(l);
        if (latestSoFar < 0 || finish[l] > finish[static_cast<std::size_t>(latestSoFar)])
            latestSoFar = static_cast<std::int64_t>(l);
    }
    std::vector<std::uint32_t> ops;
    for (std::int64_t l = latestSoFar; l >= 0; l = pred[static_cast<std::size_t>(l)]) {
        const auto i = static_cast<std::size_t>(l);
        if (start[i] <= end[i])
            for (auto it = plan.launches[i].ops.rbegin(); it != plan.launches[i].ops.rend(); ++it)
                ops.push_back(it->value());
    }
    std::reverse(ops.begin(), ops.end());
    return ops;
}

TimelineData timelineFromSimulation(
    const Graph& graph, const Plan& plan, const SimResult& result, const SimDevice& device)
{
    TimelineData data;
    data.modelOps = graph.opCount();
    data.host = result.host;
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
            rows.addOp(
                launch.stream.value(), start[l], end[l], op.value(), static_cast<std::uint32_t>(graph.op(op).kind));
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
            { std::move(name), first.value(), k.warps, {} });
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
    // Flows: event waits and stage joins between launches that ran kernels.
    std::vector<std::int64_t> launchRow(plan.launches.size());
    for (std::size_t l = 0; l < plan.launches.size(); ++l)
        launchRow[l] = static_cast<std::int64_t>(rows.opRow(plan.launches[l].stream.value()));
    data.flows = timelineFlows(plan, start, end, launchRow);
    data.criticalPath = criticalPathOps(plan, start, end);
    data.warps = result.warps;
    data.maxWarps = device.maxResidentWarps();
    data.latency = result.latency;
    return data;
}

} // namespace opsched
