#include "commands.h"
#include "common_options.h"
#include "compare_mappers.h"
#include "engine/device_target.h"
#include "engine/model.h"
#include "engine/scheduling.h"
#include "explain_report.h"
#include "latency_report.h"

#include "engine/results_database.h"
#include "engine/scheduler_comparison.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>

namespace opsched::cli {
namespace {

// How many terms `compare --explain` names per scheduler.
constexpr std::size_t kLeadingTerms = 3;

// --explain: a row's breakdown against sequential, or why there is none.
nlohmann::ordered_json explainJson(const engine::StoredComparison::Explained& e)
{
    if (!e.breakdown)
        return { { "error", e.error } };
    const analysis::SpeedupBreakdown& r = *e.breakdown;
    nlohmann::ordered_json terms = nlohmann::ordered_json::object();
    for (const auto& t : r.terms)
        terms[t.key] = t.ns * 1e-6;
    return { { "against", "sequential" }, { "difference_ms", r.differenceNs * 1e-6 }, { "terms_ms", terms },
        { "leading", leadingTerms(r, kLeadingTerms) } };
}

// `compare --db`: the same side-by-side table, from the runs stored by `profile`.
int compareFromDatabase(const std::string& path, const store::ComparisonFilter& filter, bool json, bool explain)
{
    const engine::StoredComparison stored = engine::compareStoredRuns(path, filter, explain);
    const auto& groups = stored.groups;
    std::map<std::int64_t, nlohmann::ordered_json> explained;
    for (const auto& [run, e] : stored.explained)
        explained[run] = explainJson(e);
    auto opt = [](const std::optional<double>& v) { return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(); };
    if (json) {
        nlohmann::ordered_json doc;
        doc["database"] = path;
        doc["groups"] = nlohmann::ordered_json::array();
        for (const auto& g : groups) {
            if (g.rows.empty())
                continue;
            nlohmann::ordered_json jg = { { "model", g.modelName }, { "model_ref", g.modelRef }, { "batch", g.batch },
                { "device", g.deviceKey }, { "device_name", g.deviceName }, { "simulated", g.simulated },
                { "failed_runs", g.failedRuns }, { "results", nlohmann::ordered_json::array() } };
            for (const auto& r : g.rows)
                jg["results"].push_back({ { "scheduler", r.scheduler }, { "run", r.run.value() },
                    { "latency_ms", r.latency.medianNs * 1e-6 }, { "p10_ms", r.latency.p10Ns * 1e-6 },
                    { "p90_ms", r.latency.p90Ns * 1e-6 }, { "repeats", r.latency.repeats },
                    { "speedup", opt(r.speedup) }, { "average_active_warps", opt(r.averageActiveWarps) },
                    { "warps_vs_sequential", opt(r.warpsVsSequential) } });
            if (explain)
                for (auto& jr : jg["results"])
                    if (const auto it = explained.find(jr["run"].get<std::int64_t>()); it != explained.end())
                        jr["explain"] = it->second;
            doc["groups"].push_back(std::move(jg));
        }
        std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        return kExitOk;
    }
    bool first = true;
    for (const auto& g : groups) {
        if (g.rows.empty())
            continue;
        std::printf("%s%s, batch %lld, on %s (%s)%s\n", first ? "" : "\n", g.modelName.c_str(),
            static_cast<long long>(g.batch), g.deviceKey.c_str(), g.simulated ? "simulated" : "measured",
            g.failedRuns ? (" [" + std::to_string(g.failedRuns) + " failed runs]").c_str() : "");
        first = false;
        std::printf("%-13s %11s %9s %9s %8s %10s %9s %6s\n", "scheduler", "latency_ms", "p10_ms", "p90_ms", "speedup",
            "avg_warps", "warps_x", "run");
        for (const auto& r : g.rows) {
            char speedup[16] = "-", warps[16] = "-", gain[16] = "-";
            if (r.speedup)
                std::snprintf(speedup, sizeof speedup, "%.2fx", *r.speedup);
            if (r.averageActiveWarps)
                std::snprintf(warps, sizeof warps, "%.0f", *r.averageActiveWarps);
            if (r.warpsVsSequential)
                std::snprintf(gain, sizeof gain, "%.2fx", *r.warpsVsSequential);
            std::printf("%-13s %11.3f %9.3f %9.3f %8s %10s %9s %6lld\n", r.scheduler.c_str(), r.latency.medianNs * 1e-6,
                r.latency.p10Ns * 1e-6, r.latency.p90Ns * 1e-6, speedup, warps, gain,
                static_cast<long long>(r.run.value()));
        }
        if (explain) {
            std::printf("why, against sequential (shares of the difference; `explain --runs A,B` for the whole "
                        "breakdown)\n");
            for (const auto& r : g.rows)
                if (const auto it = explained.find(r.run.value()); it != explained.end())
                    std::printf("  %-13s %s\n", r.scheduler.c_str(),
                        it->second.contains("error") ? it->second["error"].get<std::string>().c_str()
                                                     : it->second["leading"].get<std::string>().c_str());
        }
    }
    return kExitOk;
}

struct CompareOptions {
    TargetOptions target;
    PruningOptions pruning;
    CostCacheOptions cache;
    std::string db;
    CompareMappersOptions mappers;
    bool explain = false;
};

// Every scheduler on `graph` and the device of `o`, side by side (text or JSON).
int compareSchedulers(const Graph& graph, const CompareOptions& o)
{
    const engine::SchedulerComparison c = engine::compareSchedulers(graph, { o.target, o.pruning, o.cache, o.explain });
    const double floor = c.floorSeconds;
    nlohmann::ordered_json results = nlohmann::ordered_json::array();
    std::vector<std::string> why; // --explain, per scheduler
    for (const auto& row : c.rows) {
        const SchedulerOutput& out = row.output;
        const PlanLatency& result = row.latency;
        nlohmann::ordered_json r;
        r["scheduler"] = row.scheduler;
        r["latency_ms"] = result.median * 1e3;
        addLatencyFields(r, result, floor);
        r["speedup"] = row.speedup;
        r["stages"] = out.schedule ? out.schedule->stages.size() : 0; // 0: a plan without stages
        r["streams"] = out.plan.streams;
        r["launches"] = out.plan.launches.size();
        r["waits"] = out.plan.waitCount();
        r["barriers"] = out.plan.barriers.size();
        r["average_active_warps"] = optionalJson(result.averageActiveWarps);
        r["search_seconds"] = out.searchSeconds;
        r["states"] = out.states;
        r["transitions"] = out.transitions;
        if (row.explanation) {
            r["explain"] = explainJson({ row.explanation, {} });
            why.push_back(row.scheduler + "|" + r["explain"]["leading"].get<std::string>());
        }
        results.push_back(std::move(r));
    }
    if (o.target.json) {
        nlohmann::ordered_json doc;
        doc["model"] = graph.name();
        doc["batch"] = graph.batch();
        doc["device"] = c.device;
        doc["simulated"] = c.simulated;
        doc["cuda_graph"] = o.target.cudaGraph;
        doc["floor_ms"] = floor * 1e3;
        doc["results"] = std::move(results);
        std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        return kExitOk;
    }
    std::printf("%s, batch %lld, on %s, %s\n", graph.name().c_str(), static_cast<long long>(graph.batch()),
        c.deviceDescription.c_str(),
        c.simulated ? (o.target.cudaGraph ? "one CUDA graph per plan" : "host launches, stage joins")
                    : ("median of " + std::to_string(kPlanReplays) + " CUDA graph replays").c_str());
    // Not a lower bound on a GPU: each op alone pays its own graph launch (docs/cli.md).
    std::printf("critical path of ops timed alone %.3f ms\n", floor * 1e3);
    std::printf("%-13s %11s %9s %9s %8s %8s %7s %8s %10s %9s\n", "scheduler", "latency_ms", "p10_ms", "p90_ms",
        "x_alone", "speedup", "stages", "streams", "avg_warps", "search_s");
    for (const auto& r : results) {
        const auto stages = r["stages"].get<std::size_t>();
        char warps[16] = "-";
        if (r["average_active_warps"].is_number())
            std::snprintf(warps, sizeof warps, "%.0f", r["average_active_warps"].get<double>());
        const double latency = r["latency_ms"].get<double>();
        std::printf("%-13s %11.3f %9.3f %9.3f %7.2fx %7.2fx %7s %8u %10s %9.3f\n",
            r["scheduler"].get<std::string>().c_str(), latency, r["p10_ms"].get<double>(), r["p90_ms"].get<double>(),
            floor > 0 ? latency / (floor * 1e3) : 0.0, r["speedup"].get<double>(),
            stages ? std::to_string(stages).c_str() : "-", r["streams"].get<std::uint32_t>(), warps,
            r["search_seconds"].get<double>());
    }
    if (o.explain) {
        std::printf("why, against sequential (shares of the difference; docs/explain.md defines the terms)\n");
        for (const auto& line : why) {
            const auto bar = line.find('|');
            std::printf("  %-13s %s\n", line.substr(0, bar).c_str(), line.substr(bar + 1).c_str());
        }
    }
    return kExitOk;
}

} // namespace

Runner addCompareCommand(CLI::App& app)
{
    auto opts = std::make_shared<CompareOptions>();
    auto* cmd = app.add_subcommand("compare", "Run every scheduler on a model and compare their latencies");
    addTargetOptions(*cmd, opts->target);
    addPruningOptions(*cmd, opts->pruning);
    addCostCacheOptions(*cmd, opts->cache);
    cmd->add_option("--db", opts->db,
        "Compare the runs stored in a results database (from `profile`) instead; MODEL, --batch and "
        "--device then filter");
    cmd->add_option("--devices", opts->mappers.devices,
        "Compare the mappers instead: map MODEL across these devices (as `map --devices`)");
    cmd->add_option("--link", opts->mappers.link, "With --devices: GBPS[,LATENCY_US] for every pair of devices");
    cmd->add_option("--time-limit", opts->mappers.timeLimitSeconds, "With --devices: seconds for milp and milp-split")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--objective", opts->mappers.objective,
           "With --devices: latency (default), throughput (--inputs L split per op), pipeline (a stream "
           "of inputs, steady state: every pipeline mapper against the replicated single-node baseline) or "
           "batch (those mappers with --inputs L in batches of --batch-size, fill and drain included)")
        ->check(CLI::IsMember({ "latency", "throughput", "pipeline", "batch" }));
    cmd->add_option(
           "--inputs", opts->mappers.inputs, "With --devices --objective throughput or batch: inputs (default 16)")
        ->check(rangeOf(engine::kMapInputs));
    cmd->add_option("--batch-size", opts->mappers.batchSize,
           "With --devices --objective batch: inputs per batch (default: a quarter of --inputs)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--max-module-tasks", opts->mappers.maxModuleTasks,
           "With --devices: milp-split's largest module solved as one piece (default 12)")
        ->check(rangeOf(engine::kMaxModuleTasks));
    cmd->add_flag("--equal-time", opts->mappers.equalTime,
        "With --devices (latency or throughput): run sa and ea for as long as milp-split took (the paper's "
        "equal runtime)");
    addMapInputOptions(*cmd, opts->mappers.files); // with --devices (or instead of it): measured costs, topology, links
    cmd->add_flag("--explain", opts->explain,
        "Add, per scheduler, the leading terms of its difference to sequential (kernel time, overlap, launch "
        "and synchronisation idle time; simulated devices or --db)");
    // With --db, MODEL is an optional filter; without it, the runner insists on it.
    cmd->get_option("MODEL")->required(false);

