// `opsched-cli map`: DiviML's heterogeneous mapping of one model across several devices.
#include "commands.h"
#include "common_options.h"
#include "engine/map_actions.h"
#include "engine/map_devices.h"
#include "engine/model.h"
#include "map_inputs.h"
#include "map_pipeline.h"

#include "util/printable.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>

namespace opsched::cli {

namespace {

int printThroughputMapping(const Graph& graph, const engine::ThroughputMapping& m, const std::string& output, bool json)
{
    const map::ThroughputProblem& problem = m.problem;
    const map::ThroughputResult& r = m.result;
    const double bound = m.lowerBound;
    if (json) {
        std::cout << m.document.dump(2) << "\n";
        return kExitOk;
    }
    std::printf("%s (throughput) on %s, %lld inputs in batches of", r.mapper.c_str(), graph.name().c_str(),
        static_cast<long long>(problem.inputs));
    for (auto s : problem.sizes)
        std::printf(" %lld", static_cast<long long>(s));
    std::printf(", %zu ops over %zu devices\n", problem.base.taskCount(), problem.base.deviceCount());
    std::printf("throughput   %.1f inputs/s (makespan %.4f ms); at most %.1f inputs/s (lower bound %.4f ms)\n",
        r.times.throughput, r.times.makespan * 1e3, static_cast<double>(problem.inputs) / bound, bound * 1e3);
    std::printf("status       %s", map::toString(r.status));
    if (!std::isnan(r.gap))
        std::printf(", gap %.2f%%", r.gap * 100);
    std::printf(", %.3f s\n", r.solveSeconds);
    for (std::uint32_t u = 0; u < problem.base.deviceCount(); ++u)
        std::printf("%-12s %zu batches\n", problem.base.devices[u].name.c_str(), r.mapping.order[u].size());
    std::printf("transfers    %zu (%.2f MB)\n", r.times.transfers, r.times.transferredBytes / 1e6);
    if (!output.empty())
        std::printf("written to   %s\n", output.c_str());
    return kExitOk;
}

} // namespace

Runner addMapCommand(CLI::App& app)
{
    struct Options : engine::MapRequest {
        std::string output;
        bool json = false;
        CostCacheOptions cache;
        MapInputOptions files; // --costs, --topology, --links, --write-costs, --symmetry
        std::string progress = "text";
    };
    auto opts = std::make_shared<Options>();
    auto* cmd
        = app.add_subcommand("map", "Map a model's ops across several devices (DiviML: MILP, MILP-SPLIT, heuristics)");
    cmd->add_option("model", opts->model, "ONNX file or zoo:NAME")->required();
    cmd->add_option("--batch", opts->batch, "Batch size (default 1)")->check(rangeOf(engine::kBatch));
    addShapeOption(*cmd, opts->shapes);
    cmd->add_option("--devices", opts->devices,
        "Comma-separated devices: sim:NAME (GPU presets, sim:xeon; sim:paper-* at the paper's relative speeds, "
        "sim:mixed-* with ops preferring different devices), cpu, cpu:N (core partitions), cuda:N");
    cmd->add_option(
        "--mapper", opts->mapper, mapperNameList() + " (default: " + std::string(engine::kDefaultMapper) + ")");
    cmd->add_option("--inputs", opts->inputs,
           "--objective throughput: inputs to process (default 16), split into "
           "batches of L/4, L/2, 3L/4 or L per op and device")
        ->check(rangeOf(engine::kMapInputs));
    cmd->add_option("--objective", opts->objective,
           "latency (one input, default), throughput (--inputs L), pipeline (a stream of inputs, "
           "steady state: the GPT-3 case study) or batch (--inputs L through a pipeline mapping in batches "
           "of --batch-size, fill and drain included: Table V as the paper measures it)")
        ->check(CLI::IsMember({ "latency", "throughput", "pipeline", "batch" }));
    cmd->add_option("--batch-size", opts->batchSize,
           "--objective batch: inputs per batch (default: a quarter of --inputs); --inputs must be a multiple")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--time-limit", opts->timeLimitSeconds,
           "Seconds for milp and milp-split (and the cap of sa, ea); default 60")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--link", opts->link,
        "GBPS[,LATENCY_US] for every pair of devices (default: PCIe 4.0 x16, 25 GB/s and 10 us; "
        "between CPU partitions, the hand-off measured on the model)");
    cmd->add_option("--memory", opts->memory, "GB per device, in --devices order (default: each device's own)");
    cmd->add_option("--seed", opts->seed, "Seed of sa and ea (default 1)");
    cmd->add_option("--max-module-tasks", opts->maxModuleTasks,
           "milp-split: largest module solved as one piece (default 12; by its exact branch and bound, "
           "which proves modules of a dozen or two tasks)")
        ->check(rangeOf(engine::kMaxModuleTasks));
    cmd->add_option("-o,--output", opts->output, "Write the mapping JSON to FILE (run --mapping reads it)");
    cmd->add_flag("--json", opts->json, "Print the mapping JSON instead of the summary");
    addCostCacheOptions(*cmd, opts->cache);
    addMapInputOptions(*cmd, opts->files);
    cmd->add_option("--progress", opts->progress,
           "text (the summary only) or json (first one JSON object per phase on stdout: costs, search, done; "
           "for programs: docs/cli.md)")
        ->check(CLI::IsMember({ "text", "json" }))
        ->capture_default_str();

    return [opts]() {
        if (opts->devices.empty() && !devicesFromFiles(opts->files)) {
            std::cerr << "opsched-cli: map: --devices is required (or --topology FILE, or --costs FILE)\n"
                         "Run 'opsched-cli map --help' for usage.\n";
            return kExitUsage;
        }
        const Graph graph = openModel(*opts);
        engine::MapSources sources { opts->cache, opts->files, opts->output, {} };
        if (opts->progress == "json")
            sources.progress = [](const engine::child::MapProgressEvent& e) {
                std::printf("%s\n", engine::child::toJsonLine(e).c_str());
                std::fflush(stdout);
            };
        if (opts->objective == "throughput")
            return printThroughputMapping(
                graph, engine::mapForThroughput(graph, *opts, sources), opts->output, opts->json);
        if (opts->objective == "batch") {
            printBatchedMapping(graph, engine::mapForBatch(graph, *opts, sources), opts->output, opts->json);
            return kExitOk;
        }
        if (opts->objective == "pipeline") { // the GPT-3 case study
            printPipelineMapping(graph, engine::mapForPipeline(graph, *opts, sources), opts->output, opts->json);
            return kExitOk;
        }
        const engine::LatencyMapping m = engine::mapForLatency(graph, *opts, sources);
        const map::MappingProblem& problem = m.problem;
        const map::MapResult& result = m.result;
        const double bound = m.lowerBound;
        if (result.status == map::SolveStatus::Timeout)
            std::fprintf(stderr,
                "opsched-cli map: the time limit (%.1f s) ended the search; the best mapping found "
                "is kept (gap %.1f%% to the solver's bound)\n",
                opts->timeLimitSeconds, std::isnan(result.gap) ? 0.0 : result.gap * 100);
        if (opts->json) {
            std::cout << m.document.dump(2) << "\n";
            return kExitOk;
        }
        std::printf("%s on %s, batch %lld, %zu ops over %zu devices\n", result.mapper.c_str(), graph.name().c_str(),
            static_cast<long long>(graph.batch()), problem.taskCount(), problem.deviceCount());
        std::printf("makespan     %.4f ms (lower bound %.4f ms)\n", result.times.makespan * 1e3, bound * 1e3);
        if (result.joinedMakespan > 0 && result.joinedMakespan != result.times.makespan)
            std::printf("joined       %.4f ms (the modules' own mappings, before the polished heuristics)\n",
                result.joinedMakespan * 1e3);
        std::printf("status       %s", map::toString(result.status));
        if (!std::isnan(result.gap))
            std::printf(", gap %.2f%%", result.gap * 100);
        std::printf(", %.3f s\n", result.solveSeconds);
        for (std::uint32_t u = 0; u < problem.deviceCount(); ++u) {
            double busy = 0;
            for (std::uint32_t t : result.mapping.order[u])
                busy += problem.seconds(t, u);
            std::printf("%-12s %zu ops, busy %.4f ms, %.1f MB resident\n", problem.devices[u].name.c_str(),
                result.mapping.order[u].size(), busy * 1e3, result.times.memoryBytes[u] / 1e6);
        }
        double moved = 0;
        for (const auto& x : result.times.transfers)
            moved += x.bytes;
        std::printf("transfers    %zu (%.2f MB)\n", result.times.transfers.size(), moved / 1e6);
        if (!opts->output.empty())
            std::printf("written to   %s\n", opts->output.c_str());
        return kExitOk;
    };
}

} // namespace opsched::cli
