#include "run_segments.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace opsched::cli {
namespace {

// The earliest segment start of the last run: per-op and segment times are reported from it.
std::int64_t originOf(const std::vector<exec::SegmentTiming>& timings)
{
    std::int64_t origin = std::numeric_limits<std::int64_t>::max();
    for (const auto& t : timings)
        origin = std::min(origin, t.startNs);
    return timings.empty() ? 0 : origin;
}

double spanMs(const std::vector<exec::SegmentTiming>& timings)
{
    std::int64_t last = 0;
    for (const auto& t : timings)
        last = std::max(last, t.endNs);
    return static_cast<double>(last - originOf(timings)) * 1e-6;
}

struct OpTime {
    OpId op;
    std::size_t segment = 0;
    double startMs = 0, endMs = 0;
};

// Ops inside a segment are not timed one by one (the executor runs them as one call, on the GPU
// as one CUDA graph): the segment's measured span is split in proportion to the ops' predicted
// costs from the file, or evenly where the file has no cost for one of them.
std::vector<OpTime> opTimes(const MappingRun& run, const SegmentRunResult& r)
{
    const std::int64_t origin = originOf(r.timings);
    const std::size_t devices = run.doc.devices.size();
    std::vector<OpTime> out;
    for (std::size_t s = 0; s < r.segments.size(); ++s) {
        const auto& seg = r.segments[s];
        std::vector<double> weight;
        bool costed = true;
        for (OpId op : seg.ops) {
            const std::size_t at = op.value() * devices + seg.device;
            const double c = at < run.doc.costsMs.size() ? run.doc.costsMs[at] : NAN;
            costed = costed && std::isfinite(c) && c >= 0;
            weight.push_back(c);
        }
        double total = 0;
        for (double& w : weight)
            total += (w = costed ? w : 1.0);
        if (total <= 0) {
            std::fill(weight.begin(), weight.end(), 1.0);
            total = static_cast<double>(weight.size());
        }
        const double a = static_cast<double>(r.timings[s].startNs - origin) * 1e-6;
        const double b = static_cast<double>(r.timings[s].endNs - origin) * 1e-6;
        double done = 0;
        for (std::size_t i = 0; i < seg.ops.size(); ++i) {
            const double start = a + (b - a) * done / total;
            done += weight[i];
            out.push_back({ seg.ops[i], s, start, a + (b - a) * done / total });
        }
    }
    return out;
}

} // namespace

void addSegmentsJson(
    nlohmann::ordered_json& j, const Graph& graph, const MappingRun& run, const SegmentRunResult& r, double medianMs)
{
    nlohmann::ordered_json m;
    m["file_mapper"] = run.doc.mapper;
    m["devices"] = run.doc.devices;
    m["executor"] = "segments";
    m["predicted_ms"] = run.predictedMs > 0 ? nlohmann::ordered_json(run.predictedMs) : nlohmann::ordered_json(nullptr);
    m["measured_ms"] = medianMs;
    m["measured_span_ms"] = spanMs(r.timings);
    m["measured_over_predicted"]
        = run.predictedMs > 0 ? nlohmann::ordered_json(medianMs / run.predictedMs) : nlohmann::ordered_json(nullptr);
    m["note"] = "each device's ops run as segments (one executor call each); segment start/end are measured, per-op "
                "start/end inside a segment are its measured span split in proportion to the file's predicted costs";
    const std::int64_t origin = originOf(r.timings);
    auto segments = nlohmann::ordered_json::array();
    for (std::size_t s = 0; s < r.segments.size(); ++s) {
        const auto& seg = r.segments[s];
        segments.push_back({ { "device", run.doc.devices[seg.device] }, { "ops", seg.ops.size() },
            { "first_op", graph.op(seg.ops.front()).name }, { "last_op", graph.op(seg.ops.back()).name },
            { "start_ms", static_cast<double>(r.timings[s].startNs - origin) * 1e-6 },
            { "end_ms", static_cast<double>(r.timings[s].endNs - origin) * 1e-6 }, { "waits_for", r.waits[s] } });
    }
    m["segments"] = segments;
    auto ops = nlohmann::ordered_json::array();
    for (const OpTime& t : opTimes(run, r)) {
        nlohmann::ordered_json o { { "op", graph.op(t.op).name },
            { "device", run.doc.devices[run.doc.mapping.device[t.op.value()]] }, { "segment", t.segment },
            { "start_ms", t.startMs }, { "end_ms", t.endMs } };
        if (!run.predictedStart.empty()) {
            o["predicted_start_ms"] = run.predictedStart[t.op.value()] * 1e3;
            o["predicted_end_ms"] = run.predictedFinish[t.op.value()] * 1e3;
        }
        ops.push_back(std::move(o));
    }
    m["ops"] = ops;
    j["mapping"] = m;
}

void printSegmentsText(const Graph& graph, const MappingRun& run, const SegmentRunResult& r, double medianMs)
{
    std::string devices;
    for (std::size_t u = 0; u < run.doc.devices.size(); ++u) {
        devices += (u ? ", " : "") + run.doc.devices[u];
        if (run.cudaIndex[u] >= 0)
            continue;
        devices += " (cores";
        if (run.cores[u].empty())
            devices += " all";
        for (int c : run.cores[u])
            devices += " " + std::to_string(c);
        devices += ")";
    }
    std::printf("mapping      %s over %s, %zu segments\n",
        run.doc.mapper.empty() ? "hand-made" : run.doc.mapper.c_str(), devices.c_str(), r.segments.size());
    if (run.predictedMs > 0)
        std::printf("makespan     %.3f ms measured (median), %.3f ms predicted: %.2fx; last run's span %.3f ms\n",
            medianMs, run.predictedMs, medianMs / run.predictedMs, spanMs(r.timings));
    else
        std::printf("makespan     %.3f ms measured (median; the file has no costs to predict it from)\n", medianMs);
    const std::int64_t origin = originOf(r.timings);
    for (std::size_t s = 0; s < r.segments.size(); ++s) {
        const auto& seg = r.segments[s];
        std::string waits;
        for (std::size_t p : r.waits[s])
            waits += (waits.empty() ? " waits for" : ",") + std::string(" ") + std::to_string(p);
        std::printf("segment %-4zu %-8s %3zu ops %-24s %8.3f .. %8.3f ms%s\n", s, run.doc.devices[seg.device].c_str(),
            seg.ops.size(), (graph.op(seg.ops.front()).name + ".." + graph.op(seg.ops.back()).name).c_str(),
            static_cast<double>(r.timings[s].startNs - origin) * 1e-6,
            static_cast<double>(r.timings[s].endNs - origin) * 1e-6, waits.c_str());
    }
}

} // namespace opsched::cli
