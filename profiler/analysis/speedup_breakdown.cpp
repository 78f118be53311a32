#include "analysis/speedup_breakdown.h"

#include "sim/simulator.h"
#include "store/latency_stats.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <unordered_map>

namespace opsched::analysis {
namespace {

struct Interval {
    double start = 0, end = 0;
};

// Sorted, disjoint, non-empty intervals covering the same time as `spans`.
std::vector<Interval> unionOf(std::vector<Interval> spans)
{
    std::erase_if(spans, [](const Interval& i) { return !(i.end > i.start); });
    std::sort(spans.begin(), spans.end(), [](const Interval& x, const Interval& y) { return x.start < y.start; });
    std::vector<Interval> out;
    for (const Interval& i : spans) {
        if (!out.empty() && i.start <= out.back().end)
            out.back().end = std::max(out.back().end, i.end);
        else
            out.push_back(i);
    }
    return out;
}

// Both sorted and disjoint (unionOf): their common time, as intervals.
std::vector<Interval> intersect(const std::vector<Interval>& a, const std::vector<Interval>& b)
{
    std::vector<Interval> out;
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const double s = std::max(a[i].start, b[j].start), e = std::min(a[i].end, b[j].end);
        if (e > s)
            out.push_back({ s, e });
        (a[i].end < b[j].end) ? ++i : ++j;
    }
    return out;
}

double length(const std::vector<Interval>& spans)
{
    double total = 0;
    for (const Interval& i : spans)
        total += i.end - i.start;
    return total;
}

// [0, span] without the busy intervals.
std::vector<Interval> idleOf(const std::vector<Interval>& busy, double span)
{
    std::vector<Interval> idle;
    double at = 0;
    for (const Interval& i : busy) {
        if (i.start > at)
            idle.push_back({ at, i.start });
        at = std::max(at, i.end);
    }
    if (span > at)
        idle.push_back({ at, span });
    return idle;
}

void requireRun(const store::RunRecord& run)
{
    if (run.status != store::RunStatus::Ok)
        throw std::invalid_argument("run " + std::to_string(run.id.value()) + " failed: " + run.error);
    if (run.kernels.empty())
        throw std::invalid_argument(
            "run " + std::to_string(run.id.value()) + " recorded no kernels: nothing to break its latency into");
    if (run.latenciesNs.empty())
        throw std::invalid_argument("run " + std::to_string(run.id.value()) + " has no latency");
}

std::string opName(const store::RunRecord& run, std::int64_t op)
{
    if (op >= 0 && static_cast<std::size_t>(op) < run.model.ops.size()) {
        const auto& entry = run.model.ops[static_cast<std::size_t>(op)];
        if (entry.is_object() && entry.contains("name") && entry["name"].is_string())
            return entry["name"].get<std::string>();
    }
    return op >= 0 ? "op " + std::to_string(op) : "(no op)";
}

// Each kernel's matching key: op, name and part, then its rank among kernels with that key in
// start order (the n-th launch of the same kernel of the same op in both runs).
std::vector<std::string> kernelKeys(const store::RunRecord& run)
{
    std::vector<std::size_t> order(run.kernels.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
        [&](std::size_t x, std::size_t y) { return run.kernels[x].start < run.kernels[y].start; });
    std::unordered_map<std::string, int> seen;
    std::vector<std::string> keys(run.kernels.size());
    for (std::size_t i : order) {
        const store::KernelRecord& k = run.kernels[i];
        std::string key = std::to_string(k.opId.value_or(-1)) + "|" + k.shortName + "|" + std::to_string(k.part);
        key += "#" + std::to_string(seen[key]++);
        keys[i] = std::move(key);
    }
    return keys;
}

} // namespace

LatencyAccount accountLatency(const store::RunRecord& run)
{
    requireRun(run);
    LatencyAccount a;
    a.latencyNs = store::latencyStats(run.latenciesNs).medianNs;
    a.kernels = run.kernels.size();
    std::vector<Interval> kernels;
    kernels.reserve(run.kernels.size());
    for (const store::KernelRecord& k : run.kernels) {
        const double s = std::max<double>(0, static_cast<double>(k.start));
        const double e = std::max(s, static_cast<double>(k.end));
        kernels.push_back({ s, e });
        a.kernelNs += e - s;
        a.spanNs = std::max(a.spanNs, e);
    }
    for (const store::HostCallRecord& h : run.hostCalls) // a final join or synchronisation ends the run
        a.spanNs = std::max(a.spanNs, static_cast<double>(h.endNs));
    const std::vector<Interval> busy = unionOf(kernels);
    a.busyNs = length(busy);
    a.overlapNs = a.kernelNs - a.busyNs;
    const std::vector<Interval> idle = idleOf(busy, a.spanNs);
    // The host issuing work (launches, a graph launch, other API calls) or joining the streams at
    // a barrier; while it waits for the device (or is not recorded), idle time is the device's
    // own: waits between streams, launch latency.
    std::vector<Interval> launching, waiting;
    for (const store::HostCallRecord& h : run.hostCalls) {
        const Interval i { static_cast<double>(h.startNs), static_cast<double>(h.endNs) };
        const HostCallKind kind = hostCallKind(h.name);
        if (kind == HostCallKind::Barrier)
            waiting.push_back(i);
        else if (kind != HostCallKind::Wait)
            launching.push_back(i);
    }
    const std::vector<Interval> idleLaunching = intersect(idle, unionOf(launching));
    const std::vector<Interval> idleWaiting = intersect(idle, unionOf(waiting));
    a.launchIdleNs = length(idleLaunching);
    // Time the host both launched and waited (two threads) counts as launching.
    a.syncIdleNs = length(idleWaiting) - length(intersect(idleWaiting, idleLaunching));
    a.gapIdleNs = length(idle) - a.launchIdleNs - a.syncIdleNs;
    a.variationNs = a.latencyNs - a.spanNs;
    return a;
}

