// The machinery behind the CUDA executor and the GPU stage timer: a graph's ops compiled against
// one arena into launch steps (cuDNN convs, cuBLAS GEMMs, own kernels), CUDA streams with their
// cuDNN and cuBLAS handles and workspaces, and stream programs captured into CUDA graphs and
// replayed. Internal to the CUDA backend.
#pragma once

#include "exec/cpu/tensor_layout.h"
#include "exec/cuda/cublas_gemm.h"
#include "exec/cuda/cuda_check.h"
#include "exec/cuda/cuda_executor.h"
#include "exec/cuda/cudnn_conv.h"
#include "exec/cuda/gather_errors.h"
#include "exec/cuda/gpu_memory_plan.h"
#include "exec/cuda/stream_program.h"

#include <functional>
#include <memory>
#include <vector>

namespace opsched::gpu {

// A captured and instantiated CUDA graph.
class GraphExec {
public:
    GraphExec() = default;
    explicit GraphExec(cudaGraphExec_t exec)
        : exec_(exec)
    {
    }
    ~GraphExec()
    {
        if (exec_)
            cudaGraphExecDestroy(exec_);
    }
    GraphExec(GraphExec&& o) noexcept
        : exec_(std::exchange(o.exec_, nullptr))
    {
    }
    GraphExec& operator=(GraphExec&& o) noexcept
    {
        std::swap(exec_, o.exec_);
        return *this;
    }
    cudaGraphExec_t get() const { return exec_; }

private:
    cudaGraphExec_t exec_ = nullptr;
};

// Checks the runtime, the device index and cuDNN, then makes the device current. Throws Error
// naming what is missing.
void selectDevice(int device);

class DeviceRunner {
public:
    // Lays out the plan's values (with `reuse`); compiles nothing yet.
    DeviceRunner(const Graph& graph, const Plan& plan, const CudaOptions& options, ArenaReuse reuse);
    ~DeviceRunner();
    DeviceRunner(const DeviceRunner&) = delete;
    DeviceRunner& operator=(const DeviceRunner&) = delete;

    const Graph& graph() const { return graph_; }
    const Plan& plan() const { return plan_; }
    // Launch steps: the plan's launches, then any added by addMergedLaunch.
    std::size_t launchCount() const { return steps_.size(); }
    void compileLaunch(std::size_t index); // once; later calls do nothing
    // A merged launch of `ops` (timer: a merge stage of a search) running one conv over stacked
    // weights into a private buffer; at batch > 1 its slices are copied out, as the plan's would be.
    std::size_t addMergedLaunch(const std::vector<OpId>& ops);

    // Runs `program` (its launch indices are this runner's) once eagerly, op by op, then captures it
    // into a CUDA graph on stream 0; compiles the launches it needs first. A capture may grow the
    // streams' workspaces, so replay only graphs captured since the last capture that compiled
    // new convolutions (the executor captures once; the timer replays each capture right away).
    GraphExec capture(const StreamProgram& program);
    // Copies inputs in, replays, copies outputs out; throws Error when an embedding met an id
    // outside its table (the replay wrote zeros for it).
    std::vector<std::vector<float>> run(const GraphExec& exec, const std::vector<std::vector<float>>& inputs);
    // The activation arena filled with NaN (every bit set), synchronously.
    void poison();
    // Issues `program` (captured before) eagerly, each launch through `wrap`; then synchronises.
    void runEagerly(const StreamProgram& program, const CudaExecutor::LaunchWrapper& wrap);
    // Seconds per replay, each timed with events and waited for (what one inference costs,
    // launch included; how PyTorch's numbers are taken too).
    std::vector<double> time(const GraphExec& exec, int warmup, int repeats);
    // Seconds per replay of `repeats` replays issued back to back, one event between each two and
    // one wait at the end: the device time of a small graph without a host round trip per replay
    // (the stage timer's way: a stage is a piece of a larger graph, not launched on its own).
    std::vector<double> timeBackToBack(const GraphExec& exec, int warmup, int repeats);

    std::int64_t arenaBytes() const { return memory_.arenaBytes(); }
    std::int64_t weightBytes() const { return weightBytes_; }
    // What this runner does differently from the full backend (cuBLAS missing: own GEMM kernels).
    std::string notes() const { return cublas_.note(); }

private:
    using Step = std::function<void(cudaStream_t, std::size_t stream)>;
    struct LayerSteps; // compileLayer's steps per layer kind (device_runner.cpp)
    struct TensorLayerSteps; // compileTensorLayer's (device_runner_tensor_ops.cpp)

    float* at(int value) const;
    float* tensorAt(TensorId t) const { return at(layout_.valueOf(t)); }
    void compileOp(const Op& op, std::vector<Step>& out);
    void compileLayer(const Op& op, std::size_t i, int in, const std::vector<std::int64_t>& inDims, int out,
        std::vector<Step>& steps);
    void compileCombine(const Op& op, std::vector<Step>& steps);
    void compileMerged(const std::vector<OpId>& order, const std::vector<std::int64_t>& channelOffsets, int input,
        float* stack, bool copySlices, std::vector<Step>& steps);
    const float* constant(const std::vector<float>& values, const std::string& what);
    // Imported models' layers (Binary, MatMul, Concat, Slice, ...): device_runner_tensor_ops.cpp.
    void compileTensorLayer(const Op& op, std::size_t i, const float* x, const std::vector<std::int64_t>& inDims,
        float* y, std::vector<Step>& steps);
    // GEMM steps on cuBLAS (row-major a * b into y, one per call, each at its offsets), or false,
    // pushing nothing, when cuBLAS is missing or a call's sizes do not fit its int arguments; the
    // caller then pushes its own kernel.
    bool pushCublasGemms(const std::vector<RowMajorGemm>& calls, const float* a, const float* b, float* y,
        const std::string& what, std::vector<Step>& steps);
    const std::int64_t* indexConstant(const std::vector<std::int64_t>& values, const std::string& what);
    // Streams, and for those that run convolutions a cuDNN handle and a workspace as large as
    // their largest conv needs; for those that run cuBLAS GEMMs a cuBLAS handle and a workspace of
    // at least CublasGemms::kWorkspaceBytes (one buffer per stream serves both, in stream order).
    void prepareStreams(const StreamProgram& program);
    void issue(const StreamOp& op); // one program step on its stream (eagerly, or into a capture)

    Graph graph_;
    Plan plan_;
    CudaOptions options_;
    cpu::TensorLayout layout_;
    GpuMemoryPlan memory_;
    DeviceBuffer arena_;
    CudnnContext cudnn_;
    CublasGemms cublas_;
    std::size_t cublasSteps_ = 0; // cuBLAS steps compiled so far
    std::vector<bool> usesCublas_; // per launch: its stream needs a cuBLAS handle and workspace
    std::vector<std::vector<Step>> steps_;
    std::vector<bool> compiled_;
    std::vector<std::unique_ptr<CudnnConv>> convs_;
    std::vector<std::vector<const CudnnConv*>> convsOf_; // per launch
    std::vector<DeviceBuffer> constants_; // weights, biases, private stacks
    std::int64_t weightBytes_ = 0;
    std::vector<cudaStream_t> streams_;
    std::vector<DeviceBuffer> workspaces_; // per stream, cuDNN's and cuBLAS's
    std::vector<cudaEvent_t> events_;
    std::vector<cudaEvent_t> timingEvents_; // timeBackToBack's
    std::vector<bool> ranEagerly_; // per launch: run once outside a capture
    GatherErrors gatherErrors_; // embeddings' out-of-range ids, checked by run()
};

} // namespace opsched::gpu
