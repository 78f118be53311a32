#include "engine/timeline/timeline_breakdown.h"

#include <cmath>

namespace opsched {
namespace {

std::int64_t ns(double seconds)
{
    return static_cast<std::int64_t>(std::llround(seconds * 1e9));
}

} // namespace

store::RunRecord breakdownRecord(const TimelineData& data)
{
    store::RunRecord r;
    r.model.sha256 = "timeline"; // the window compares runs of the open model (or says what they are)
    for (const std::string& label : data.opLabels)
        r.model.ops.push_back({ { "name", label.substr(0, label.find('\n')) } });
    r.latenciesNs = { static_cast<double>(ns(data.latency)) };
    for (std::size_t row = 0; row < data.rows.rowCount(); ++row) {
        if (data.rowKind(row) != TimelineRowKind::Kernels)
            continue;
        const std::int64_t stream
            = row < data.rowStreams.size() ? data.rowStreams[row] : static_cast<std::int64_t>(row);
        for (const TimelineSpan& span : data.rows.row(row)) {
            if (span.id >= data.kernels.size())
                continue;
            const TimelineKernel& k = data.kernels[span.id];
            store::KernelRecord rec;
            rec.start = ns(span.start);
            rec.end = ns(span.end);
            rec.streamId = stream;
            rec.opId = k.op;
            rec.shortName = k.name;
            r.kernels.push_back(std::move(rec));
        }
    }
    for (const HostCall& call : data.host)
        r.hostCalls.push_back({ ns(call.start), ns(call.end), toString(call.kind), std::nullopt });
    return r;
}

analysis::SpeedupBreakdown explainTimelines(const TimelineData& a, const TimelineData& b)
{
    return analysis::explainDifference(breakdownRecord(a), breakdownRecord(b));
}

} // namespace opsched
