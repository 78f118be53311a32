// `run`: executes a model's plan on a real backend (the CPU through oneDNN, or the local GPU) and
// reports latency, peak memory and the outputs; with --input it runs on ONNX test data, with
// --check it compares the outputs with the reference ones there (a --mapping run without --input:
// with the single-device run, run_check.h). The steps are separate functions (plan, inputs, run,
// check, report).
#include "commands.h"
#include "common_options.h"
#include "engine/run/run_check.h"
#include "engine/scheduling.h"
#include "run_cuda.h"
#include "run_mapping.h"
#include "run_segments.h"
#include "run_throughput.h"
#include "zoo/zoo.h"

#include "exec/cpu/cpu_executor.h"
#include "exec/cpu/kernel_names.h"
#include "exec/cuda/conv_variant.h"
#include "exec/output_check.h"
#include "exec/reference_outputs.h"
#include "import/tensor_proto_io.h"
#include "model/model_ref.h"
#include "schedule/basic_schedulers.h"
#include "schedule/schedule_file.h"
#include "schedule/schedulers.h"
#include "util/error.h"
#include "util/statistics.h"

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

namespace opsched::cli {
namespace {

constexpr std::uint64_t kInputSeed = 1; // the inputs are part of the reported checksums

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct RunOptions : engine::RunRequest {
    std::string input;
    bool check = false;
    Tolerance tolerance;
    std::string cpuPartitions; // "0:1", "0,1:2-3": partitions separated by ':', cores by ',' or ranges
    bool json = false;
    bool noTf32 = false; // cuda: plain FP32 convolutions
    std::string cudnn; // cuda: how convolutions run (exec/cuda/conv_variant.h)
    std::string mapping; // a mapping file: stream u of its plan on device u's cores
    bool segments = false; // --mapping through the segment runner (what cuda mappings use) on CPU devices too
    std::string fault; // --inject-fault: documented, for showing that --check catches a wrong answer
    bool primitives = false; // cpu: list the kernel oneDNN picked for every step
    std::string cpuLayout = "channels-last"; // cpu: activations' layout between convolutions
};

struct PlanChoice {
    Plan plan;
    std::string scheduler;
};

struct RunInputs {
    std::vector<std::vector<float>> values; // in Graph::inputs() order
    std::string source; // the test-data folder, or "seeded"
    std::vector<TensorData> references; // output_N.pb, or the single-device run's outputs, when checking
    std::string referenceSource; // the test-data folder, or kSingleDeviceReference
};

struct RunReport {
    double loadMs = 0.0; // reading (importing) the model
    double prepareMs = 0.0; // building the executor: layout, weight reorders, primitives
    std::vector<double> latenciesMs; // the timed runs, after one warm-up
    double cpuMsPerRun = 0.0; // process CPU time per timed run: on a busy machine, the work itself
    std::int64_t peakBytes = 0;
    std::int64_t activationBytes = 0;
    std::int64_t weightBytes = 0;
    std::vector<std::vector<float>> outputs;
    std::vector<OutputComparison> checks; // per output, with --check
    std::vector<cpu::LaunchTiming> timings; // CPU: the last run's launches
    std::vector<cpu::PrimitiveUse> primitives; // CPU: every step's kernel
    std::optional<SegmentRunResult> segments; // --mapping run as segments
};

// The plan from --scheduler (computed on the --device cost model) or --schedule (a file), else
// the sequential one.
PlanChoice choosePlan(const Graph& graph, const RunOptions& o)
{
    if (!o.scheduler.empty()) {
        auto cost = makeCostModel(o.device);
        SchedulerOutput out = engine::runCheckedScheduler(o.scheduler, graph, *cost, o.pruning);
        return { std::move(out.plan), o.scheduler };
    }
    if (o.schedule.empty())
        return { compileSchedule(graph, sequentialSchedule(graph)), "sequential" };
    const ScheduleDocument doc = readScheduleFile(graph, o.schedule);
    std::vector<std::string> problems = doc.schedule ? validate(graph, *doc.schedule) : validate(graph, *doc.plan);
    if (!problems.empty())
        throw Error("'" + o.schedule + "' is not a valid " + (doc.schedule ? "schedule" : "plan") + " for "
            + graph.name() + ": " + problems.front());
    return { doc.executablePlan(graph), doc.scheduler.empty() ? "hand-made" : doc.scheduler };
}

// DIR is a test_data_set_N folder itself, or a model folder holding test_data_set_0.
std::string testDataFolder(const std::string& dir)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw Error("--input " + dir + ": no such folder");
    const fs::path p(dir);
    if (fs::exists(p / "input_0.pb", ec) || fs::exists(p / "output_0.pb", ec))
        return dir;
    if (fs::is_directory(p / "test_data_set_0", ec))
        return (p / "test_data_set_0").string();
    throw Error(
        "--input " + dir + ": holds neither input_0.pb nor a test_data_set_0 folder (the ONNX test-data layout)");
}

// --shape, completed from --input's data: an input with free dimensions that --shape leaves out
// takes its data file's shape (by the file's name, or as the only input), with the batch --batch
// gives. Inputs of fixed size keep it (data of another size is refused naming both, later).
InputShapes shapesWithTestData(const RunOptions& o)
{
    InputShapes shapes = o.shapes;
    if (o.input.empty())
        return shapes;
    const auto free = freeInputs(o.model, o.batch);
    if (free.empty())
        return shapes;
    const TestDataSet set = readTestDataSet(testDataFolder(o.input));
    for (const auto& t : set.inputs) {
        const bool only = set.inputs.size() == 1 && free.size() == 1;
        const std::string name = only ? free.front().name : t.name;
        const bool isFree = std::any_of(free.begin(), free.end(), [&](const FreeInput& f) { return f.name == name; });
        if (!isFree || shapes.count(name) || (shapes.count("") && only) || t.shape.rank() == 0)
            continue;
        std::vector<std::int64_t> dims = t.shape.dims;
        dims[0] = o.batch;
        shapes[name] = std::move(dims);
    }
    return shapes;
}

RunInputs modelInputs(const Graph& graph, const RunOptions& o)
{
    RunInputs in;
    if (o.input.empty()) {
        in.values = cpu::seededInputs(graph, kInputSeed);
        in.source = "seeded";
        return in;
    }
    in.source = testDataFolder(o.input);
    TestDataSet set = readTestDataSet(in.source);
    in.values = inputValuesFor(graph, set);
    if (o.check) {
        const auto want = graph.outputs().size();
        if (set.outputs.size() != want)
            throw Error("--check: " + in.source + " has " + std::to_string(set.outputs.size())
                + " reference outputs (output_N.pb), " + graph.name() + " has " + std::to_string(want));
        // Shapes are compared before running, so a reference for another model fails fast.
        for (std::size_t k = 0; k < want; ++k) {
            const Tensor& t = graph.tensor(graph.outputs()[k]);
            if (set.outputs[k].shape != t.shape)
                throw Error("--check: reference output_" + std::to_string(k) + ".pb has shape "
                    + set.outputs[k].shape.toString() + ", " + graph.name() + "'s output '" + t.name + "' "
                    + t.shape.toString());
        }
        in.references = std::move(set.outputs);
        in.referenceSource = in.source;
    }
    return in;
}

// "0:1" -> {{0}, {1}}; "0-1:2,3" -> {{0, 1}, {2, 3}}.
std::vector<std::vector<int>> parseCpuPartitions(const std::string& spec)
{
    std::vector<std::vector<int>> partitions;
    if (spec.empty())
        return partitions;
    auto bad = [&](const std::string& why) {
        return Error(
            "--cpu-partitions '" + spec + "': " + why + " (write e.g. 0:1 for two partitions of one core, 0-1:2-3)");
    };
    auto number = [&](const std::string& text) {
        if (text.empty() || text.size() > 6 || text.find_first_not_of("0123456789") != std::string::npos)
            throw bad("'" + text + "' is not a core number");
        return std::stoi(text);
    };
    std::size_t pos = 0;
    while (pos <= spec.size()) {
        const std::size_t end = std::min(spec.find(':', pos), spec.size());
        const std::string part = spec.substr(pos, end - pos);
        if (part.empty())
            throw bad("an empty partition");
        std::vector<int> cores;
        std::size_t p = 0;
        while (p <= part.size()) {
            const std::size_t e = std::min(part.find(',', p), part.size());
            const std::string item = part.substr(p, e - p);
            if (const auto dash = item.find('-'); dash != std::string::npos) {
                const int lo = number(item.substr(0, dash)), hi = number(item.substr(dash + 1));
                if (hi < lo)
                    throw bad("range " + item + " runs backwards");
                for (int c = lo; c <= hi; ++c)
                    cores.push_back(c);
            } else {
                cores.push_back(number(item));
            }
            p = e + 1;
        }
        partitions.push_back(std::move(cores));
        pos = end + 1;
    }
    return partitions;
}

// CPU time of all the process's threads (OpenMP workers that spin while waiting count too).
double processCpuMs()
{
    timespec ts {};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

// With --check the warm-up runs other inputs and every buffer is poisoned before the run whose
// outputs are checked (engine/run/run_check.h's warmUpInputs); the timed runs follow.
void runPlan(const Graph& graph, const Plan& plan, const RunInputs& inputs, const RunOptions& o,
    const InjectedFault& fault, RunReport& r, const MappingRun* mapping = nullptr)
{
    const bool waits = (mapping && mapping->segmented) || (mapping && !mapping->partitions.empty())
        || !o.cpuPartitions.empty() || (o.backend == "cuda" && plan.streams > 1);
    if (fault.skipWaits && !waits)
        throw Error("--inject-fault skip-waits: this run waits for nothing (it applies to --mapping and "
                    "--cpu-partitions runs, and to plans of several streams on cuda)");
    if (mapping && mapping->segmented) {
        SegmentRunResult s = runMappingSegments(
            graph, *mapping, inputs.values, o.repeat, !o.noTf32, SegmentRunChecks { o.check, fault.skipWaits });
        r.prepareMs = s.prepareMs;
        r.latenciesMs = s.latenciesMs;
        r.outputs = std::move(s.outputs);
        r.peakBytes = s.arenaBytes; // the segments' arenas side by side (host and device)
        r.activationBytes = cpu::TensorLayout(graph, plan).activationBytes();
        r.weightBytes = s.weightBytes;
        r.segments = std::move(s);
        return;
    }
    if (o.backend == "cuda") {
        const auto start = Clock::now();
        CudaRunResult c = runOnCuda(graph, plan, inputs.values, o.repeat, !o.noTf32, gpu::parseConvVariant(o.cudnn),
            CudaRunChecks { o.check, fault.skipWaits });
        double replayMs = 0.0;
        for (double ms : c.latenciesMs)
            replayMs += ms;
        r.prepareMs = msSince(start) - replayMs; // arena, weights, algorithm search, capture, warm-up
        r.latenciesMs = std::move(c.latenciesMs);
        r.peakBytes = c.arenaBytes;
        r.activationBytes = c.activationBytes;
        r.weightBytes = c.weightBytes;
        r.outputs = std::move(c.outputs);
        return;
    }
    if (o.backend != "cpu")
        throw Error("--backend " + o.backend + ": unknown backend (backends: cpu, cuda)");
    if (!cpu::cpuBackendAvailable())
        throw Error("--backend cpu: the CPU backend is not built; configure opsched with oneDNN (Debian: libdnnl-dev)");
    const auto start = Clock::now();
    cpu::CpuOptions cpuOptions;
    cpuOptions.threads = o.threads;
    cpuOptions.partitions = mapping ? mapping->partitions : parseCpuPartitions(o.cpuPartitions);
    cpuOptions.channelsLast = o.cpuLayout == "channels-last";
    cpuOptions.skipCrossPartitionWaits = fault.skipWaits;
    cpu::CpuExecutor executor(graph, plan, cpuOptions);
    r.prepareMs = msSince(start);
    if (o.check) {
        executor.run(warmUpInputs(inputs.values)); // warm-up on other data: first touch of the arena, caches
        executor.poison();
    }
    r.outputs = executor.run(inputs.values); // checked; without --check the warm-up
    const double cpuStart = processCpuMs();
    for (int i = 0; i < o.repeat; ++i) {
        const auto t = Clock::now();
        std::vector<std::vector<float>> outputs = executor.run(inputs.values);
        r.latenciesMs.push_back(msSince(t));
        if (!o.check)
            r.outputs = std::move(outputs);
    }
    r.cpuMsPerRun = (processCpuMs() - cpuStart) / o.repeat;
    r.timings = executor.lastLaunchTimings();
    r.primitives = executor.primitives();
    r.peakBytes = executor.peakArenaBytes();
    r.activationBytes = executor.activationBytes();
    r.weightBytes = executor.weightBytes();
}

void checkOutputs(const Graph& graph, const RunInputs& inputs, const RunOptions& o, RunReport& r)
{
    for (std::size_t k = 0; k < r.outputs.size(); ++k) {
        const Tensor& t = graph.tensor(graph.outputs()[k]);
        const TensorData& ref = inputs.references[k];
        r.checks.push_back(compareOutput(t.name, r.outputs[k], t.shape.dims, ref.values, ref.shape.dims, o.tolerance));
    }
}

// Linear interpolation between the closest ranks (util/statistics.h, as everywhere).
double percentile(std::vector<double> values, double p)
{
    return quantile(std::move(values), p);
}

// The process's high-water mark of resident memory: weights, arena, oneDNN's buffers, the model.
std::int64_t peakResidentBytes()
{
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<std::int64_t>(usage.ru_maxrss) * 1024; // Linux reports KiB
}

std::size_t referenceKernelCount(const std::vector<cpu::PrimitiveUse>& uses)
{
    return static_cast<std::size_t>(std::count_if(uses.begin(), uses.end(),
        [](const cpu::PrimitiveUse& p) { return cpu::isReferenceImplementation(p.implementation); }));
}

// --primitives: every step's kernel, then how many steps each kernel runs.
void printPrimitives(const std::vector<cpu::PrimitiveUse>& uses)
{
    std::printf("primitives   %zu steps, oneDNN ISA %s\n", uses.size(), cpu::effectiveCpuIsa().c_str());
    std::map<std::string, int> counts;
    for (const auto& p : uses) {
        const bool ref = cpu::isReferenceImplementation(p.implementation);
        std::printf("  %4zu  %-40s %s%s\n", p.launch, p.op.c_str(), p.implementation.c_str(),
            ref ? "   <- reference kernel" : "");
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

nlohmann::ordered_json runJson(
    const Graph& graph, const PlanChoice& choice, const RunInputs& inputs, const RunReport& r, const RunOptions& o)
{
    nlohmann::ordered_json j;
    j["model"] = graph.name();
    j["batch"] = graph.batch();
    j["backend"] = o.backend;
    j["scheduler"] = choice.scheduler;
    j["threads"] = o.threads; // 0: oneDNN's default
    if (o.backend == "cpu") {
        j["cpu_isa"] = cpu::effectiveCpuIsa();
        j["cpu_layout"] = o.cpuLayout;
    }
    if (!o.cpuPartitions.empty())
        j["cpu_partitions"] = o.cpuPartitions;
    j["input"] = inputs.source;
    j["latency_ms"] = percentile(r.latenciesMs, 0.5);
    j["p10_ms"] = percentile(r.latenciesMs, 0.1);
    j["p90_ms"] = percentile(r.latenciesMs, 0.9);
    j["repeat"] = o.repeat;
    j["cpu_ms_per_run"] = r.cpuMsPerRun;
    j["load_ms"] = r.loadMs;
    j["prepare_ms"] = r.prepareMs;
    j["peak_bytes"] = r.peakBytes;
    j["peak_rss_bytes"] = peakResidentBytes();
    j["outputs"] = nlohmann::ordered_json::array();
    for (std::size_t k = 0; k < r.outputs.size(); ++k) {
        const Tensor& t = graph.tensor(graph.outputs()[k]);
        nlohmann::ordered_json out { { "name", t.name }, { "shape", t.shape.dims },
            { "checksum", cpu::checksum(r.outputs[k]) } };
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
    if (o.backend == "cpu") {
        j["reference_kernels"] = referenceKernelCount(r.primitives);
        if (o.primitives) {
            j["primitives"] = nlohmann::ordered_json::array();
            for (const auto& p : r.primitives)
                j["primitives"].push_back(nlohmann::ordered_json { { "launch", p.launch }, { "op", p.op },
                    { "implementation", p.implementation },
                    { "reference", cpu::isReferenceImplementation(p.implementation) } });
        }
    }
    if (o.check) {
        const bool all = std::all_of(r.checks.begin(), r.checks.end(), [](const auto& c) { return c.passed; });
        j["check"] = { { "rtol", o.tolerance.rtol }, { "atol", o.tolerance.atol },
            { "atol_scale", o.tolerance.atolScale }, { "reference", inputs.referenceSource }, { "pass", all } };
        if (!o.fault.empty())
            j["check"]["fault"] = o.fault;
    }
    return j;
}

void printText(
    const Graph& graph, const PlanChoice& choice, const RunInputs& inputs, const RunReport& r, const RunOptions& o)
{
    const double mib = 1024.0 * 1024.0;
    const std::string threads = o.threads > 0 ? ", threads " + std::to_string(o.threads) : "";
    std::printf("%s, batch %lld, backend %s%s, plan %s (%zu launches)\n", graph.name().c_str(),
        static_cast<long long>(graph.batch()), o.backend.c_str(), threads.c_str(), choice.scheduler.c_str(),
        choice.plan.launches.size());
    std::printf("input        %s\n", inputs.source.c_str());
    std::printf("latency      %.3f ms median (p10 %.3f, p90 %.3f) over %d runs\n", percentile(r.latenciesMs, 0.5),
        percentile(r.latenciesMs, 0.1), percentile(r.latenciesMs, 0.9), o.repeat);
    std::printf("load         %.1f ms, prepare %.1f ms\n", r.loadMs, r.prepareMs);
    std::printf("peak arena   %.2f MiB (%.1f%% of %.2f MiB of activations without reuse)\n", r.peakBytes / mib,
        100.0 * static_cast<double>(r.peakBytes) / static_cast<double>(std::max<std::int64_t>(r.activationBytes, 1)),
        r.activationBytes / mib);
    std::printf("weights      %.2f MiB\n", r.weightBytes / mib);
    if (o.backend == "cpu" && !r.segments) {
        const std::size_t refs = referenceKernelCount(r.primitives);
        std::printf("kernels      oneDNN %s, %zu steps%s\n", cpu::effectiveCpuIsa().c_str(), r.primitives.size(),
            refs == 0
                ? ", no reference kernel"
                : (", " + std::to_string(refs) + " on reference kernels (slow; --primitives lists them)").c_str());
    }
    std::printf("peak memory  %.1f MiB resident\n", static_cast<double>(peakResidentBytes()) / mib);
    for (std::size_t k = 0; k < r.outputs.size(); ++k) {
        const Tensor& t = graph.tensor(graph.outputs()[k]);
        std::printf("output       %s %s checksum %.6e\n", t.name.c_str(), t.shape.toString().c_str(),
            cpu::checksum(r.outputs[k]));
    }
    if (!o.check)
        return;
    std::printf("check        %s against %s\n", toleranceText(o.tolerance).c_str(), inputs.referenceSource.c_str());
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
    cmd.add_flag("--no-tf32", o.noTf32, "cuda: plain FP32 convolutions (TF32 tensor cores are on by default)");
    cmd.add_option("--cudnn", o.cudnn,
           "cuda: how convolutions run, KEY=VALUE,...: epilogue=fused|separate, algo=find|heuristic, "
           "workspace-mb=N (default epilogue=fused,algo=find,workspace-mb=256)")
        ->check([](const std::string& text) {
            try {
                gpu::parseConvVariant(text);
                return std::string();
            } catch (const std::exception& e) {
                return std::string(e.what());
            }
        });
}

// The report, as JSON or text, with the mapping's devices or segments when it ran one.
void printRunReport(const Graph& graph, const PlanChoice& choice, const RunInputs& inputs, const RunReport& report,
    const RunOptions& o, const MappingRun* mapping)
{
    if (o.json) {
        nlohmann::ordered_json j = runJson(graph, choice, inputs, report, o);
        if (report.segments)
            addSegmentsJson(j, graph, *mapping, *report.segments, percentile(report.latenciesMs, 0.5));
        else if (mapping)
            addMappingJson(j, graph, *mapping, report.timings, percentile(report.latenciesMs, 0.5));
        std::cout << j.dump(2) << "\n";
    } else {
        printText(graph, choice, inputs, report, o);
        if (o.primitives)
            printPrimitives(report.primitives);
        if (report.segments)
            printSegmentsText(graph, *mapping, *report.segments, percentile(report.latenciesMs, 0.5));
        else if (mapping)
            printMappingText(*mapping, report.timings, percentile(report.latenciesMs, 0.5));
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
    RunReport report;
    const auto start = Clock::now();
    const Graph graph = [&] {
        try {
            return loadModel(o.model, o.batch, o.shapes);
        } catch (const Error&) {
            // Free dimensions --shape left open may come from --input's data; the file is read
            // again only then.
            InputShapes withData = o.shapes;
            try {
                withData = shapesWithTestData(o);
            } catch (const Error&) { // the load's error says more; bad --input is reported later
            }
            if (withData == o.shapes)
                throw;
            return loadModel(o.model, o.batch, withData);
        }
    }();
    if (const auto why = zoo::costOnlyReason(graph); !why.empty())
        throw Error(why); // never allocate hundreds of GB for a cost-only graph
    report.loadMs = msSince(start);
    if (!o.mapping.empty() && isThroughputMappingFile(o.mapping)) {
        // Several inputs in flight, batches per op and device: its own runner (run_throughput.h).
        if (!o.schedule.empty() || o.segments || fault.inputSeed != 0 || !o.input.empty())
            throw Error("--mapping with a throughput file: --schedule, --segments, --inject-fault input-seed "
                        "and --input do not apply (its inputs are seeded, one per input of the file)");
        ThroughputRunOptions t;
        t.check = o.check;
        t.repeat = o.repeat;
        t.json = o.json;
        t.tolerance = o.tolerance;
        withSingleDeviceDefaults(cmd, t.tolerance);
        const std::optional<Graph> faulted = graphWithFault(graph, fault); // weight=OP: the same ops
        return runThroughputMapping(graph, faulted ? *faulted : graph, o.mapping, t);
    }
    std::optional<MappingRun> mapping;
    if (!o.mapping.empty()) {
        if (!o.schedule.empty())
            throw Error("--mapping and --schedule: give one of them");
        if (o.backend != "cpu")
            throw Error("--mapping: the mapping's devices choose the backends; drop --backend " + o.backend);
        if (!o.cpuPartitions.empty())
            throw Error("--mapping: the mapping's devices choose the cores; drop --cpu-partitions");
        mapping = prepareMappingRun(graph, o.mapping, o.segments);
        if (mapping->segmented)
            o.backend = "segments"; // reported as such: each segment on its device's executor
    }
    const PlanChoice choice = mapping ? PlanChoice { mapping->plan, "mapping " + o.mapping } : choosePlan(graph, o);
    RunInputs inputs = modelInputs(graph, o);
    if (o.check && o.input.empty()) {
        withSingleDeviceDefaults(cmd, o.tolerance);
        inputs.references = singleDeviceReference(graph, inputs.values); // before any fault touches them
        inputs.referenceSource = kSingleDeviceReference;
    }
    if (fault.inputSeed != 0) {
        inputs.values = cpu::seededInputs(graph, fault.inputSeed);
        inputs.source = "seeded, seed " + std::to_string(fault.inputSeed) + " (--inject-fault)";
    }
    const std::optional<Graph> faulted = graphWithFault(graph, fault); // the same ops: plans and mappings fit
    runPlan(faulted ? *faulted : graph, choice.plan, inputs, o, fault, report, mapping ? &*mapping : nullptr);
    if (o.check)
        checkOutputs(graph, inputs, o, report);
    printRunReport(graph, choice, inputs, report, o, mapping ? &*mapping : nullptr);
    std::fflush(stdout);

    if (std::any_of(report.checks.begin(), report.checks.end(), [](const auto& c) { return !c.passed; }))
        throw Error(checkFailureMessage(report.checks,
            o.input.empty() ? std::string(kSingleDeviceReference) : "the reference in " + inputs.referenceSource,
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
