#include "commands.h"
#include "common_options.h"

#include "model/model_ref.h"
#include "schedule/schedulers.h"
#include "sim/simulator.h"

#include <cstdio>
#include <iostream>
#include <memory>

namespace opsched::cli {

Runner addCompareCommand(CLI::App& app)
{
    struct Options {
        TargetOptions target;
        PruningOptions pruning;
    };
    auto opts = std::make_shared<Options>();
    auto* cmd = app.add_subcommand("compare", "Run every scheduler on a model and compare their latencies");
    addTargetOptions(*cmd, opts->target);
    addPruningOptions(*cmd, opts->pruning);

    return [opts]() {
        const Graph graph = loadModel(opts->target.model, opts->target.batch);
        const SimDevice& device = simDeviceFor(opts->target.device);
        const SimOptions sim{opts->target.cudaGraph};
        SimulatedStageCost cost(device, sim);
        SchedulerParams params;
        params.r = opts->pruning.r;
        params.s = opts->pruning.s;

        nlohmann::ordered_json results = nlohmann::ordered_json::array();
        double sequential = 0;
        for (const auto& name : schedulerNames()) {
            const SchedulerOutput out = runScheduler(name, graph, cost, params);
            const SimResult result = simulate(graph, out.plan, device, sim);
            if (name == "sequential")
                sequential = result.latency;
            nlohmann::ordered_json r;
            r["scheduler"] = name;
            r["latency_ms"] = result.latency * 1e3;
            r["speedup"] = sequential > 0 ? sequential / result.latency : 1.0;
            r["stages"] = out.schedule ? out.schedule->stages.size() : 0; // 0: a plan without stages
            r["streams"] = out.plan.streams;
            r["launches"] = out.plan.launches.size();
            r["waits"] = out.plan.waitCount();
            r["barriers"] = out.plan.barriers.size();
            r["average_active_warps"] = result.averageActiveWarps;
            r["search_seconds"] = out.searchSeconds;
            r["states"] = out.states;
            r["transitions"] = out.transitions;
            results.push_back(std::move(r));
        }
        if (opts->target.json) {
            nlohmann::ordered_json doc;
            doc["model"] = graph.name();
            doc["batch"] = graph.batch();
            doc["device"] = "sim:" + device.name;
            doc["cuda_graph"] = opts->target.cudaGraph;
            doc["results"] = std::move(results);
            std::cout << doc.dump(2) << "\n";
            return kExitOk;
        }
        std::printf("%s, batch %lld, on sim:%s (simulated, %s)\n", graph.name().c_str(),
                    static_cast<long long>(graph.batch()), device.name.c_str(),
                    opts->target.cudaGraph ? "one CUDA graph per plan" : "host launches, stage joins");
        std::printf("%-13s %11s %8s %7s %8s %10s %9s\n", "scheduler", "latency_ms", "speedup", "stages", "streams",
                    "avg_warps", "search_s");
        for (const auto& r : results) {
            const auto stages = r["stages"].get<std::size_t>();
            std::printf("%-13s %11.3f %7.2fx %7s %8u %10.0f %9.3f\n", r["scheduler"].get<std::string>().c_str(),
                        r["latency_ms"].get<double>(), r["speedup"].get<double>(),
                        stages ? std::to_string(stages).c_str() : "-", r["streams"].get<std::uint32_t>(),
                        r["average_active_warps"].get<double>(), r["search_seconds"].get<double>());
        }
        return kExitOk;
    };
}

} // namespace opsched::cli