double SpeedupBreakdown::termSumNs() const
{
    double sum = 0;
    for (const BreakdownTerm& t : terms)
        sum += t.ns;
    return sum;
}

SpeedupBreakdown explainDifference(const store::RunRecord& a, const store::RunRecord& b)
{
    if (a.model.sha256 != b.model.sha256 || a.batch != b.batch)
        throw std::invalid_argument("runs " + std::to_string(a.id.value()) + " and " + std::to_string(b.id.value())
            + " are of different models or batches (" + a.model.name + " batch " + std::to_string(a.batch) + ", "
            + b.model.name + " batch " + std::to_string(b.batch) + "): only runs of one model and batch compare");
    SpeedupBreakdown r;
    r.a = accountLatency(a);
    r.b = accountLatency(b);
    r.differenceNs = r.a.latencyNs - r.b.latencyNs;

    const std::vector<std::string> keysA = kernelKeys(a), keysB = kernelKeys(b);
    std::unordered_map<std::string, std::size_t> inB;
    for (std::size_t i = 0; i < keysB.size(); ++i)
        inB.emplace(keysB[i], i);
    std::vector<char> matchedB(keysB.size(), 0);
    double shared = 0, onlyA = 0, onlyB = 0;
    std::map<std::int64_t, OpKernelChange> ops;
    auto duration = [](const store::KernelRecord& k) {
        const double s = std::max<double>(0, static_cast<double>(k.start));
        return std::max(s, static_cast<double>(k.end)) - s;
    };
    for (std::size_t i = 0; i < keysA.size(); ++i) {
        const double d = duration(a.kernels[i]);
        ops[a.kernels[i].opId.value_or(-1)].aNs += d;
        if (const auto it = inB.find(keysA[i]); it != inB.end()) {
            matchedB[it->second] = 1;
            shared += d - duration(b.kernels[it->second]);
            ++r.sharedKernels;
            r.sharedOps.push_back(a.kernels[i].opId.value_or(-1));
        } else {
            onlyA += d;
            ++r.onlyAKernels;
            r.onlyAOps.push_back(a.kernels[i].opId.value_or(-1));
        }
    }
    for (std::size_t i = 0; i < keysB.size(); ++i) {
        const double d = duration(b.kernels[i]);
        ops[b.kernels[i].opId.value_or(-1)].bNs += d;
        if (!matchedB[i]) {
            onlyB += d;
            ++r.onlyBKernels;
            r.onlyBOps.push_back(b.kernels[i].opId.value_or(-1));
        }
    }
    for (auto* list : { &r.sharedOps, &r.onlyAOps, &r.onlyBOps }) {
        std::sort(list->begin(), list->end());
        list->erase(std::unique(list->begin(), list->end()), list->end());
    }
    r.terms = {
        { "shared_kernels", "kernels both runs have, slower (+) or faster (-)", shared },
        { "only_a_kernels", "kernels only A has", onlyA },
        { "only_b_kernels", "kernels only B has", -onlyB },
        { "overlap", "kernel time hidden by running concurrently", -(r.a.overlapNs - r.b.overlapNs) },
        { "launch_idle", "device idle while the host launches", r.a.launchIdleNs - r.b.launchIdleNs },
        { "sync_idle", "device idle while the host joins the streams (barriers)", r.a.syncIdleNs - r.b.syncIdleNs },
        { "gap_idle", "device idle with work issued (waits between streams, latency)", r.a.gapIdleNs - r.b.gapIdleNs },
        { "variation", "median of the timed runs against the recorded run", r.a.variationNs - r.b.variationNs },
    };
    for (auto& [id, change] : ops) {
        change.opId = id;
        change.op = opName(a.model.ops.empty() ? b : a, id);
        r.ops.push_back(change);
    }
    std::stable_sort(r.ops.begin(), r.ops.end(), [](const OpKernelChange& x, const OpKernelChange& y) {
        return std::abs(x.changeNs()) > std::abs(y.changeNs());
    });
    return r;
}

} // namespace opsched::analysis
