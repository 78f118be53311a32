#include "commands.h"
#include "device_option.h"

#include "model/model_ref.h"
#include "schedule/schedule_file.h"
#include "schedule/schedulers.h"
#include "sim/simulator.h"

#include <cstdio>
#include <iostream>
#include <memory>

namespace opsched::cli {

Runner addScheduleCommand(CLI::App& app)
{
    struct Options {
        std::string model;
        std::string scheduler;
        std::string device = kDefaultDevice;
        std::int64_t batch = 1;
        std::size_t r = 3, s = 8;
        std::string output;
        bool json = false;
        bool cudaGraph = false;
    };
    auto opts = std::make_shared<Options>();
    auto* cmd = app.add_subcommand("schedule", "Find a schedule for a model and write it to a file");
    cmd->add_option("MODEL", opts->model, "zoo:NAME[?key=value&...] or a model file")->required();
    cmd->add_option("--scheduler", opts->scheduler, "sequential, greedy, ios, ios-parallel, ios-merge, nimble, opara")
        ->required();
    cmd->add_option("--device,-d", opts->device, "Device: sim:NAME (sim:v100, sim:a100, sim:h100, ...)")
        ->capture_default_str();
    cmd->add_option("--batch,-b", opts->batch, "Batch size")->check(CLI::Range(1, 65536));
    cmd->add_option("--r", opts->r, "IOS pruning: most ops per group")->check(CLI::Range(1, 64))->capture_default_str();
    cmd->add_option("--s", opts->s, "IOS pruning: most groups per stage (greedy: most ops per stage)")
        ->check(CLI::Range(1, 64))
        ->capture_default_str();
    cmd->add_flag("--cuda-graph", opts->cudaGraph, "Estimate the latency as one CUDA graph replay");
    cmd->add_option("-o,--output", opts->output, "Write the schedule (or plan) JSON to FILE");
    cmd->add_flag("--json", opts->json, "Print the schedule document instead of a summary");

    return [opts]() {
        const Graph graph = loadModel(opts->model, opts->batch);
        const SimDevice& device = simDeviceFor(opts->device);
        SimulatedStageCost cost(device, SimOptions{opts->cudaGraph});
        SchedulerParams params;
        params.r = opts->r;
        params.s = opts->s;
        const SchedulerOutput out = runScheduler(opts->scheduler, graph, cost, params);
        if (auto problems = validate(graph, out.plan); !problems.empty())
            throw Error("internal: " + opts->scheduler + " produced an invalid plan: " + problems.front());
        const SimResult sim = simulate(graph, out.plan, device, SimOptions{opts->cudaGraph});

        ScheduleDocument doc = out.schedule ? makeScheduleDocument(graph, *out.schedule, opts->scheduler)
                                            : makePlanDocument(graph, out.plan, opts->scheduler);
        doc.device = "sim:" + device.name;
        doc.params = out.params;
        doc.params["cuda_graph"] = opts->cudaGraph;
        doc.latencyMs = sim.latency * 1e3;
        const auto json = toJson(graph, doc);
        if (!opts->output.empty())
            writeScheduleFile(opts->output, json);

        if (opts->json) {
            std::cout << json.dump(2) << "\n";
            return kExitOk;
        }
        std::printf("%s on %s, batch %lld, device sim:%s (simulated)\n", opts->scheduler.c_str(), graph.name().c_str(),
                    static_cast<long long>(graph.batch()), device.name.c_str());
        std::printf("latency      %.3f ms\n", sim.latency * 1e3);
        if (out.schedule)
            std::printf("stages       %zu\n", out.schedule->stages.size());
        std::printf("streams      %u (%zu launches, %zu event waits, %zu barriers)\n", out.plan.streams,
                    out.plan.launches.size(), out.plan.waitCount(), out.plan.barriers.size());
        std::printf("active warps %.0f on average\n", sim.averageActiveWarps);
        std::printf("search       %.3f s", out.searchSeconds);
        if (out.states)
            std::printf(", %zu states, %zu transitions", out.states, out.transitions);
        std::printf("\n");
        if (!opts->output.empty())
            std::printf("written to   %s\n", opts->output.c_str());
        return kExitOk;
    };
}

Runner addEvaluateCommand(CLI::App& app)
{
    struct Options {
        std::string model;
        std::string file;
        std::string device = kDefaultDevice;
        std::int64_t batch = 1;
        bool json = false;
        bool cudaGraph = false;
    };
    auto opts = std::make_shared<Options>();
    auto* cmd = app.add_subcommand("evaluate", "Latency of a schedule or plan file on a device");
    cmd->add_option("MODEL", opts->model, "zoo:NAME[?key=value&...] or a model file")->required();
    cmd->add_option("--schedule", opts->file, "Schedule or plan JSON (from `schedule -o`, or edited by hand)")
        ->required();
    cmd->add_option("--device,-d", opts->device, "Device: sim:NAME")->capture_default_str();
    cmd->add_option("--batch,-b", opts->batch, "Batch size")->check(CLI::Range(1, 65536));
    cmd->add_flag("--cuda-graph", opts->cudaGraph, "Estimate the latency as one CUDA graph replay");
    cmd->add_flag("--json", opts->json, "Print JSON");

    return [opts]() {
        const Graph graph = loadModel(opts->model, opts->batch);
        const SimDevice& device = simDeviceFor(opts->device);
        const ScheduleDocument doc = readScheduleFile(graph, opts->file);
        std::vector<std::string> problems = doc.schedule ? validate(graph, *doc.schedule) : validate(graph, *doc.plan);
        if (!problems.empty()) {
            std::string all;
            for (std::size_t i = 0; i < problems.size() && i < 20; ++i)
                all += "\n  " + problems[i];
            if (problems.size() > 20)
                all += "\n  ... and " + std::to_string(problems.size() - 20) + " more";
            throw Error("'" + opts->file + "' is not a valid " + (doc.schedule ? "schedule" : "plan") + " for " +
                        graph.name() + ":" + all);
        }
        const Plan plan = doc.executablePlan(graph);
        const SimResult sim = simulate(graph, plan, device, SimOptions{opts->cudaGraph});
        if (opts->json) {
            nlohmann::ordered_json j;
            j["model"] = graph.name();
            j["batch"] = graph.batch();
            j["device"] = "sim:" + device.name;
            j["scheduler"] = doc.scheduler;
            j["latency_ms"] = sim.latency * 1e3;
            j["stages"] = doc.schedule ? doc.schedule->stages.size() : 0;
            j["streams"] = plan.streams;
            j["waits"] = plan.waitCount();
            j["average_active_warps"] = sim.averageActiveWarps;
            std::cout << j.dump(2) << "\n";
            return kExitOk;
        }
        std::printf("%s (%s) on %s, batch %lld, device sim:%s (simulated)\n", opts->file.c_str(),
                    doc.scheduler.empty() ? "hand-made" : doc.scheduler.c_str(), graph.name().c_str(),
                    static_cast<long long>(graph.batch()), device.name.c_str());
        std::printf("latency      %.3f ms\n", sim.latency * 1e3);
        std::printf("streams      %u (%zu launches, %zu event waits, %zu barriers)\n", plan.streams,
                    plan.launches.size(), plan.waitCount(), plan.barriers.size());
        std::printf("active warps %.0f on average\n", sim.averageActiveWarps);
        return kExitOk;
    };
}

} // namespace opsched::cli
