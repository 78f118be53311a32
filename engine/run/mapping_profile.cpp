#include "engine/run/mapping_profile.h"

#include "engine/model.h"
#include "engine/results_database.h"
#include "engine/run/mapping_run.h"
#include "engine/schedule_files.h"

#include "session/sim_run.h"
#include "util/error.h"
#include "util/statistics.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

namespace opsched::engine {

MappingProfile profileMapping(const MappingProfileRequest& request)
{
    const std::string& model = request.model;
    const std::int64_t batch = request.batch;
    const std::string& mappingFile = request.mappingFile;
    const int repeats = request.repeats;
    const Graph graph = openModel({ model, batch, {} });
    const MappingRun mapping = prepareMappingRun(graph, mappingFile);
    std::string devices;
    for (const auto& d : mapping.doc.devices)
        devices += (devices.empty() ? "" : ",") + d;

    store::RunRecord run;
    run.jobKey = "mapping|" + model + "|" + std::to_string(batch) + "|" + devices + "|" + mapping.doc.mapper;
    run.device.key = "map:" + devices;
    run.device.name = "mapping over " + devices;
    run.device.simulated = false;
    run.simulated = false;
    run.model = profiler::modelRecord(graph, model);
    run.batch = batch;
    store::ScheduleRecord schedule;
    schedule.scheduler = "map:" + (mapping.doc.mapper.empty() ? std::string("hand-made") : mapping.doc.mapper);
    schedule.format = "opsched-plan";
    {
        std::ifstream in(mappingFile, std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        schedule.document = nlohmann::ordered_json::parse(text.str());
    }
    ScheduleDocument planDoc = planDocument(graph, mapping.plan, schedule.scheduler);
    planDoc.device = run.device.key;
    schedule.plan = documentJson(graph, planDoc);
    schedule.params["devices"] = mapping.doc.devices;
    if (mapping.predictedMs > 0)
        schedule.params["predicted_ms"] = mapping.predictedMs;
    run.schedule = schedule;
    run.startedAt = store::utcNow();

    cpu::CpuOptions options;
    options.partitions = mapping.partitions;
    cpu::CpuExecutor executor(graph, mapping.plan, options);
    const auto inputs = cpu::seededInputs(graph, 1);
    executor.run(inputs); // warm-up
    for (int r = 0; r < repeats; ++r) {
        executor.run(inputs);
        run.latenciesNs.push_back(measuredSpanMs(executor.lastLaunchTimings()) * 1e6);
    }
    std::int64_t origin = std::numeric_limits<std::int64_t>::max();
    for (const auto& t : executor.lastLaunchTimings())
        origin = std::min(origin, t.startNs);
    for (const auto& t : executor.lastLaunchTimings()) {
        const Launch& launch = mapping.plan.launches[t.launch];
        store::KernelRecord k;
        k.start = t.startNs - origin;
        k.end = t.endNs - origin;
        k.streamId = launch.stream.value();
        k.opId = launch.ops.front().value();
        k.launchId = static_cast<std::int64_t>(t.launch);
        k.shortName = graph.op(launch.ops.front()).name;
        k.demangledName = k.shortName + " on " + mapping.doc.devices[launch.stream.value()];
        run.kernels.push_back(std::move(k));
    }
    run.finishedAt = store::utcNow();
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    run.host = host;
    run.notes = "a mapping on CPU devices: stream u is device u (" + devices + "); one span per op, timed on the host";

    MappingProfile p;
    p.id = storeRun(request.database, run);
    p.model = graph.name();
    p.devices = devices;
    p.medianMs = opsched::median(run.latenciesNs) * 1e-6;
    p.predictedMs = mapping.predictedMs;
    return p;
}

} // namespace opsched::engine
