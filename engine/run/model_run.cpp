#include "engine/run/model_run.h"

#include "engine/device_ref.h"
#include "engine/model.h"
#include "engine/run/cuda_run.h"
#include "engine/schedule_files.h"
#include "engine/scheduling.h"

#include "exec/cpu/kernel_names.h"
#include "exec/cpu/tensor_layout.h"
#include "exec/cuda/conv_variant.h"
#include "exec/reference_outputs.h"
#include "schedule/basic_schedulers.h"
#include "util/error.h"
#include "util/statistics.h"
#include "zoo/zoo.h"

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

namespace opsched::engine {
namespace {

constexpr std::uint64_t kInputSeed = 1; // the inputs are part of the reported checksums
constexpr double kMappingWarmUpMs = 500; // busy time before a mapping's timed rounds

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct RunInputs {
    std::vector<std::vector<float>> values; // in Graph::inputs() order
    std::string source; // the test-data folder, or "seeded"
    std::vector<TensorData> references; // output_N.pb, or the single-device run's outputs, when checking
    std::string referenceSource; // the test-data folder, or kSingleDeviceReference
};

// The plan from `scheduler` (computed on `device`'s cost model) or `schedule` (a file), else the
// sequential one.
void choosePlan(const RunRequest& r, ModelRun& run)
{
    const Graph& graph = run.graph;
    if (!r.scheduler.empty()) {
        auto cost = makeCostModel(r.device);
        run.plan = runCheckedScheduler(r.scheduler, graph, *cost, r.pruning).plan;
        run.scheduler = r.scheduler;
        return;
    }
    if (r.schedule.empty()) {
        run.plan = compileSchedule(graph, sequentialSchedule(graph));
        run.scheduler = "sequential";
        return;
    }
    const ScheduleDocument doc = readScheduleDocument(graph, r.schedule);
    std::vector<std::string> problems = doc.schedule ? validate(graph, *doc.schedule) : validate(graph, *doc.plan);
    if (!problems.empty())
        throw Error("'" + r.schedule + "' is not a valid " + (doc.schedule ? "schedule" : "plan") + " for "
            + graph.name() + ": " + problems.front());
    run.plan = doc.executablePlan(graph);
    run.scheduler = doc.scheduler.empty() ? "hand-made" : doc.scheduler;
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

// The request's shapes, completed from its test data: an input with free dimensions that `shapes`
// leaves out takes its data file's shape (by the file's name, or as the only input), with the
// request's batch. Inputs of fixed size keep it (data of another size is refused naming both, later).
InputShapes shapesWithTestData(const RunRequest& r)
{
    InputShapes shapes = r.shapes;
    if (r.input.empty())
        return shapes;
    const auto free = freeDimensions(r);
    if (free.empty())
        return shapes;
    const TestDataSet set = readTestDataSet(testDataFolder(r.input));
    for (const auto& t : set.inputs) {
        const bool only = set.inputs.size() == 1 && free.size() == 1;
        const std::string name = only ? free.front().name : t.name;
        const bool isFree = std::any_of(free.begin(), free.end(), [&](const FreeInput& f) { return f.name == name; });
        if (!isFree || shapes.count(name) || (shapes.count("") && only) || t.shape.rank() == 0)
            continue;
        std::vector<std::int64_t> dims = t.shape.dims;
        dims[0] = r.batch;
        shapes[name] = std::move(dims);
    }
    return shapes;
}

// The model; free dimensions `shapes` leaves open may come from the test data (the file is read
// again only then).
Graph loadRunModel(const RunRequest& r)
{
    try {
        return openModel(r);
    } catch (const Error&) {
        InputShapes withData = r.shapes;
        try {
            withData = shapesWithTestData(r);
        } catch (const Error&) { // the load's error says more; bad test data is reported later
        }
        if (withData == r.shapes)
            throw;
        return openModel({ r.model, r.batch, withData });
    }
}

RunInputs modelInputs(const Graph& graph, const RunRequest& r)
{
    RunInputs in;
    if (r.input.empty()) {
        in.values = cpu::seededInputs(graph, kInputSeed);
        in.source = "seeded";
        return in;
    }
    in.source = testDataFolder(r.input);
    TestDataSet set = readTestDataSet(in.source);
    in.values = inputValuesFor(graph, set);
    if (r.check) {
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

void runSegments(
    const Graph& graph, const RunInputs& inputs, const RunRequest& r, const InjectedFault& fault, ModelRun& run)
{
    SegmentRunResult s = runMappingSegments(
        graph, *run.mapping, inputs.values, r.repeat, r.tf32, SegmentRunChecks { r.check, fault.skipWaits });
    run.prepareMs = s.prepareMs;
    run.latenciesMs = s.latenciesMs;
    run.outputs = std::move(s.outputs);
    run.peakBytes = s.arenaBytes; // the segments' arenas side by side (host and device)
    run.activationBytes = cpu::TensorLayout(graph, run.plan).activationBytes();
    run.weightBytes = s.weightBytes;
    run.segments = std::move(s);
}

void runCuda(
    const Graph& graph, const RunInputs& inputs, const RunRequest& r, const InjectedFault& fault, ModelRun& run)
{
    const auto start = Clock::now();
    CudaRunResult c = runOnCuda(graph, run.plan, inputs.values, r.repeat, r.tf32, gpu::parseConvVariant(r.cudnn),
        CudaRunChecks { r.check, fault.skipWaits });
    double replayMs = 0.0;
    for (double ms : c.latenciesMs)
        replayMs += ms;
    run.prepareMs = msSince(start) - replayMs; // arena, weights, algorithm search, capture, warm-up
    run.latenciesMs = std::move(c.latenciesMs);
    run.peakBytes = c.arenaBytes;
    run.activationBytes = c.activationBytes;
    run.weightBytes = c.weightBytes;
    run.outputs = std::move(c.outputs);
    run.notes = std::move(c.notes);
}

// With check the warm-up runs other inputs and every buffer is poisoned before the run whose
// outputs are checked (run_check.h's warmUpInputs); the timed runs follow.
void runCpu(const Graph& graph, const RunInputs& inputs, const RunRequest& r, const InjectedFault& fault, ModelRun& run)
{
    if (!cpu::cpuBackendAvailable())
        throw Error("--backend cpu: the CPU backend is not built; configure opsched with oneDNN (Debian: libdnnl-dev)");
    const auto start = Clock::now();
    cpu::CpuOptions cpuOptions;
    cpuOptions.threads = r.threads;
    cpuOptions.partitions = run.mapping ? run.mapping->partitions : parseCpuPartitions(r.cpuPartitions);
    cpuOptions.channelsLast = r.cpuLayout == "channels-last";
    cpuOptions.skipCrossPartitionWaits = fault.skipWaits;
    cpu::CpuExecutor executor(graph, run.plan, cpuOptions);
    run.prepareMs = msSince(start);
    if (r.check) {
        executor.run(warmUpInputs(inputs.values)); // warm-up on other data: first touch of the arena, caches
        executor.poison();
    }
    run.outputs = executor.run(inputs.values); // checked; without a check the warm-up
    if (run.mapping) {
        // A mapping's figure is judged against its prediction, so the rounds start on cores that
        // have been busy a while: on a 2-core VM an invocation after a pause ran 10-30% above the
        // next ones. (It did not make invocations agree there: docs/mapping.md.)
        const auto warm = Clock::now();
        while (msSince(warm) < kMappingWarmUpMs)
            executor.run(inputs.values);
    }
    const int rounds = r.rounds > 0 ? r.rounds : (run.mapping ? 3 : 1);
    const double cpuStart = processCpuMs();
    for (int round = 0; round < rounds; ++round) {
        std::vector<double> times;
        for (int i = 0; i < r.repeat; ++i) {
            const auto t = Clock::now();
            std::vector<std::vector<float>> outputs = executor.run(inputs.values);
            times.push_back(msSince(t));
            if (!r.check)
                run.outputs = std::move(outputs);
        }
        run.latenciesMs.insert(run.latenciesMs.end(), times.begin(), times.end());
        run.roundMediansMs.push_back(quantile(std::move(times), 0.5));
    }
    run.cpuMsPerRun = (processCpuMs() - cpuStart) / (r.repeat * rounds);
    run.timings = executor.lastLaunchTimings();
    for (const auto& p : executor.primitives()) {
        const bool reference = cpu::isReferenceImplementation(p.implementation);
        run.kernels.push_back({ p.launch, p.op, p.implementation, reference });
        run.referenceKernels += reference ? 1 : 0;
    }
    run.cpuIsa = cpu::effectiveCpuIsa();
    run.peakBytes = executor.peakArenaBytes();
    run.activationBytes = executor.activationBytes();
    run.weightBytes = executor.weightBytes();
}

void runPlan(
    const Graph& graph, const RunInputs& inputs, const RunRequest& r, const InjectedFault& fault, ModelRun& run)
{
    const MappingRun* mapping = run.mapping ? &*run.mapping : nullptr;
    const bool waits = (mapping && mapping->segmented) || (mapping && !mapping->partitions.empty())
        || !r.cpuPartitions.empty() || (r.backend == "cuda" && run.plan.streams > 1);
    if (fault.skipWaits && !waits)
        throw Error("--inject-fault skip-waits: this run waits for nothing (it applies to --mapping and "
                    "--cpu-partitions runs, and to plans of several streams on cuda)");
    if (mapping && mapping->segmented)
        return runSegments(graph, inputs, r, fault, run);
    if (r.backend == "cuda")
        return runCuda(graph, inputs, r, fault, run);
    if (r.backend != "cpu")
        throw Error("--backend " + r.backend + ": unknown backend (backends: cpu, cuda)");
    runCpu(graph, inputs, r, fault, run);
}

// A mapping file's plan and devices, checked against the rest of the request.
void prepareMapping(const RunRequest& r, ModelRun& run)
{
    if (!r.schedule.empty())
        throw Error("--mapping and --schedule: give one of them");
    if (r.backend != "cpu")
        throw Error("--mapping: the mapping's devices choose the backends; drop --backend " + r.backend);
    if (!r.cpuPartitions.empty())
        throw Error("--mapping: the mapping's devices choose the cores; drop --cpu-partitions");
    run.mapping = prepareMappingRun(run.graph, r.mapping, r.segments);
    run.plan = run.mapping->plan;
    run.scheduler = "mapping " + r.mapping;
    if (run.mapping->segmented)
        run.backend = "segments"; // reported as such: each segment on its device's executor
}

} // namespace

double ModelRun::medianMs() const
{
    return quantile(roundMediansMs.empty() ? latenciesMs : roundMediansMs, 0.5);
}

double ModelRun::roundSpread() const
{
    if (roundMediansMs.size() < 2)
        return 0.0;
    const auto [lo, hi] = std::minmax_element(roundMediansMs.begin(), roundMediansMs.end());
    const double median = medianMs();
    return median > 0 ? (*hi - *lo) / median : 0.0;
}

bool ModelRun::passed() const
{
    if (throughput)
        return std::all_of(
            throughput->checks.begin(), throughput->checks.end(), [](const auto& c) { return c.passed; });
    return std::all_of(checks.begin(), checks.end(), [](const auto& c) { return c.passed; });
}

ModelRun runModel(RunRequest r)
{
    const InjectedFault fault = parseFault(r.fault);
    const auto start = Clock::now();
    ModelRun run(loadRunModel(r));
    const Graph& graph = run.graph;
    if (const auto why = zoo::costOnlyReason(graph); !why.empty())
        throw Error(why); // never allocate hundreds of GB for a cost-only graph
    run.loadMs = msSince(start);
    run.backend = r.backend;
    if (!r.mapping.empty() && isThroughputMappingFile(r.mapping)) {
        // Several inputs in flight, batches per op and device: its own runner (throughput_run.h).
        if (!r.schedule.empty() || r.segments || fault.inputSeed != 0 || !r.input.empty())
            throw Error("--mapping with a throughput file: --schedule, --segments, --inject-fault input-seed "
                        "and --input do not apply (its inputs are seeded, one per input of the file)");
        ThroughputRunOptions t;
        t.check = r.check;
        t.repeat = r.repeat;
        t.tolerance = r.tolerance;
        const std::optional<Graph> faulted = graphWithFault(graph, fault); // weight=OP: the same ops
        run.throughput = runThroughputMapping(graph, faulted ? *faulted : graph, r.mapping, t);
        return run;
    }
    if (!r.mapping.empty())
        prepareMapping(r, run);
    else
        choosePlan(r, run);
    RunInputs inputs = modelInputs(graph, r);
    if (r.check && r.input.empty()) {
        inputs.references = singleDeviceReference(graph, inputs.values); // before any fault touches them
        inputs.referenceSource = kSingleDeviceReference;
    }
    if (fault.inputSeed != 0) {
        inputs.values = cpu::seededInputs(graph, fault.inputSeed);
        inputs.source = "seeded, seed " + std::to_string(fault.inputSeed) + " (--inject-fault)";
    }
    run.inputSource = inputs.source;
    run.referenceSource = inputs.referenceSource;
    const std::optional<Graph> faulted = graphWithFault(graph, fault); // the same ops: plans and mappings fit
    runPlan(faulted ? *faulted : graph, inputs, r, fault, run);
    for (const auto& out : run.outputs)
        run.checksums.push_back(cpu::checksum(out));
    if (r.check)
        for (std::size_t k = 0; k < run.outputs.size(); ++k) {
            const Tensor& t = graph.tensor(graph.outputs()[k]);
            const TensorData& ref = inputs.references[k];
            run.checks.push_back(
                compareOutput(t.name, run.outputs[k], t.shape.dims, ref.values, ref.shape.dims, r.tolerance));
        }
    return run;
}

std::string convVariantProblem(const std::string& text)
{
    try {
        gpu::parseConvVariant(text);
        return {};
    } catch (const std::exception& e) {
        return e.what();
    }
}

std::int64_t peakResidentBytes()
{
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<std::int64_t>(usage.ru_maxrss) * 1024; // Linux reports KiB
}

} // namespace opsched::engine
