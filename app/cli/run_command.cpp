// `run`: executes a model's plan on a real backend (the CPU through oneDNN, or the local GPU) and
// reports latency, peak memory and the outputs; with --input it runs on ONNX test data, with
// --check it compares the outputs with the reference ones there (a --mapping run without --input:
// with the single-device run, run_check.h). The steps are separate functions (plan, inputs, run,
// check, report).
#include "commands.h"
#include "common_options.h"
#include "engine/run/model_run.h"
#include "run_mapping.h"
#include "run_segments.h"
#include "run_throughput.h"

#include "util/statistics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>

namespace opsched::cli {
namespace {

// Rounds further apart than this (of their median) are called out: the measurement is not steady.
constexpr double kWideSpread = 0.10;

struct RunOptions : engine::RunRequest {
    bool json = false;
    bool primitives = false; // cpu: list the kernel oneDNN picked for every step
};

// Linear interpolation between the closest ranks (util/statistics.h, as everywhere).
double percentile(std::vector<double> values, double p)
{
    return quantile(std::move(values), p);
}

// --primitives: every step's kernel, then how many steps each kernel runs.
void printPrimitives(const engine::ModelRun& run)
{
    std::printf("primitives   %zu steps, oneDNN ISA %s\n", run.kernels.size(), run.cpuIsa.c_str());
    std::map<std::string, int> counts;
    for (const auto& p : run.kernels) {
        std::printf("  %4zu  %-40s %s%s\n", p.launch, p.op.c_str(), p.implementation.c_str(),
            p.reference ? "   <- reference kernel" : "");
        ++counts[p.implementation];
    }
    for (const auto& [impl, n] : counts)
        std::printf("  %5d x %s\n", n, impl.c_str());
}

// JSON numbers cannot be NaN; a NaN error (a NaN output) is written as null.
nlohmann::ordered_json number(double v)
{
    return std::isnan(v) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(v);
}

nlohmann::ordered_json runJson(const engine::ModelRun& r, const RunOptions& o)
{
    const Graph& graph = r.graph;
    nlohmann::ordered_json j;
    j["model"] = graph.name();
    j["batch"] = graph.batch();
    j["backend"] = r.backend;
    j["scheduler"] = r.scheduler;
    j["threads"] = o.threads; // 0: oneDNN's default
    if (r.backend == "cpu") {
        j["cpu_isa"] = r.cpuIsa;
        j["cpu_layout"] = o.cpuLayout;
    }
    if (!o.cpuPartitions.empty())
        j["cpu_partitions"] = o.cpuPartitions;
    j["input"] = r.inputSource;
    j["latency_ms"] = r.medianMs();
    j["p10_ms"] = percentile(r.latenciesMs, 0.1);
    j["p90_ms"] = percentile(r.latenciesMs, 0.9);
    j["repeat"] = o.repeat;
    if (!r.roundMediansMs.empty()) {
        j["rounds"] = r.roundMediansMs.size();
        j["round_medians_ms"] = r.roundMediansMs;
        j["round_spread"] = r.roundSpread();
    }
    j["cpu_ms_per_run"] = r.cpuMsPerRun;
    j["load_ms"] = r.loadMs;
    j["prepare_ms"] = r.prepareMs;
    j["peak_bytes"] = r.peakBytes;
    j["peak_rss_bytes"] = engine::peakResidentBytes();
    j["outputs"] = nlohmann::ordered_json::array();
    for (std::size_t k = 0; k < r.outputs.size(); ++k) {
        const Tensor& t = graph.tensor(graph.outputs()[k]);
        nlohmann::ordered_json out { { "name", t.name }, { "shape", t.shape.dims }, { "checksum", r.checksums[k] } };
        if (!r.checks.empty()) {
            const OutputComparison& c = r.checks[k];
            out["max_abs_error"] = number(c.maxAbsError);
            out["max_rel_error"] = number(c.maxRelError);
            out["scaled_error"] = number(c.scaledError);
            out["mismatches"] = c.mismatches;
            out["pass"] = c.passed;
        }
        j["outputs"].push_back(std::move(out));
    }
    if (r.backend == "cpu") {
        j["reference_kernels"] = r.referenceKernels;
        if (o.primitives) {
            j["primitives"] = nlohmann::ordered_json::array();
            for (const auto& p : r.kernels)
                j["primitives"].push_back(nlohmann::ordered_json { { "launch", p.launch }, { "op", p.op },
                    { "implementation", p.implementation }, { "reference", p.reference } });
        }
    }
    if (o.check) {
        j["check"] = { { "rtol", o.tolerance.rtol }, { "atol", o.tolerance.atol },
            { "atol_scale", o.tolerance.atolScale }, { "reference", r.referenceSource }, { "pass", r.passed() } };
        if (!o.fault.empty())
            j["check"]["fault"] = o.fault;
    }
    return j;
}

void printText(const engine::ModelRun& r, const RunOptions& o)
{
    const Graph& graph = r.graph;
    const double mib = 1024.0 * 1024.0;
    const std::string threads = o.threads > 0 ? ", threads " + std::to_string(o.threads) : "";
    std::printf("%s, batch %lld, backend %s%s, plan %s (%zu launches)\n", graph.name().c_str(),
        static_cast<long long>(graph.batch()), r.backend.c_str(), threads.c_str(), r.scheduler.c_str(),
        r.plan.launches.size());
    std::printf("input        %s\n", r.inputSource.c_str());
    if (r.roundMediansMs.size() > 1)
        std::printf("latency      %.3f ms, the median of %zu rounds of %d runs (rounds %.1f%% apart; p10 %.3f, p90 "
                    "%.3f)%s\n",
            r.medianMs(), r.roundMediansMs.size(), o.repeat, 100.0 * r.roundSpread(), percentile(r.latenciesMs, 0.1),
            percentile(r.latenciesMs, 0.9),
            r.roundSpread() > kWideSpread ? "; a wide spread: the machine was busy, take more --rounds" : "");
    else
        std::printf("latency      %.3f ms median (p10 %.3f, p90 %.3f) over %d runs\n", r.medianMs(),
            percentile(r.latenciesMs, 0.1), percentile(r.latenciesMs, 0.9), o.repeat);
    std::printf("load         %.1f ms, prepare %.1f ms\n", r.loadMs, r.prepareMs);
    std::printf("peak arena   %.2f MiB (%.1f%% of %.2f MiB of activations without reuse)\n", r.peakBytes / mib,
        100.0 * static_cast<double>(r.peakBytes) / static_cast<double>(std::max<std::int64_t>(r.activationBytes, 1)),
        r.activationBytes / mib);
    std::printf("weights      %.2f MiB\n", r.weightBytes / mib);
    if (r.backend == "cpu") {
        const std::size_t refs = r.referenceKernels;
        std::printf("kernels      oneDNN %s, %zu steps%s\n", r.cpuIsa.c_str(), r.kernels.size(),
            refs == 0
                ? ", no reference kernel"
                : (", " + std::to_string(refs) + " on reference kernels (slow; --primitives lists them)").c_str());
    }
    std::printf("peak memory  %.1f MiB resident\n", static_cast<double>(engine::peakResidentBytes()) / mib);
    for (std::size_t k = 0; k < r.outputs.size(); ++k) {
        const Tensor& t = graph.tensor(graph.outputs()[k]);
        std::printf("output       %s %s checksum %.6e\n", t.name.c_str(), t.shape.toString().c_str(), r.checksums[k]);
    }
    if (!o.check)
        return;
    std::printf("check        %s against %s\n", toleranceText(o.tolerance).c_str(), r.referenceSource.c_str());
    if (!o.fault.empty())
        std::printf("fault        %s injected (--inject-fault): the check must fail\n", o.fault.c_str());
    for (const auto& c : r.checks)
        std::printf("  %-20s %-14s max abs %.3e  max rel %.3e  scaled %.3e  %s\n", c.name.c_str(),
            Shape(c.shape).toString().c_str(), c.maxAbsError, c.maxRelError, c.scaledError,
            c.passed ? "pass"
                     : ("FAIL (" + std::to_string(c.mismatches) + " of " + std::to_string(Shape(c.shape).elements())
                         + " elements)")
                           .c_str());
}

// Tolerances given on the command line win; the rest follow the single-device reference's defaults.
void withSingleDeviceDefaults(CLI::App& cmd, Tolerance& t)
{
    if (cmd.count("--atol") == 0)
        t.atol = kSingleDeviceTolerance.atol;
    if (cmd.count("--atol-scale") == 0)
        t.atolScale = kSingleDeviceTolerance.atolScale;
    if (cmd.count("--rtol") == 0)
        t.rtol = kSingleDeviceTolerance.rtol;
}

// --check and what goes with it: the tolerances and the fault that tests it.
void addCheckOptions(CLI::App& cmd, RunOptions& o)
{
    // Without --input, --mapping checks against the single-device run; the runner refuses the rest.
    auto* check = cmd.add_flag("--check", o.check,
        "Compare the outputs with output_N.pb of --input (a --mapping run without --input: with "
        "the single-device run on the same inputs) element by element; exit 1 on a mismatch");
    auto tolerance = [&](const char* name, auto& value, const char* help) {
        cmd.add_option(name, value, help)->check(rangeOf(engine::kTolerance))->capture_default_str()->needs(check);
    };
    tolerance("--rtol", o.tolerance.rtol, "--check: relative tolerance");
    tolerance("--atol", o.tolerance.atol, "--check: absolute tolerance");
    tolerance("--atol-scale", o.tolerance.atolScale,
        "--check: more absolute tolerance, as a fraction of each reference output's largest magnitude");
    cmd.add_option("--inject-fault", o.fault,
           "--check, for testing it: make the run differ from its reference, input-seed=N (seeded inputs "
           "drawn with seed N), weight=OP[*F] (OP's first weight x F, default 1.05), gelu=tanh (every erf "
           "GELU approximated), layernorm=unbiased (every layer norm's variance over n - 1) or skip-waits "
           "(partitions and segments start without waiting for other devices); the check must then fail")
        ->check([](const std::string& spec) { return faultSpecProblem(spec); })
        ->needs(check);
}

// MODEL and the options of `run`, on `o`.
void addRunOptions(CLI::App& cmd, RunOptions& o)
{
    cmd.add_option("MODEL", o.model, "zoo:NAME[?key=value&...] or a model file")->required();
    auto* schedule
        = cmd.add_option("--schedule", o.schedule, "Schedule or plan JSON to run (default: the sequential plan)");
    auto* scheduler = cmd.add_option(
        "--scheduler", o.scheduler, "Compute this scheduler's plan and run it: " + schedulerNameList());
    scheduler->excludes(schedule);
    cmd.add_option("--device,-d", o.device, "Cost model --scheduler plans for: sim:NAME")
        ->capture_default_str()
        ->needs(scheduler);
    addPruningOptions(cmd, o.pruning);
    cmd.add_option("--backend", o.backend, "Where to run: cpu (oneDNN) or cuda (the local GPU)")->capture_default_str();
    addBatchOption(cmd, o.batch);
    addShapeOption(cmd, o.shapes);
    cmd.add_option("--input", o.input,
        "ONNX test data to run on: a test_data_set_N folder (input_0.pb, ...) or a folder holding "
        "test_data_set_0 (default: seeded random inputs)");
    addCheckOptions(cmd, o);
    cmd.add_option("--repeat", o.repeat, "Timed runs after one warm-up")
        ->check(rangeOf(engine::kRunRepeat))
        ->capture_default_str();
    cmd.add_option("--rounds", o.rounds,
           "cpu: rounds of --repeat timed runs on the same executor, reported as the median of the rounds' medians "
           "with their spread (default: 3 for --mapping, else 1)")
        ->check(rangeOf(engine::kRunRounds));
    cmd.add_option("--threads", o.threads, "CPU threads (0, the default: oneDNN's, all cores)")
        ->check(rangeOf(engine::kRunThreads));
    cmd.add_option("--cpu-partitions", o.cpuPartitions,
        "cpu: run the plan's streams concurrently on disjoint core sets, stream s on partition s mod "
        "count (e.g. 0:1, two partitions of one core; 0-1:2-3)");
    auto* mappingOption = cmd.add_option("--mapping", o.mapping,
        "Mapping JSON from `map -o`: run each device's ops on it (cpu, cpu:N, cuda:N), report the measured "
        "makespan next to the predicted one");
    mappingOption->excludes(scheduler);
    cmd.add_flag("--segments", o.segments,
           "--mapping: run each device's ops as segments on executors of their own, one worker per device (what "
           "mappings with a cuda device always do), also for CPU-only mappings")
        ->needs(mappingOption);
    cmd.add_flag("--json", o.json, "Print JSON");
    cmd.add_option("--cpu-layout", o.cpuLayout,
           "cpu: activations between convolutions channels-last (NHWC bytes, what oneDNN's fast kernels read) "
           "or nchw (each convolution reorders in and out of the layout its kernel wants), to compare the two")
        ->check(CLI::IsMember({ "channels-last", "nchw" }))
        ->capture_default_str();
    cmd.add_flag("--primitives", o.primitives,
        "cpu: list the kernel oneDNN runs for every step (implementation name, reference kernels marked)");
    cmd.add_flag_function(
        "--no-tf32", [&o](std::int64_t) { o.tf32 = false; },
        "cuda: plain FP32 convolutions (TF32 tensor cores are on by default)");
    cmd.add_option("--cudnn", o.cudnn,
           "cuda: how convolutions run, KEY=VALUE,...: epilogue=fused|separate, algo=find|heuristic, "
           "workspace-mb=N (default epilogue=fused,algo=find,workspace-mb=256)")
        ->check([](const std::string& text) { return engine::convVariantProblem(text); });
}

// The report, as JSON or text, with the mapping's devices or segments when it ran one.
void printRunReport(const engine::ModelRun& r, const RunOptions& o)
{
    const double median = r.medianMs();
    if (o.json) {
        nlohmann::ordered_json j = runJson(r, o);
        if (r.segments)
            addSegmentsJson(j, r.graph, *r.mapping, *r.segments, median);
        else if (r.mapping)
            addMappingJson(j, r.graph, *r.mapping, r.timings, median);
        std::cout << j.dump(2) << "\n";
    } else {
        printText(r, o);
        if (o.primitives)
            printPrimitives(r);
        if (r.segments)
            printSegmentsText(r.graph, *r.mapping, *r.segments, median);
        else if (r.mapping)
            printMappingText(*r.mapping, r.timings, median, r.roundSpread());
    }
}

// The runner of `run`, after parsing.
int runCommand(RunOptions& o, CLI::App& cmd)
{
    if (o.check && o.input.empty() && o.mapping.empty()) {
        std::cerr << "opsched-cli: run: --check requires --input (or --mapping, which is checked against the "
                     "single-device run)\nRun 'opsched-cli run --help' for usage.\n";
        return kExitUsage;
    }
    const InjectedFault fault = parseFault(o.fault);
    if (fault.inputSeed != 0 && !o.input.empty()) {
        std::cerr << "opsched-cli: run: --inject-fault " << fault.spec
                  << " draws seeded inputs; the inputs come "
                     "from --input here\nRun 'opsched-cli run --help' for usage.\n";
        return kExitUsage;
    }
    if (o.check && o.input.empty())
        withSingleDeviceDefaults(cmd, o.tolerance); // the single-device run is the reference
    const engine::ModelRun run = engine::runModel(o);
    if (!run.notes.empty())
        std::cerr << "warning: " << run.notes << "\n"; // stdout's format stays as it is
    if (o.rounds > 1 && run.roundMediansMs.empty() && !run.throughput)
        std::cerr << "warning: --rounds applies to runs on the CPU executor; this " << run.backend
                  << " run was timed over --repeat runs once\n";
    if (run.throughput) {
        ThroughputRunOptions t;
        t.check = o.check;
        t.repeat = o.repeat;
        t.json = o.json;
        t.tolerance = o.tolerance;
        return printThroughputRun(run.graph, *run.throughput, t);
    }
    printRunReport(run, o);
    std::fflush(stdout);
    if (!run.passed())
        throw Error(checkFailureMessage(run.checks,
            o.input.empty() ? std::string(kSingleDeviceReference) : "the reference in " + run.referenceSource,
            o.tolerance));
    return kExitOk;
}

} // namespace

Runner addRunCommand(CLI::App& app)
{
    auto opts = std::make_shared<RunOptions>();
    auto* cmd = app.add_subcommand("run", "Run a model's plan on a backend, measure it, check its outputs");
    addRunOptions(*cmd, *opts);
    return [opts, cmd]() { return runCommand(*opts, *cmd); };
}

} // namespace opsched::cli
