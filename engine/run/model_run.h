// `run`: a model's plan executed for real and measured: on the CPU through oneDNN (optionally
// over core partitions), on the local GPU (one CUDA graph per plan), or as a mapping's per-device
// workers, on seeded inputs or ONNX test data; with `check`, the outputs compared element by
// element with the test data's or with the single-device run's. The steps are separate functions
// (model, plan, inputs, run, check) in model_run.cpp.
#pragma once

#include "engine/requests.h"
#include "engine/run/mapping_run.h"
#include "engine/run/run_check.h"
#include "engine/run/throughput_run.h"

#include "exec/cpu/cpu_executor.h"
#include "graph/graph.h"
#include "plan/plan.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace opsched::engine {

// One step's oneDNN kernel (CPU runs): what `run --primitives` lists.
struct KernelStep {
    std::size_t launch = 0;
    std::string op;
    std::string implementation;
    bool reference = false; // a reference (slow, plain C++) kernel
};

struct ModelRun {
    explicit ModelRun(Graph g)
        : graph(std::move(g))
    {
    }

    Graph graph;
    // A throughput mapping file runs L inputs in flight (engine/run/throughput_run.h): only the
    // graph and this are set.
    std::optional<ThroughputRunResult> throughput;

    std::string scheduler; // "sequential", the scheduler's name, "hand-made", "mapping FILE"
    Plan plan;
    std::string backend; // cpu, cuda, or segments (a mapping run per device)
    std::string inputSource; // the test-data folder, or "seeded[, seed N (--inject-fault)]"
    std::string referenceSource; // check: the test-data folder, or kSingleDeviceReference
    double loadMs = 0.0; // reading (importing) the model
    double prepareMs = 0.0; // building the executor: layout, weight reorders, primitives, capture
    std::vector<double> latenciesMs; // the timed runs, after one warm-up
    // CPU runs: each round's median (rounds of `repeat` runs on the same executor); the report's
    // latency is their median, their spread says how steady the machine was.
    std::vector<double> roundMediansMs;
    double cpuMsPerRun = 0.0; // process CPU time per timed run (CPU): on a busy machine, the work itself
    std::int64_t peakBytes = 0;
    std::int64_t activationBytes = 0;
    std::int64_t weightBytes = 0;
    std::vector<std::vector<float>> outputs;
    std::vector<double> checksums; // per output
    std::vector<OutputComparison> checks; // per output, with check
    std::vector<cpu::LaunchTiming> timings; // CPU: the last run's launches
    std::vector<KernelStep> kernels; // CPU: every step's kernel
    std::size_t referenceKernels = 0;
    std::string cpuIsa; // the ISA oneDNN runs (CPU)
    std::string notes; // the executor's warnings, once per run (cuda)
    std::optional<MappingRun> mapping; // a mapping run
    std::optional<SegmentRunResult> segments; // a mapping run as segments

    bool passed() const;
    // The median of the rounds' medians (of every timed run when there are no rounds), and the
    // rounds' spread, (largest - smallest) / median: 0 for one round.
    double medianMs() const;
    double roundSpread() const;
};

// Throws Error naming the problem (an unknown backend, a model or file that does not fit, a device
// that cannot run, a cost-only graph); a failed check is in the result (ModelRun::passed), not
// thrown.
ModelRun runModel(RunRequest request);

// Why a --cudnn value (KEY=VALUE,...: epilogue, algo, workspace-mb) cannot be used; empty when it can.
std::string convVariantProblem(const std::string& text);

// The process's high-water mark of resident memory: weights, arena, oneDNN's buffers, the model.
std::int64_t peakResidentBytes();

} // namespace opsched::engine
