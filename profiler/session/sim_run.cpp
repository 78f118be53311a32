#include "session/sim_run.h"

#include "graph/fingerprint.h"
#include "schedule/schedule_file.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace opsched::profiler {
namespace {

std::int64_t toNs(double seconds)
{
    return static_cast<std::int64_t>(std::llround(seconds * 1e9));
}

std::string launchName(const Graph& graph, const Launch& launch)
{
    std::string name;
    for (auto op : launch.ops)
        name += (name.empty() ? "" : "+") + graph.op(op).name;
    return name;
}

} // namespace

store::DeviceRecord simDeviceRecord(const SimDevice& device)
{
    store::DeviceRecord d;
    d.key = "sim:" + device.name;
    d.name = "simulated " + device.description;
    d.simulated = true;
    d.smCount = device.multiprocessors;
    d.maxWarpsPerSm = device.maxWarpsPerMultiprocessor;
    d.memoryBandwidth = device.memoryBandwidth;
    d.l2CacheSize = static_cast<std::int64_t>(device.l2Bytes);
    return d;
}

store::ModelRecord modelRecord(const Graph& graph, const std::string& ref)
{
    store::ModelRecord m;
    m.name = graph.name();
    m.ref = ref;
    m.sha256 = modelFingerprint(graph);
    m.opCount = graph.opCount();
    for (const auto& op : graph.ops()) {
        nlohmann::json inputs = nlohmann::json::array();
        for (auto p : graph.predecessors(op.id))
            inputs.push_back(graph.op(OpId(p)).name);
        m.ops.push_back({ { "name", op.name }, { "type", toString(op.kind) }, { "inputs", std::move(inputs) } });
    }
    return m;
}

store::ScheduleRecord scheduleRecord(
    const Graph& graph, const SchedulerOutput& out, const std::string& deviceKey, bool cudaGraph, double latencySeconds)
{
    ScheduleDocument doc = out.schedule ? makeScheduleDocument(graph, *out.schedule, out.scheduler)
                                        : makePlanDocument(graph, out.plan, out.scheduler);
    doc.device = deviceKey;
    doc.params = out.params;
    doc.params["cuda_graph"] = cudaGraph;
    doc.latencyMs = latencySeconds * 1e3;
    ScheduleDocument planDoc = makePlanDocument(graph, out.plan, out.scheduler);
    planDoc.device = deviceKey;
    planDoc.params = doc.params;
    planDoc.latencyMs = doc.latencyMs;

    store::ScheduleRecord s;
    s.scheduler = out.scheduler;
    s.format = out.schedule ? "opsched-schedule" : "opsched-plan";
    s.document = toJson(graph, doc);
    s.plan = toJson(graph, planDoc);
    s.params = doc.params;
    s.searchSeconds = out.searchSeconds;
    s.states = static_cast<std::int64_t>(out.states);
    s.transitions = static_cast<std::int64_t>(out.transitions);
    return s;
}

void fillSimulatedRun(store::RunRecord& run, const Graph& graph, const SchedulerOutput& out, const SimDevice& device,
    const SimRunOptions& options)
{
    const KernelTable table(graph);
    SimResult result;
    run.latenciesNs.clear();
    for (int i = 0; i < std::max(1, options.repeats); ++i) {
        result = simulate(graph, out.plan, device, options.sim, &table);
        run.latenciesNs.push_back(result.latency * 1e9);
    }
    run.simulated = true;
    run.cudaGraph = options.sim.cudaGraph;

    if (out.schedule) {
        // A stage spans its ops' first start to last end; kernel-less ops only bound it.
        std::uint32_t index = 0;
        for (const auto& stage : out.schedule->stages) {
            double start = std::numeric_limits<double>::infinity();
            double end = 0;
            for (const auto& group : stage.groups)
                for (auto op : group) {
                    start = std::min(start, result.opStart[op.value()]);
                    end = std::max(end, result.opEnd[op.value()]);
                }
            if (std::isfinite(start))
                run.stages.push_back({ index, toNs(start), toNs(end) });
            ++index;
        }
    }

    run.kernels.reserve(result.kernels.size());
    for (const auto& span : result.kernels) {
        const Launch& launch = out.plan.launches[span.launch];
        const auto& parts = table.of(launch.ops.front());
        store::KernelRecord k;
        k.start = toNs(span.start);
        k.end = toNs(span.end);
        k.streamId = span.stream.value();
        k.opId = launch.ops.front().value();
        k.launchId = span.launch;
        k.part = span.part;
        k.warps = span.warps;
        const char* kind = toString(graph.op(launch.ops.front()).kind);
        k.shortName = launch.merged() ? std::string("Merged") + kind : std::string(kind);
        k.demangledName = launchName(graph, launch);
        if (launch.merged() || parts.size() > 1)
            k.demangledName += "/k" + std::to_string(span.part);
        run.kernels.push_back(std::move(k));
    }

    run.hostCalls.reserve(result.host.size());
    for (const auto& call : result.host) {
        store::HostCallRecord h { toNs(call.start), toNs(call.end), toString(call.kind), std::nullopt };
        if (call.launch != ~0U)
            h.launchId = call.launch;
        run.hostCalls.push_back(std::move(h));
    }

    run.warpsCollected = options.warps;
    if (!options.warps)
        return;
    run.averageActiveWarps = result.averageActiveWarps;
    // The step function, one sample per change; steps closer than 1 ns keep the later value.
    for (const auto& w : result.warps) {
        const std::int64_t t = toNs(w.time);
        if (!run.warps.empty() && run.warps.back().timeNs == t)
            run.warps.back().activeWarps = w.activeWarps;
        else
            run.warps.push_back({ t, 0, w.activeWarps, std::nullopt });
    }
    for (std::size_t i = 0; i + 1 < run.warps.size(); ++i)
        run.warps[i].durationNs = run.warps[i + 1].timeNs - run.warps[i].timeNs;
}

} // namespace opsched::profiler