    return [opts, cmd]() {
        if (!opts->db.empty()) {
            for (const char* name : { "--r", "--s", "--cuda-graph", "--cost-cache-file", "--no-cost-cache" })
                if (cmd->count(name) > 0) {
                    std::cerr << "opsched-cli: compare --db reads stored runs; " << name << " does not apply\n";
                    return kExitUsage;
                }
            store::ComparisonFilter filter;
            if (!opts->target.model.empty())
                filter.model = opts->target.model;
            if (cmd->count("--batch") > 0)
                filter.batch = opts->target.batch;
            if (cmd->count("--device") > 0)
                filter.device = opts->target.device;
            return compareFromDatabase(opts->db, filter, opts->target.json, opts->explain);
        }
        if (opts->target.model.empty()) {
            std::cerr << "opsched-cli: compare: MODEL is required (or --db FILE)\n";
            std::cerr << "Run 'opsched-cli compare --help' for usage.\n";
            return kExitUsage;
        }
        const bool mappers = !opts->mappers.devices.empty() || devicesFromFiles(opts->mappers.files);
        if (!mappers)
            for (const char* name : { "--link", "--time-limit", "--objective", "--inputs", "--batch-size",
                     "--max-module-tasks", "--equal-time", "--links", "--write-costs", "--symmetry" })
                if (cmd->count(name) > 0) {
                    std::cerr << "opsched-cli: compare: " << name
                              << " applies to the mappers: give --devices (or --costs/--topology)\n";
                    return kExitUsage;
                }
        const Graph graph = openModel(opts->target);
        if (mappers && opts->explain) {
            std::cerr << "opsched-cli: compare: --explain applies to the schedulers, not to --devices\n";
            return kExitUsage;
        }
        if (mappers)
            return compareMappers(graph, opts->mappers, opts->cache, opts->target.json);
        return compareSchedulers(graph, *opts);
    };
}

} // namespace opsched::cli
