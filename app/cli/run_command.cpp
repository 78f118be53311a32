// `run`: executes a model's plan on a real backend (the CPU, through oneDNN) with seeded inputs,
// and reports latency, peak arena memory and output checksums. The steps are separate functions
// (inputs, plan, run, report) so other input sources and output checks slot in beside them.
#include "commands.h"
#include "run_cuda.h"

#include "exec/cpu/cpu_executor.h"
#include "model/model_ref.h"
#include "schedule/basic_schedulers.h"
#include "schedule/schedule_file.h"
#include "util/error.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>

namespace opsched::cli {
namespace {

constexpr std::uint64_t kInputSeed = 1; // the inputs are part of the reported checksums

struct RunOptions {
    std::string model;
    std::int64_t batch = 1;
    std::string schedule;
    std::string backend = "cpu";
    int repeat = 10;
    int threads = 0;
    bool json = false;
    bool noTf32 = false; // cuda: plain FP32 convolutions
};

struct PlanChoice {
    Plan plan;
    std::string scheduler;
};

struct RunReport {
    std::vector<double> latenciesMs; // the timed runs, after one warm-up
    std::int64_t peakBytes = 0;
    std::int64_t activationBytes = 0;
    std::int64_t weightBytes = 0;
    std::vector<std::vector<float>> outputs;
};

// The plan from --schedule (a schedule or plan file), else the sequential one.
PlanChoice choosePlan(const Graph& graph, const std::string& file)
{
    if (file.empty())
        return {compileSchedule(graph, sequentialSchedule(graph)), "sequential"};
    const ScheduleDocument doc = readScheduleFile(graph, file);
    std::vector<std::string> problems = doc.schedule ? validate(graph, *doc.schedule) : validate(graph, *doc.plan);
    if (!problems.empty())
        throw Error("'" + file + "' is not a valid " + (doc.schedule ? "schedule" : "plan") + " for " + graph.name() +
                    ": " + problems.front());
    return {doc.executablePlan(graph), doc.scheduler.empty() ? "hand-made" : doc.scheduler};
}

// Inputs in Graph::inputs() order, dense NCHW float32.
std::vector<std::vector<float>> modelInputs(const Graph& graph)
{
    return cpu::seededInputs(graph, kInputSeed);
}

RunReport runPlan(const Graph& graph, const Plan& plan, const std::vector<std::vector<float>>& inputs,
                  const RunOptions& o)
{
    if (o.backend == "cuda") {
        CudaRunResult c = runOnCuda(graph, plan, inputs, o.repeat, !o.noTf32);
        return {c.latenciesMs, c.arenaBytes, c.activationBytes, c.weightBytes, std::move(c.outputs)};
    }
    if (o.backend != "cpu")
        throw Error("--backend " + o.backend + ": unknown backend (backends: cpu, cuda)");
    if (!cpu::cpuBackendAvailable())
        throw Error("--backend cpu: the CPU backend is not built; configure opsched with oneDNN (Debian: libdnnl-dev)");
    cpu::CpuExecutor executor(graph, plan, cpu::CpuOptions{o.threads});
    RunReport r;
    r.outputs = executor.run(inputs); // warm-up: first-touch of the arena, caches
    for (int i = 0; i < o.repeat; ++i) {
        const auto start = std::chrono::steady_clock::now();
        r.outputs = executor.run(inputs);
        const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
        r.latenciesMs.push_back(took.count());
    }
    r.peakBytes = executor.peakArenaBytes();
    r.activationBytes = executor.activationBytes();
    r.weightBytes = executor.weightBytes();
    return r;
}

// Linear interpolation between the closest ranks.
double percentile(std::vector<double> values, double p)
{
    std::sort(values.begin(), values.end());
    const double pos = p * static_cast<double>(values.size() - 1);
    const auto lo = static_cast<std::size_t>(pos);
    const std::size_t hi = std::min(lo + 1, values.size() - 1);
    return values[lo] + (values[hi] - values[lo]) * (pos - static_cast<double>(lo));
}

void printReport(const Graph& graph, const PlanChoice& choice, const RunReport& r, const RunOptions& o)
{
    const double median = percentile(r.latenciesMs, 0.5), p10 = percentile(r.latenciesMs, 0.1),
                 p90 = percentile(r.latenciesMs, 0.9);
    if (o.json) {
        nlohmann::ordered_json j;
        j["model"] = graph.name();
        j["batch"] = graph.batch();
        j["backend"] = o.backend;
        j["scheduler"] = choice.scheduler;
        j["latency_ms"] = median;
        j["p10_ms"] = p10;
        j["p90_ms"] = p90;
        j["peak_bytes"] = r.peakBytes;
        j["outputs"] = nlohmann::ordered_json::array();
        for (std::size_t k = 0; k < r.outputs.size(); ++k) {
            const Tensor& t = graph.tensor(graph.outputs()[k]);
            j["outputs"].push_back({{"name", t.name}, {"shape", t.shape.dims}, {"checksum", cpu::checksum(r.outputs[k])}});
        }
        std::cout << j.dump(2) << "\n";
        return;
    }
    const double mib = 1024.0 * 1024.0;
    const std::string threads = o.threads > 0 ? ", threads " + std::to_string(o.threads) : "";
    std::printf("%s, batch %lld, backend %s%s, plan %s (%zu launches)\n", graph.name().c_str(),
                static_cast<long long>(graph.batch()), o.backend.c_str(), threads.c_str(), choice.scheduler.c_str(),
                choice.plan.launches.size());
    std::printf("latency      %.3f ms median (p10 %.3f, p90 %.3f) over %d runs\n", median, p10, p90, o.repeat);
    std::printf("peak arena   %.2f MiB (%.1f%% of %.2f MiB of activations without reuse)\n", r.peakBytes / mib,
                100.0 * static_cast<double>(r.peakBytes) / static_cast<double>(std::max<std::int64_t>(r.activationBytes, 1)),
                r.activationBytes / mib);
    std::printf("weights      %.2f MiB\n", r.weightBytes / mib);
    for (std::size_t k = 0; k < r.outputs.size(); ++k) {
        const Tensor& t = graph.tensor(graph.outputs()[k]);
        std::printf("output       %s %s checksum %.6e\n", t.name.c_str(), t.shape.toString().c_str(),
                    cpu::checksum(r.outputs[k]));
    }
}

} // namespace

Runner addRunCommand(CLI::App& app)
{
    auto opts = std::make_shared<RunOptions>();
    auto* cmd = app.add_subcommand("run", "Run a model's plan on a backend and measure its latency");
    cmd->add_option("MODEL", opts->model, "zoo:NAME[?key=value&...] or a model file")->required();
    cmd->add_option("--schedule", opts->schedule, "Schedule or plan JSON to run (default: the sequential plan)");
    cmd->add_option("--backend", opts->backend, "Where to run: cpu (oneDNN) or cuda (the local GPU)")->capture_default_str();
    cmd->add_option("--batch,-b", opts->batch, "Batch size")->check(CLI::Range(1, 65536));
    cmd->add_option("--repeat", opts->repeat, "Timed runs after one warm-up")
        ->check(CLI::Range(1, 1000000))
        ->capture_default_str();
    cmd->add_option("--threads", opts->threads, "CPU threads (default: oneDNN's, all cores)")->check(CLI::Range(1, 4096));
    cmd->add_flag("--json", opts->json, "Print JSON");
    cmd->add_flag("--no-tf32", opts->noTf32, "cuda: plain FP32 convolutions (TF32 tensor cores are on by default)");

    return [opts]() {
        const Graph graph = loadModel(opts->model, opts->batch);
        const PlanChoice choice = choosePlan(graph, opts->schedule);
        const RunReport report = runPlan(graph, choice.plan, modelInputs(graph), *opts);
        printReport(graph, choice, report, *opts);
        return kExitOk;
    };
}

} // namespace opsched::cli
