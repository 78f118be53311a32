// Runs a graph cut into segments (exec/segment_plan.h) on several executors at once: one worker
// thread per device runs that device's segments in order; a segment waits (condition variable)
// until every value it reads has been published, gets them as dense NCHW float host buffers (the
// executors' run() API), runs its subgraph and publishes its outputs. This is how a mapping over
// a CPU and a GPU runs (each executor keeps its own memory; values cross as host copies), and
// with CPU executors only it exercises the same orchestration on any machine.
#pragma once

#include "exec/segment_plan.h"
#include "graph/subgraph.h"

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace opsched::exec {

// One segment's executor: inputs and outputs in its subgraph's inputs() / outputs() order.
class SegmentExecutor {
public:
    virtual ~SegmentExecutor() = default;
    virtual std::vector<std::vector<float>> run(const std::vector<std::vector<float>>& inputs) = 0;
    virtual void poison() { } // its activations NaN, before a checked run (CpuExecutor::poison)
    virtual std::int64_t arenaBytes() const { return 0; } // its activations' memory (host or device)
    virtual std::int64_t weightBytes() const { return 0; } // its weights in the kernels' layouts
};

// Builds the executor of one segment; called on the worker thread of `device`, which later runs
// it (a CUDA context is current per thread). May throw; the runner names device and segment.
using SegmentExecutorFactory
    = std::function<std::unique_ptr<SegmentExecutor>(const Subgraph& subgraph, std::uint32_t device)>;

// When a segment ran in the last run: steady-clock nanoseconds from the start of run(), from
// when its inputs were all there to when its outputs were published.
struct SegmentTiming {
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
};

class SegmentRunner {
public:
    // Extracts every segment's subgraph and builds its executor (devices one after another, each
    // on its own worker), so nothing is built while timing. Throws Error when the segments do not
    // cover the graph once, wait on each other in a cycle (orders that contradict the graph), or
    // an executor cannot be built ("DEVICE, segment K (N ops from 'a'): why").
    SegmentRunner(const Graph& graph, std::vector<Segment> segments, std::vector<std::string> deviceNames,
        const SegmentExecutorFactory& factory);
    ~SegmentRunner();
    SegmentRunner(const SegmentRunner&) = delete;
    SegmentRunner& operator=(const SegmentRunner&) = delete;

    // Inputs and outputs in the graph's inputs() / outputs() order. An error in a worker is
    // rethrown here as Error naming the device and segment; the other workers stop at their next
    // segment, so nothing waits forever, and the runner can run again.
    std::vector<std::vector<float>> run(const std::vector<std::vector<float>>& inputs);

    // Every published value and every executor's activations NaN, so that a segment the next run
    // starts before its inputs are published reads NaN, not the last run's values.
    void poison();
    // Fault injection (run --inject-fault skip-waits): a segment starts as soon as its inputs were
    // published in any run, so it may read the last run's values. Never set for a real run.
    void acceptStaleValues(bool accept) { acceptStale_ = accept; }

    const std::vector<Segment>& segments() const { return segments_; }
    const Subgraph& subgraph(std::size_t segment) const { return *subgraphs_[segment]; }
    const SegmentExecutor& executor(std::size_t segment) const { return *executors_[segment]; }
    // Per segment, from the last run (all zero before the first).
    const std::vector<SegmentTiming>& lastTimings() const { return timings_; }
    // The ids of the segments each segment waits for (other devices' producers of its inputs).
    const std::vector<std::vector<std::size_t>>& waitsFor() const { return waits_; }
    std::string segmentLabel(std::size_t segment) const;

private:
    void worker(std::uint32_t device, const SegmentExecutorFactory* factory);
    bool inputsReady(std::size_t segment) const; // with mutex_ held
    void runSegment(std::size_t segment, std::int64_t originNs);

    std::vector<Segment> segments_;
    std::vector<std::string> deviceNames_;
    std::vector<std::unique_ptr<Subgraph>> subgraphs_;
    std::vector<std::unique_ptr<SegmentExecutor>> executors_;
    std::vector<std::vector<std::size_t>> segmentsOf_; // per device, in run order
    std::vector<std::vector<std::size_t>> waits_;
    std::vector<TensorId> graphInputs_, graphOutputs_;
    std::vector<std::int64_t> inputElements_;

    // Values by original tensor id; ready_[t] is the run (generation) that last published t.
    std::vector<std::vector<float>> values_;
    std::vector<std::uint32_t> ready_;
    std::vector<SegmentTiming> timings_;

    std::mutex mutex_;
    std::condition_variable wake_, finished_;
    std::uint32_t generation_ = 0;
    std::int64_t originNs_ = 0;
    std::size_t built_ = 0; // devices whose executors are built (they build in device order)
    int running_ = 0;
    bool stop_ = false;
    bool failed_ = false;
    bool acceptStale_ = false;
    bool poisonNext_ = false, poisonRun_ = false; // poison() asked; this run's workers poison first
    std::exception_ptr error_;
    std::vector<std::thread> threads_;
};

} // namespace opsched::exec
