// Chrome trace event format (the JSON object form), as Perfetto and chrome://tracing read it.
#include "export/export.h"

#include "plan/plan_flows.h"

#include <algorithm>
#include <map>

namespace opsched::profiler {
namespace {

constexpr int kPid = 1;
constexpr int kStageTid = 0; // stream s is tid s + 1
constexpr int kHostTid = 100000; // above every stream (sort index -1)

double us(std::int64_t ns)
{
    return static_cast<double>(ns) / 1000.0;
}

nlohmann::ordered_json meta(const char* what, int tid, const std::string& name)
{
    return { { "ph", "M" }, { "name", what }, { "pid", kPid }, { "tid", tid }, { "args", { { "name", name } } } };
}

nlohmann::ordered_json sortIndex(int tid, int index)
{
    return { { "ph", "M" }, { "name", "thread_sort_index" }, { "pid", kPid }, { "tid", tid },
        { "args", { { "sort_index", index } } } };
}

// The stored plan's streams, waits and barriers; nullopt when it is not as written (a damaged
// database), so the trace then has no arrows rather than wrong ones.
std::optional<Plan> storedPlanShape(const store::RunRecord& run)
{
    if (!run.schedule || !run.schedule->plan.is_object() || !run.schedule->plan.contains("launches")
        || !run.schedule->plan["launches"].is_array())
        return std::nullopt;
    const auto& j = run.schedule->plan;
    Plan plan;
    plan.streams = 0;
    const std::size_t n = j["launches"].size();
    auto index = [n](const nlohmann::json& v) { return v.is_number_unsigned() && v.get<std::uint64_t>() <= n; };
    for (const auto& jl : j["launches"]) {
        if (!jl.is_object() || !jl.contains("stream") || !jl["stream"].is_number_unsigned()
            || jl["stream"].get<std::uint64_t>() > 4096)
            return std::nullopt;
        Launch l;
        l.stream = StreamId(jl["stream"].get<std::uint32_t>());
        plan.streams = std::max(plan.streams, l.stream.value() + 1);
        if (jl.contains("wait_for")) {
            if (!jl["wait_for"].is_array())
                return std::nullopt;
            for (const auto& w : jl["wait_for"]) {
                if (!index(w))
                    return std::nullopt;
                l.waitFor.push_back(w.get<std::uint32_t>());
            }
        }
        plan.launches.push_back(std::move(l));
    }
    if (j.contains("barriers") && j["barriers"].is_array())
        for (const auto& b : j["barriers"])
            if (index(b))
                plan.barriers.push_back(b.get<std::uint32_t>());
    return plan;
}

} // namespace

// Op names of each plan launch, from the stored plan. A damaged database may hold anything there
// (a fuzzing finding: a launch that is not an object): what is not as written reads as no name.
std::vector<std::string> launchNames(const store::RunRecord& run)
{
    std::vector<std::string> names;
    if (!run.schedule || !run.schedule->plan.is_object() || !run.schedule->plan.contains("launches")
        || !run.schedule->plan["launches"].is_array())
        return names;
    for (const auto& launch : run.schedule->plan["launches"]) {
        std::string name;
        if (launch.is_object() && launch.contains("ops") && launch["ops"].is_array())
            for (const auto& op : launch["ops"])
                if (op.is_string())
                    name += (name.empty() ? "" : "+") + op.get<std::string>();
        names.push_back(std::move(name));
    }
    return names;
}

namespace {

// Ops: the kernels of one launch make one complete event on their stream.
struct Span {
    std::int64_t start = 0, end = 0, stream = 0;
    std::size_t kernels = 0;
    double warps = 0;
    std::string name;
    std::optional<std::int64_t> op, launch;
};
using SpanMap = std::map<std::pair<std::int64_t, std::int64_t>, Span>; // (launch, stream) -> span

// The run's kernels gathered into spans; `streams` gets the streams they ran on, in order of first use.
SpanMap launchSpans(const store::RunRecord& run, std::vector<std::int64_t>& streams)
{
    const auto names = launchNames(run);
    SpanMap spans;
    std::int64_t unmapped = 0;
    for (const auto& k : run.kernels) {
        // A kernel not mapped to a launch stays an event of its own.
        const std::int64_t launch = k.launchId ? *k.launchId : -1 - unmapped++;
        auto [it, fresh] = spans.try_emplace({ launch, k.streamId });
        Span& s = it->second;
        if (fresh) {
            s = { k.start, k.end, k.streamId, 0, 0, {}, k.opId, k.launchId };
            if (k.launchId && *k.launchId >= 0 && static_cast<std::size_t>(*k.launchId) < names.size())
                s.name = names[static_cast<std::size_t>(*k.launchId)];
            else
                s.name = k.demangledName.empty() ? k.shortName : k.demangledName;
        }
        s.start = std::min(s.start, k.start);
        s.end = std::max(s.end, k.end);
        ++s.kernels;
        s.warps = std::max(s.warps, k.warps.value_or(0));
        if (std::find(streams.begin(), streams.end(), k.streamId) == streams.end())
            streams.push_back(k.streamId);
    }
    return spans;
}

// One named track per stream, then the spans by start time.
void addOpEvents(nlohmann::ordered_json& events, const SpanMap& spans, std::vector<std::int64_t> streams)
{
    std::sort(streams.begin(), streams.end());
    for (auto stream : streams) {
        const int tid = static_cast<int>(stream) + 1;
        events.push_back(meta("thread_name", tid, "stream " + std::to_string(stream)));
        events.push_back(sortIndex(tid, tid));
    }
    std::vector<const Span*> ordered;
    for (const auto& [key, span] : spans)
        ordered.push_back(&span);
    std::sort(ordered.begin(), ordered.end(), [](const Span* a, const Span* b) {
        return a->start != b->start ? a->start < b->start : a->stream < b->stream;
    });
    for (const Span* s : ordered) {
        nlohmann::ordered_json args = { { "kernels", s->kernels } };
        if (s->launch)
            args["launch"] = *s->launch;
        if (s->op)
            args["op_id"] = *s->op;
        if (s->warps > 0)
            args["warps"] = s->warps;
        events.push_back({ { "ph", "X" }, { "name", s->name }, { "cat", "op" }, { "pid", kPid },
            { "tid", static_cast<int>(s->stream) + 1 }, { "ts", us(s->start) }, { "dur", us(s->end - s->start) },
            { "args", std::move(args) } });
    }
}

// Flows: the arrows the window draws, from a launch's end to the start of the launch on another
// stream it lets go (Perfetto binds "s" and "f" to the slices enclosing their times).
void addFlowEvents(nlohmann::ordered_json& events, const store::RunRecord& run, const SpanMap& spans)
{
    const auto plan = storedPlanShape(run);
    if (!plan)
        return;
    const std::size_t n = plan->launches.size();
    std::vector<bool> drawn(n, false);
    std::vector<double> ends(n, 0);
    std::vector<const Span*> byLaunch(n, nullptr);
    for (const auto& [key, span] : spans)
        if (key.first >= 0 && static_cast<std::size_t>(key.first) < n
            && !byLaunch[static_cast<std::size_t>(key.first)]) {
            const auto l = static_cast<std::size_t>(key.first);
            byLaunch[l] = &span;
            drawn[l] = true;
            ends[l] = static_cast<double>(span.end);
        }
    int id = 0;
    for (const PlanFlow& f : planFlows(*plan, drawn, ends)) {
        const Span& from = *byLaunch[f.from];
        const Span& to = *byLaunch[f.to];
        if (from.stream == to.stream)
            continue;
        const char* name = f.join ? "join" : "wait";
        ++id;
        events.push_back({ { "ph", "s" }, { "id", id }, { "name", name }, { "cat", "flow" }, { "pid", kPid },
            { "tid", static_cast<int>(from.stream) + 1 }, { "ts", us(from.start + (from.end - from.start) / 2) } });
        events.push_back({ { "ph", "f" }, { "bp", "e" }, { "id", id }, { "name", name }, { "cat", "flow" },
            { "pid", kPid }, { "tid", static_cast<int>(to.stream) + 1 }, { "ts", us(to.start) } });
    }
}

// The host thread's calls on a track above the streams, as Nsight's CUDA API row.
void addHostEvents(nlohmann::ordered_json& events, const store::RunRecord& run)
{
    if (run.hostCalls.empty())
        return;
    events.push_back(meta("thread_name", kHostTid, "host"));
    events.push_back(sortIndex(kHostTid, -1));
    for (const auto& h : run.hostCalls) {
        nlohmann::ordered_json e = { { "ph", "X" }, { "name", h.name }, { "cat", "host" }, { "pid", kPid },
            { "tid", kHostTid }, { "ts", us(h.startNs) }, { "dur", us(h.endNs - h.startNs) } };
        if (h.launchId)
            e["args"] = { { "launch", *h.launchId } };
        events.push_back(std::move(e));
    }
}

void addStageEvents(nlohmann::ordered_json& events, const store::RunRecord& run)
{
    if (run.stages.empty())
        return;
    events.push_back(meta("thread_name", kStageTid, "stages"));
    events.push_back(sortIndex(kStageTid, kStageTid));
    for (const auto& st : run.stages)
        events.push_back({ { "ph", "X" }, { "name", "stage " + std::to_string(st.stage) }, { "cat", "stage" },
            { "pid", kPid }, { "tid", kStageTid }, { "ts", us(st.startNs) }, { "dur", us(st.endNs - st.startNs) } });
}

void addWarpEvents(nlohmann::ordered_json& events, const store::RunRecord& run)
{
    for (const auto& w : run.warps) {
        events.push_back({ { "ph", "C" }, { "name", "active warps" }, { "pid", kPid }, { "ts", us(w.timeNs) },
            { "args", { { "active warps", w.activeWarps } } } });
        if (w.smActivePct)
            events.push_back({ { "ph", "C" }, { "name", "SM active %" }, { "pid", kPid }, { "ts", us(w.timeNs) },
                { "args", { { "SM active %", *w.smActivePct } } } });
    }
}

// The trace's otherData: what the run was.
nlohmann::ordered_json runDescription(const store::RunRecord& run, const std::string& scheduler)
{
    nlohmann::ordered_json other;
    other["run"] = run.id.value();
    other["model"] = run.model.name;
    other["scheduler"] = scheduler;
    other["batch"] = run.batch;
    other["device"] = run.device.key;
    other["simulated"] = run.simulated;
    if (!run.latenciesNs.empty())
        other["latency_ms"] = store::latencyStats(run.latenciesNs).medianNs * 1e-6;
    if (run.averageActiveWarps)
        other["average_active_warps"] = *run.averageActiveWarps;
    other["started_at"] = run.startedAt;
    return other;
}

} // namespace

nlohmann::ordered_json chromeTrace(const store::RunRecord& run)
{
    const std::string scheduler = run.schedule ? run.schedule->scheduler : "";
    nlohmann::ordered_json events = nlohmann::ordered_json::array();
    events.push_back(meta("process_name", 0,
        run.device.key + (run.simulated ? " (simulated)" : "") + ": " + run.model.name + ", " + scheduler + ", batch "
            + std::to_string(run.batch)));
    std::vector<std::int64_t> streams;
    const SpanMap spans = launchSpans(run, streams);
    addOpEvents(events, spans, std::move(streams));
    addFlowEvents(events, run, spans);
    addHostEvents(events, run);
    addStageEvents(events, run);
    addWarpEvents(events, run);

    nlohmann::ordered_json doc;
    doc["traceEvents"] = std::move(events);
    doc["displayTimeUnit"] = "ns";
    doc["otherData"] = runDescription(run, scheduler);
    return doc;
}

} // namespace opsched::profiler
