// The CPU backend: runs a Plan for a Graph with oneDNN primitives. Without partitions, in launch
// order on one stream (waits and barriers hold trivially); with partitions, stream s of the plan
// runs on core partition s % partitions.size(), the partitions at the same time, each launch after
// the launches of other partitions it waits for (exec/cpu/partition_runner.h). Everything is
// prepared once per plan: the tensor layout in one arena (exec/cpu/tensor_layout.h; with
// partitions, buffers share bytes only when the plan orders their uses), the weights, reordered
// once into the layout each kernel prefers, and the primitives with their arguments bound. A run
// copies the inputs in, executes the primitives and copies the outputs out.
#pragma once

#include "exec/cpu/tensor_layout.h"
#include "graph/graph.h"
#include "plan/plan.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace opsched::cpu {

// Whether this build has the CPU backend (oneDNN was found when it was configured).
bool cpuBackendAvailable();

// The instruction set oneDNN's JIT kernels use on this machine, as limited by ONEDNN_MAX_CPU_ISA:
// "avx512_core", "avx2", "sse41", ...; empty without the CPU backend.
std::string effectiveCpuIsa();

// Pins the calling thread to `cores` and gives it as many OpenMP threads (a partition's worker,
// or a caller that runs a partition's work itself, exec/segment_executors.h). Throws Error when
// the cores cannot be set.
void pinCallingThread(const std::vector<int>& cores);

// The default of CpuOptions::serialWorkBelow (measured: see docs/benchmarks.md, "Small ops on one thread").
inline constexpr double kDefaultSerialWork = 64e3;

struct CpuOptions {
    int threads = 0; // oneDNN's threads without partitions; 0 keeps its default (all cores, or OMP_NUM_THREADS)
    // Disjoint core sets (ids as the OS numbers them); stream s runs on partition
    // s % partitions.size() with one thread per core of it. Empty: one stream, launch order.
    std::vector<std::vector<int>> partitions;
    bool channelsLast = true; // false: NCHW activations everywhere (for comparisons)
    bool fuseEpilogues = true; // false: residual sums and swish run as ops of their own
    // 3x3 stride-1 convolutions with enough channels and pixels as Winograd convolutions (2 to 4x
    // fewer multiplications, a larger rounding error: about 1e-6 relative against 1e-7)
    bool winograd = true;
    // Where oneDNN offers a reference kernel (scalar loops) first, build another layout's JIT
    // kernel instead. Off only to show what the kernel audit (primitives()) reports without it.
    bool avoidReferenceKernels = true;
    // Launches with less work than this (FLOPs plus bytes moved) run on one thread: below it,
    // waking the other threads costs more than they save (an LSTM step's small MatMuls and gates,
    // a transformer's biases and reshapes). 0: every launch uses every thread.
    double serialWorkBelow = kDefaultSerialWork;
    // Fault injection (run --inject-fault skip-waits): launches do not wait for the launches of
    // other partitions, so a check must fail. Never set for a real run.
    bool skipCrossPartitionWaits = false;
};

// When launch `launch` ran in the last run: host steady-clock nanoseconds from the run's start
// (run() entry), and the partition it ran on (0 without partitions). Folded ops' launches run
// nothing (start == end).
struct LaunchTiming {
    std::size_t launch = 0;
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    int partition = 0;
};

// One step of a compiled plan: the launch it belongs to, that launch's (first) op, and what runs
// (Step::implementation: oneDNN's kind and implementation name, or "host").
struct PrimitiveUse {
    std::size_t launch = 0;
    std::string op;
    std::string implementation;
};

class CpuExecutor {
public:
    // Throws Error naming the op for layers or activations the backend cannot run, an invalid
    // plan, or memory that cannot be had; and when the backend is not built.
    CpuExecutor(const Graph& graph, const Plan& plan, CpuOptions options = {});
    ~CpuExecutor();
    CpuExecutor(const CpuExecutor&) = delete;
    CpuExecutor& operator=(const CpuExecutor&) = delete;

    // Inputs and outputs in Graph::inputs() / outputs() order, dense NCHW float32. Throws Error
    // when an input has the wrong number of values.
    std::vector<std::vector<float>> run(const std::vector<std::vector<float>>& inputs);

    // Fills the activations, staging buffers and scratchpads with NaN (every bit set), so that a
    // value the next run reads before writing it shows in the outputs instead of the last run's
    // value. run --check calls it before the run it checks.
    void poison();

    // Per launch, in plan order, from the last run(); empty before the first.
    const std::vector<LaunchTiming>& lastLaunchTimings() const;

    std::int64_t peakArenaBytes() const; // the arena: every activation and scratch buffer
    std::int64_t activationBytes() const; // all activations side by side, without reuse
    std::int64_t weightBytes() const; // weights in the kernels' layouts
    std::int64_t scratchpadBytes() const; // oneDNN's scratchpad, shared by all primitives
    std::size_t primitiveCount() const;
    // Every step in execution order, with the kernel oneDNN picked for it.
    std::vector<PrimitiveUse> primitives() const;
    const TensorLayout& layout() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Seeded inputs for a graph, the same on every platform: uniform in [-1, 1], and for inputs an
// embedding reads, integer token ids below its table size.
std::vector<std::vector<float>> seededInputs(const Graph& graph, std::uint64_t seed);

// The sum of the values, accumulated in double: a quick fingerprint of an output.
double checksum(const std::vector<float>& values);

} // namespace opsched::cpu
