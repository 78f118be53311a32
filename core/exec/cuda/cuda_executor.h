// The GPU backend: runs a Plan for a Graph on a CUDA device. Everything is prepared before the
// first run: the stream program (exec/cuda/stream_program.h: one stream per plan stream, events
// only across streams, barriers as fork/join), the arena (exec/cuda/gpu_memory_plan.h: values
// that may be in use together never share bytes), weights on the device, cuDNN descriptors and
// the algorithm of each convolution shape, measured once. The whole plan is then captured once
// into a CUDA graph; a run copies the inputs into their fixed buffers, replays the graph and
// copies the outputs out. Builds without CUDA get a stub that refuses with a clear message.
#pragma once

#include "exec/cuda/conv_variant.h"

#include "graph/graph.h"
#include "plan/plan.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace opsched::gpu {

// Whether this build has the CUDA backend (the CUDA toolkit and cuDNN headers were found).
bool cudaBackendAvailable();

struct CudaOptions {
    int device = 0;
    bool tf32 = true; // TF32 tensor cores for FP32 convolutions and cuBLAS GEMMs
    ConvVariant conv; // how convolutions run (epilogue, algorithm, workspace)
    // Fault injection (run --inject-fault skip-waits): launches do not wait for their producers on
    // other streams (stream_program.h), so a check must fail. Never set for a real run.
    bool skipDependencyWaits = false;
};

class CudaExecutor {
public:
    // Throws Error with a message a person can act on: no CUDA build, no device or driver, device
    // index out of range, no cuDNN, a layer the backend cannot run (named by op), out of memory, a
    // cuDNN call that fails (named by op and call).
    CudaExecutor(const Graph& graph, const Plan& plan, CudaOptions options = {});
    ~CudaExecutor();
    CudaExecutor(const CudaExecutor&) = delete;
    CudaExecutor& operator=(const CudaExecutor&) = delete;

    // Inputs and outputs in Graph::inputs() / outputs() order, dense NCHW float32.
    std::vector<std::vector<float>> run(const std::vector<std::vector<float>>& inputs);
    // Fills the activation arena with NaN (every bit set), so that a value the next run reads
    // before writing it (a missing event) shows in the outputs; run --check calls it before the
    // run it checks.
    void poison();
    // Seconds of `repeats` graph replays after `warmup` ones, each timed with CUDA events (on
    // whatever the inputs hold).
    std::vector<double> timeReplays(int warmup, int repeats);

    // The plan once, eagerly (not the graph), launch by launch: `wrap(launch, issue)` must call
    // issue() once, on this thread, to enqueue that launch's kernels. The profiler wraps each in a
    // CUPTI external correlation id so every kernel maps back to its launch. Synchronises the
    // device before returning.
    using LaunchWrapper = std::function<void(std::size_t launch, const std::function<void()>& issue)>;
    void runEagerly(const LaunchWrapper& wrap);

    std::int64_t arenaBytes() const; // activations, concurrency-safe placement
    std::int64_t weightBytes() const; // weights and constants on the device
    std::string deviceName() const;
    // Empty, or what this executor does differently from the full backend, said once (e.g. cuBLAS
    // could not be opened, so Gemm and MatMul run on opsched's own FP32 kernels).
    std::string notes() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace opsched::gpu
