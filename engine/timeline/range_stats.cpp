#include "engine/timeline/range_stats.h"

#include <algorithm>

namespace opsched {
namespace {

void addHostActivity(RangeStats& stats, const std::vector<HostCall>& host, double a, double b)
{
    stats.hasHost = !host.empty();
    for (const HostCall& call : host) { // in start order
        if (call.start > b)
            break;
        const double inside = std::min(call.end, b) - std::max(call.start, a);
        if (call.end < a || inside < 0)
            continue;
        if (call.kind == HostCallKind::Launch || call.kind == HostCallKind::GraphLaunch) {
            ++stats.hostLaunches;
            stats.hostLaunchSeconds += inside;
        } else if (call.kind == HostCallKind::Barrier) {
            stats.hostBarrierSeconds += inside;
        } else if (call.kind == HostCallKind::Wait) {
            stats.hostWaitSeconds += inside;
        } else {
            stats.hostOtherSeconds += inside;
        }
    }
}

// The streams' busy intervals, kept for the concurrency sweep.
struct BusyIntervals {
    std::vector<std::pair<double, int>> edges; // (+1 at a busy interval's start, -1 at its end)
    std::vector<std::vector<std::pair<double, double>>> perStream;
};

// One op row's stream: the union of its op spans [first, last) clipped to [a, b] (a merged launch
// is several op spans with the same times; they must not count twice), added to `busy`.
StreamRangeStats streamStats(const TimelineData& data, std::size_t r, std::size_t first, std::size_t last, double a,
    double b, BusyIntervals& busy)
{
    const auto& spans = data.rows.row(r);
    StreamRangeStats s;
    std::vector<std::pair<double, double>> intervals;
    s.row = r;
    s.name = r < data.rowNames.size() ? data.rowNames[r] : "row " + std::to_string(r);
    double runStart = 0, runEnd = 0;
    bool open = false;
    auto close = [&] {
        if (!open)
            return;
        s.busy += runEnd - runStart;
        if (runEnd > runStart) {
            busy.edges.emplace_back(runStart, +1);
            busy.edges.emplace_back(runEnd, -1);
            intervals.emplace_back(runStart, runEnd);
        }
        open = false;
    };
    for (std::size_t i = first; i < last; ++i) {
        const TimelineSpan& span = spans[i];
        if (span.end < a || span.start > b)
            continue;
        ++s.ops;
        const double s0 = std::max(span.start, a), s1 = std::min(span.end, b);
        if (open && s0 <= runEnd)
            runEnd = std::max(runEnd, s1);
        else {
            close();
            runStart = s0;
            runEnd = s1;
            open = true;
        }
    }
    close();
    busy.perStream.push_back(std::move(intervals));
    return s;
}

// The peak concurrency, and each stream's concurrency, from the streams' busy intervals.
void addConcurrency(RangeStats& stats, BusyIntervals& busy)
{
    std::vector<std::pair<double, int>>& edges = busy.edges;
    // Peak: sweep the busy intervals' edges; at equal times ends go first, so back-to-back
    // intervals on two streams do not count as overlapping.
    std::sort(edges.begin(), edges.end());
    // The number of busy streams as a step function: level[i] holds on [times[i], times[i + 1]).
    std::vector<double> times;
    std::vector<int> level;
    int running = 0;
    for (std::size_t i = 0; i < edges.size(); ++i) {
        running += edges[i].second;
        stats.peakConcurrency = std::max(stats.peakConcurrency, running);
        if (i + 1 == edges.size() || edges[i + 1].first != edges[i].first) {
            times.push_back(edges[i].first);
            level.push_back(running);
        }
    }
    // Each stream's concurrency: that step function averaged over the stream's busy time.
    for (std::size_t k = 0; k < stats.streams.size(); ++k) {
        StreamRangeStats& s = stats.streams[k];
        if (!(s.busy > 0))
            continue;
        double area = 0;
        for (const auto& [t0i, t1i] : busy.perStream[k]) {
            auto i = static_cast<std::size_t>(std::upper_bound(times.begin(), times.end(), t0i) - times.begin());
            i = i > 0 ? i - 1 : 0;
            for (double t = t0i; i < times.size() && t < t1i; ++i) {
                const double next = i + 1 < times.size() ? std::min(times[i + 1], t1i) : t1i;
                if (next > t)
                    area += level[i] * (next - t);
                t = std::max(t, next);
            }
        }
        s.concurrency = area / s.busy;
    }
}

} // namespace

double averageWarps(const std::vector<WarpSample>& warps, double t0, double t1)
{
    if (warps.empty())
        return 0.0;
    auto valueAt = [&](double t) {
        auto it
            = std::upper_bound(warps.begin(), warps.end(), t, [](double x, const WarpSample& s) { return x < s.time; });
        return it == warps.begin() ? 0.0 : std::prev(it)->activeWarps;
    };
    if (!(t1 > t0))
        return valueAt(t0);
    auto it
        = std::upper_bound(warps.begin(), warps.end(), t0, [](double x, const WarpSample& s) { return x < s.time; });
    double value = it == warps.begin() ? 0.0 : std::prev(it)->activeWarps;
    double t = t0, area = 0.0;
    for (; it != warps.end() && it->time < t1; ++it) {
        area += value * (it->time - t);
        t = it->time;
        value = it->activeWarps;
    }
    area += value * (t1 - t);
    return area / (t1 - t0);
}

RangeStats rangeStats(const TimelineData& data, double t0, double t1)
{
    RangeStats stats;
    stats.start = std::min(t0, t1);
    stats.end = std::max(t0, t1);
    const double a = stats.start, b = stats.end;
    const std::size_t rows = data.rows.rowCount();

    BusyIntervals busy;
    int current = -1; // index into stats.streams of the last op row
    for (std::size_t r = 0; r < rows; ++r) {
        const auto [first, last] = data.rows.visible(r, a, b);
        const auto& spans = data.rows.row(r);
        if (data.rowKind(r) == TimelineRowKind::Kernels) {
            std::size_t n = 0;
            for (std::size_t i = first; i < last; ++i)
                n += spans[i].end >= a && spans[i].start <= b ? 1 : 0;
            stats.kernels += n;
            if (current >= 0)
                stats.streams[static_cast<std::size_t>(current)].kernels += n;
            continue;
        }
        if (data.rowKind(r) == TimelineRowKind::Transfers) { // results arriving over a link
            for (std::size_t i = first; i < last; ++i)
                if (spans[i].end >= a && spans[i].start <= b) {
                    ++stats.transfers;
                    if (spans[i].id < data.transfers.size())
                        stats.transferredBytes += data.transfers[spans[i].id].bytes;
                }
            continue;
        }
        StreamRangeStats s = streamStats(data, r, first, last, a, b, busy);
        stats.ops += s.ops;
        stats.busy += s.busy;
        stats.streams.push_back(std::move(s));
        current = static_cast<int>(stats.streams.size()) - 1;
    }
    addConcurrency(stats, busy);
    if (stats.duration() > 0)
        stats.averageConcurrency = stats.busy / stats.duration();
    stats.hasKernels = data.hasKernelRows();
    stats.hasWarps = !data.warps.empty();
    if (stats.hasWarps)
        stats.averageWarps = averageWarps(data.warps, a, b);
    addHostActivity(stats, data.host, a, b);
    return stats;
}

double deviceIdleSeconds(const TimelineData& data, double t0, double t1)
{
    // The union of kernel spans (op spans where a run has no kernel rows) inside [t0, t1].
    const TimelineRowKind busyKind = data.hasKernelRows() ? TimelineRowKind::Kernels : TimelineRowKind::Ops;
    std::vector<std::pair<double, double>> busy;
    for (std::size_t r = 0; r < data.rows.rowCount(); ++r) {
        if (data.rowKind(r) != busyKind)
            continue;
        for (const auto& span : data.rows.row(r))
            if (span.end > t0 && span.start < t1)
                busy.emplace_back(std::max(span.start, t0), std::min(span.end, t1));
    }
    std::sort(busy.begin(), busy.end());
    double covered = 0, to = t0;
    for (const auto& [s0, s1] : busy) {
        const double from = std::max(s0, to);
        if (s1 > from)
            covered += s1 - from;
        to = std::max(to, s1);
    }
    return std::max(0.0, (t1 - t0) - covered);
}

} // namespace opsched
