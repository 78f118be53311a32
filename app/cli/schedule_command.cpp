#include "commands.h"
#include "common_options.h"
#include "engine/device_target.h"
#include "engine/evaluation.h"
#include "engine/model.h"
#include "engine/schedule_files.h"
#include "engine/scheduling.h"
#include "latency_report.h"

#include <cstdio>
#include <iostream>
#include <memory>

namespace opsched::cli {

Runner addScheduleCommand(CLI::App& app)
{
    struct Options {
        TargetOptions target;
        PruningOptions pruning;
        CostCacheOptions cache;
        std::string scheduler;
        std::string output;
    };
    auto opts = std::make_shared<Options>();
    auto* cmd = app.add_subcommand("schedule", "Find a schedule for a model and write it to a file");
    addTargetOptions(*cmd, opts->target);
    addPruningOptions(*cmd, opts->pruning);
    addCostCacheOptions(*cmd, opts->cache);
    cmd->add_option("--scheduler", opts->scheduler, schedulerNameList())->required();
    cmd->add_option("-o,--output", opts->output, "Write the schedule (or plan) JSON to FILE");

    return [opts]() {
        const Graph graph = openModel(opts->target);
        DeviceTarget target(opts->target.device, opts->target.cudaGraph, opts->cache);
        const SchedulerOutput out = engine::runCheckedScheduler(opts->scheduler, graph, target.cost(), opts->pruning);
        const PlanLatency latency = target.latency(graph, out.plan);
        const double floor = target.floor(graph);
        target.flush();

        ScheduleDocument doc = documentOf(graph, out, opts->scheduler);
        doc.device = target.name();
        doc.params = out.params;
        doc.params["cuda_graph"] = opts->target.cudaGraph;
        doc.latencyMs = latency.median * 1e3;
        const auto json = documentJson(graph, doc, latency, floor);
        if (!opts->output.empty())
            writeDocument(opts->output, json);

        if (opts->target.json) {
            std::cout << json.dump(2) << "\n";
            return kExitOk;
        }
        std::printf("%s on %s, batch %lld, device %s\n", opts->scheduler.c_str(), graph.name().c_str(),
            static_cast<long long>(graph.batch()), target.describe().c_str());
        printLatencyLines(latency, floor);
        if (out.schedule)
            std::printf("stages       %zu\n", out.schedule->stages.size());
        std::printf("streams      %u (%zu launches, %zu event waits, %zu barriers)\n", out.plan.streams,
            out.plan.launches.size(), out.plan.waitCount(), out.plan.barriers.size());
        if (latency.averageActiveWarps)
            std::printf("active warps %.0f on average\n", *latency.averageActiveWarps);
        std::printf("search       %.3f s", out.searchSeconds);
        if (out.states)
            std::printf(", %zu states, %zu transitions", out.states, out.transitions);
        std::printf("\n");
        if (MeasuredStageCost* measured = target.measured()) {
            // Where a search on the GPU spent its time: what to look at when it is slow.
            const MeasuredCostCounts& c = measured->counts();
            const TimerStats t = measured->timer().stats();
            std::printf(
                "measured     %zu stages and %zu ops timed, %zu from the cache file, %zu repeats; compile %.2f s, "
                "capture %.2f s, replays %.2f s\n",
                c.stagesTimed, c.opsTimed, c.storeHits, c.memoryHits, t.compileSeconds, t.captureSeconds,
                t.replaySeconds);
        }
        if (!opts->output.empty())
            std::printf("written to   %s\n", opts->output.c_str());
        return kExitOk;
    };
}

Runner addEvaluateCommand(CLI::App& app)
{
    struct Options : engine::EvaluateRequest {
        TargetOptions target;
        CostCacheOptions cache;
    };
    auto opts = std::make_shared<Options>();
    auto* cmd = app.add_subcommand("evaluate", "Latency of a schedule or plan file on a device");
    addTargetOptions(*cmd, opts->target);
    addCostCacheOptions(*cmd, opts->cache);
    cmd->add_option("--schedule", opts->scheduleFile, "Schedule or plan JSON (from `schedule -o`, or edited by hand)")
        ->required();
    cmd->add_option("--lowering", opts->lowering,
           "For a schedule file: lower its stages with barriers or events (default: as the file says, "
           "else barriers); a plan file is already lowered")
        ->check(CLI::IsMember({ "barriers", "events" }));

    return [opts]() {
        const Graph graph = openModel(opts->target);
        DeviceTarget target(opts->target.device, opts->target.cudaGraph, opts->cache);
        ScheduleDocument doc = readScheduleDocument(graph, opts->scheduleFile);
        if (!opts->lowering.empty()) {
            if (!doc.schedule)
                throw Error("--lowering: '" + opts->scheduleFile
                    + "' is a plan, already lowered; it applies to schedule files");
            doc.params["lowering"] = opts->lowering;
        }
        const engine::Evaluation evaluation = engine::evaluateDocument(graph, doc, target);
        const std::vector<std::string>& problems = evaluation.problems;
        if (!problems.empty()) {
            std::string all;
            for (std::size_t i = 0; i < problems.size() && i < 20; ++i)
                all += "\n  " + problems[i];
            if (problems.size() > 20)
                all += "\n  ... and " + std::to_string(problems.size() - 20) + " more";
            throw Error("'" + opts->scheduleFile + "' is not a valid " + (doc.schedule ? "schedule" : "plan") + " for "
                + graph.name() + ":" + all);
        }
        const Plan& plan = evaluation.plan;
        const PlanLatency& latency = evaluation.latency;
        const double floor = target.floor(graph);
        target.flush();
        if (opts->target.json) {
            nlohmann::ordered_json j;
            j["model"] = graph.name();
            j["batch"] = graph.batch();
            j["device"] = target.name();
            j["scheduler"] = doc.scheduler;
            j["latency_ms"] = latency.median * 1e3;
            addLatencyFields(j, latency, floor);
            j["stages"] = doc.schedule ? doc.schedule->stages.size() : 0;
            j["streams"] = plan.streams;
            j["waits"] = plan.waitCount();
            j["barriers"] = plan.barriers.size();
            j["average_active_warps"] = optionalJson(latency.averageActiveWarps);
            std::cout << j.dump(2) << "\n";
            return kExitOk;
        }
        std::printf("%s (%s) on %s, batch %lld, device %s\n", opts->scheduleFile.c_str(),
            doc.scheduler.empty() ? "hand-made" : doc.scheduler.c_str(), graph.name().c_str(),
            static_cast<long long>(graph.batch()), target.describe().c_str());
        printLatencyLines(latency, floor);
        std::printf("streams      %u (%zu launches, %zu event waits, %zu barriers)\n", plan.streams,
            plan.launches.size(), plan.waitCount(), plan.barriers.size());
        if (latency.averageActiveWarps)
            std::printf("active warps %.0f on average\n", *latency.averageActiveWarps);
        return kExitOk;
    };
}

} // namespace opsched::cli
