#include "engine/results/stored_run.h"

#include "engine/device_ref.h"

#include "session/sim_run.h"
#include "sim/sim_device.h"
#include "store/latency_stats.h"

#include <algorithm>
#include <map>

namespace opsched {
namespace {

constexpr double kNs = 1e-9;

// Colour class of a stored op type: the OpKind with that name, so stored runs and simulated
// results colour alike.
std::uint32_t colourOf(const std::string& type)
{
    for (std::uint32_t k = 0; k <= static_cast<std::uint32_t>(kLastOpKind); ++k)
        if (type == toString(static_cast<OpKind>(k)))
            return k;
    return static_cast<std::uint32_t>(kLastOpKind) + 1;
}

std::string launchConfig(const store::KernelRecord& k)
{
    if (!k.gridX || !k.blockX)
        return {};
    auto dim = [](const std::optional<std::int64_t>& x, const std::optional<std::int64_t>& y,
                   const std::optional<std::int64_t>& z) {
        return std::to_string(x.value_or(1)) + "x" + std::to_string(y.value_or(1)) + "x"
            + std::to_string(z.value_or(1));
    };
    return "grid " + dim(k.gridX, k.gridY, k.gridZ) + ", block " + dim(k.blockX, k.blockY, k.blockZ);
}

std::uint32_t colourFor(const std::vector<std::uint32_t>& opColour, const std::optional<std::int64_t>& op)
{
    return op && *op >= 0 && static_cast<std::size_t>(*op) < opColour.size()
        ? opColour[static_cast<std::size_t>(*op)]
        : static_cast<std::uint32_t>(kLastOpKind) + 1;
}

// Op boxes: the kernels of one launch on one stream make one box (as the Chrome trace export).
struct Box {
    std::int64_t start = 0, end = 0;
    std::optional<std::int64_t> op;
};
using BoxMap = std::map<std::pair<std::int64_t, std::int64_t>, Box>; // (launch, stream)

// Each kernel in its stream's kernel row; returns the op boxes they make.
BoxMap addKernels(TimelineData& data, StreamRowsBuilder& rows, const store::RunRecord& run,
    const std::vector<std::uint32_t>& opColour)
{
    BoxMap boxes;
    std::int64_t unmapped = 0;
    data.kernels.reserve(run.kernels.size());
    for (const auto& k : run.kernels) {
        const std::uint32_t op = k.opId && *k.opId >= 0 ? static_cast<std::uint32_t>(*k.opId) : 0;
        rows.addKernel(k.streamId, static_cast<double>(k.start) * kNs, static_cast<double>(k.end) * kNs,
            colourFor(opColour, k.opId),
            { k.demangledName.empty() ? k.shortName : k.demangledName, op, k.warps.value_or(0), launchConfig(k) });
        const std::int64_t launch = k.launchId ? *k.launchId : -1 - unmapped++;
        auto [it, fresh] = boxes.try_emplace({ launch, k.streamId }, Box { k.start, k.end, k.opId });
        if (!fresh) {
            it->second.start = std::min(it->second.start, k.start);
            it->second.end = std::max(it->second.end, k.end);
        }
    }
    return boxes;
}

// A merged launch is a box for each of its ops (as in the window's own timelines); the plan
// that ran names them.
void addOpBoxes(StreamRowsBuilder& rows, const store::RunRecord& run, const BoxMap& boxes,
    const std::vector<std::uint32_t>& opColour)
{
    std::map<std::string, std::int64_t> opIds;
    // The documents come from a file that may be damaged: only values of the right type count.
    for (std::size_t i = 0; i < run.model.ops.size(); ++i) {
        const auto& op = run.model.ops[i];
        if (op.is_object() && op.contains("name") && op["name"].is_string())
            opIds.emplace(op["name"].get<std::string>(), static_cast<std::int64_t>(i));
    }
    const auto& plan = run.schedule ? run.schedule->plan : nlohmann::ordered_json();
    const nlohmann::ordered_json* launches
        = plan.is_object() && plan.contains("launches") && plan["launches"].is_array() ? &plan["launches"] : nullptr;
    for (const auto& [key, box] : boxes) {
        std::vector<std::int64_t> ops;
        if (launches && key.first >= 0 && static_cast<std::size_t>(key.first) < launches->size()) {
            const auto& launch = (*launches)[static_cast<std::size_t>(key.first)];
            if (launch.is_object() && launch.contains("ops") && launch["ops"].is_array())
                for (const auto& name : launch["ops"])
                    if (name.is_string())
                        if (auto it = opIds.find(name.get<std::string>()); it != opIds.end())
                            ops.push_back(it->second);
        }
        if (ops.empty() && box.op)
            ops.push_back(*box.op);
        // A kernel no op claims is shown only in its kernel row.
        for (auto op : ops)
            rows.addOp(key.second, static_cast<double>(box.start) * kNs, static_cast<double>(box.end) * kNs,
                static_cast<std::uint32_t>(op), colourFor(opColour, op));
    }
}

// A mapping's run (profile --mapping): stream u is device u, named in the schedule's params.
void nameDeviceRows(TimelineData& data, const store::RunRecord& run)
{
    if (run.schedule && run.schedule->params.is_object() && run.schedule->params.contains("devices")
        && run.schedule->params["devices"].is_array()) {
        const auto& devices = run.schedule->params["devices"];
        for (std::size_t r = 0; r < data.rowNames.size() && r < data.rowStreams.size(); ++r) {
            const std::int64_t stream = data.rowStreams[r];
            if (data.rowKind(r) == TimelineRowKind::Ops && stream >= 0
                && static_cast<std::size_t>(stream) < devices.size()
                && devices[static_cast<std::size_t>(stream)].is_string())
                data.rowNames[r] = devices[static_cast<std::size_t>(stream)].get<std::string>();
        }
    }
}

} // namespace

std::shared_ptr<const TimelineData> timelineFromRun(const store::RunRecord& run)
{
    auto data = std::make_shared<TimelineData>();
    data->modelOps = run.model.opCount;
    std::vector<std::uint32_t> opColour;
    for (const auto& op : run.model.ops) {
        const std::string name = op.value("name", std::string());
        const std::string type = op.value("type", std::string());
        data->opLabels.push_back(name + "\n" + type);
        opColour.push_back(colourOf(type));
    }

    // Streams in id order, an op row and a kernel row each.
    std::vector<std::int64_t> streams;
    for (const auto& k : run.kernels)
        streams.push_back(k.streamId);
    StreamRowsBuilder rows(*data, std::move(streams));
    const BoxMap boxes = addKernels(*data, rows, run, opColour);
    addOpBoxes(rows, run, boxes, opColour);
    data->rows.finish();
    nameDeviceRows(*data, run);

    for (const auto& st : run.stages)
        data->stages.emplace_back(static_cast<double>(st.startNs) * kNs, static_cast<double>(st.endNs) * kNs);
    for (const auto& w : run.warps)
        data->warps.push_back({ static_cast<double>(w.timeNs) * kNs, w.activeWarps });
    // Stored in time order; a damaged file's calls that run backwards are left out.
    for (const auto& h : run.hostCalls)
        if (h.endNs >= h.startNs && (data->host.empty() || h.startNs * kNs >= data->host.back().start))
            data->host.push_back({ static_cast<double>(h.startNs) * kNs, static_cast<double>(h.endNs) * kNs,
                hostCallKind(h.name), h.launchId && *h.launchId >= 0 ? static_cast<std::uint32_t>(*h.launchId) : ~0U });
    if (run.device.smCount && run.device.maxWarpsPerSm)
        data->maxWarps = static_cast<double>(*run.device.smCount) * *run.device.maxWarpsPerSm;
    for (const auto& w : run.warps)
        data->maxWarps = std::max(data->maxWarps, w.activeWarps);
    const double median = run.latenciesNs.empty() ? 0.0 : store::latencyStats(run.latenciesNs).medianNs * kNs;
    data->latency = std::max(median, data->rows.lastEnd());
    return data;
}

std::shared_ptr<const ScheduleResult> resultFromRun(store::RunRecord run)
{
    auto result = std::make_shared<ScheduleResult>();
    result->request.scheduler = run.schedule ? run.schedule->scheduler : std::string("(failed)");
    result->request.device = run.device.key;
    result->request.cudaGraph = run.cudaGraph;
    if (run.schedule) {
        // A damaged database may hold anything in these documents: take only values of the right type.
        const auto& params = run.schedule->params;
        if (params.is_object()) {
            if (params.contains("r") && params["r"].is_number_unsigned())
                result->request.pruning.r = params["r"].get<std::size_t>();
            if (params.contains("s") && params["s"].is_number_unsigned())
                result->request.pruning.s = params["s"].get<std::size_t>();
            if (params.contains("lowering") && params["lowering"].is_string())
                result->request.pruning.lowering = params["lowering"].get<std::string>();
        }
        result->output.searchSeconds = run.schedule->searchSeconds;
        const auto& plan = run.schedule->plan;
        if (plan.is_object() && plan.contains("streams") && plan["streams"].is_number_unsigned())
            result->output.plan.streams = plan["streams"].get<std::uint32_t>();
    }
    result->output.scheduler = result->request.scheduler;
    result->batch = run.batch;
    if (!run.latenciesNs.empty())
        result->latency = store::latencyStats(run.latenciesNs).medianNs * kNs;
    result->averageActiveWarps = run.averageActiveWarps.value_or(0.0);
    result->timeline = timelineFromRun(run);
    result->stored = std::make_shared<const store::RunRecord>(std::move(run));
    return result;
}

namespace {

// A mapping's predicted timeline as a run on its devices: each op's span as a kernel on the
// device's stream (stream u = device u), the device list as the device.
store::RunRecord recordFromMapping(const Graph& graph, const std::string& modelRef, const ScheduleResult& result)
{
    store::RunRecord run;
    run.device.key = run.device.name = result.request.device;
    run.device.simulated = true;
    run.model = profiler::modelRecord(graph, modelRef);
    run.schedule = store::ScheduleRecord {};
    run.schedule->scheduler = result.request.scheduler;
    run.batch = result.batch;
    run.startedAt = run.finishedAt = store::utcNow();
    run.latenciesNs = { result.latency / kNs };
    const auto placements = opPlacements(*result.timeline);
    for (std::size_t op = 0; op < placements.size() && op < graph.opCount(); ++op) {
        if (!placements[op])
            continue;
        store::KernelRecord k;
        k.start = static_cast<std::int64_t>(placements[op]->start / kNs);
        k.end = static_cast<std::int64_t>(placements[op]->end / kNs);
        k.streamId = std::max<std::int64_t>(0, placements[op]->stream);
        k.opId = static_cast<std::int64_t>(op);
        k.launchId = static_cast<std::int64_t>(op);
        k.shortName = toString(graph.ops()[op].kind);
        const auto device = static_cast<std::size_t>(k.streamId);
        k.demangledName = graph.ops()[op].name
            + (result.mapping && device < result.mapping->devices.size() ? " on " + result.mapping->devices[device]
                                                                         : "");
        run.kernels.push_back(std::move(k));
    }
    std::sort(run.kernels.begin(), run.kernels.end(),
        [](const store::KernelRecord& x, const store::KernelRecord& y) { return x.start < y.start; });
    run.notes = "a mapping's prediction: one span per op on its device, no kernels measured";
    return run;
}

} // namespace

store::RunRecord recordFromResult(const Graph& graph, const std::string& modelRef, const ScheduleResult& result)
{
    if (result.stored)
        return *result.stored;
    if (result.mapping && result.timeline)
        return recordFromMapping(graph, modelRef, result);
    const SimDevice& device = engine::simDeviceFor(result.request.device); // sim:NAME, sim:FILE.json
    store::RunRecord run;
    run.device = profiler::simDeviceRecord(device);
    run.model = profiler::modelRecord(graph, modelRef);
    run.schedule
        = profiler::scheduleRecord(graph, result.output, run.device.key, result.request.cudaGraph, result.latency);
    run.batch = result.batch;
    run.startedAt = run.finishedAt = store::utcNow();
    profiler::SimRunOptions options;
    options.sim.cudaGraph = result.request.cudaGraph;
    options.warps = true;
    profiler::fillSimulatedRun(run, graph, result.output, device, options);
    return run;
}

} // namespace opsched
