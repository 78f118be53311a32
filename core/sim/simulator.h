// The simulated GPU: runs any plan analytically and deterministically. Kernels take the lanes
// (warps) they ask for in submission order and keep them until they end (no preemption), memory
// bandwidth is shared, and concurrent kernels whose data spills the L2 slow each other down. Host
// launches, the device's own launches (one at a time, earliest submitted first), launch latency,
// event waits and stage barriers each cost time. So small concurrent kernels finish sooner
// together, kernels that each fill the GPU gain nothing, larger batches leave less room for
// concurrency, and the launch order of the same streams matters -- what the IOS, Nimble and Opara
// papers measured.
#pragma once

#include "plan/plan.h"
#include "sim/kernel_model.h"
#include "sim/sim_device.h"

#include <string_view>
#include <vector>

namespace opsched {

struct SimOptions {
    // Launch through one CUDA graph (no host cost per kernel, shorter gaps; barriers are events;
    // the plan's launch order is the capture order) instead of one host call per kernel, in plan
    // order, with a host synchronisation at every barrier.
    bool cudaGraph = false;
};

// Kernels of every op, computed once per graph (the IOS search simulates many stages).
class KernelTable {
public:
    explicit KernelTable(const Graph& graph);
    const std::vector<KernelDesc>& of(OpId op) const { return perOp_[op.value()]; }

private:
    std::vector<std::vector<KernelDesc>> perOp_;
};

struct KernelSpan {
    std::uint32_t launch = 0; // index into plan.launches
    std::uint32_t part = 0; // kernel index within the launch
    StreamId stream;
    double start = 0; // seconds
    double end = 0;
    double warps = 0;
};

struct WarpSample {
    double time = 0; // seconds; the value holds until the next sample
    double activeWarps = 0;
};

// What the host thread does, as Nsight's CUDA API row shows it: issuing kernels one call each,
// launching the whole CUDA graph, waiting for a stage's kernels to end, joining the streams at a
// stage barrier (and at the end of the run). It explains device idle time the kernels do not.
// Measured runs (CUPTI's runtime API records) add every other call (cudaEventRecord,
// cudaStreamWaitEvent, ...) as Other; the simulator has none.
enum class HostCallKind : std::uint8_t { Launch, GraphLaunch, Wait, Barrier, Other };
// "cudaLaunchKernel", "cudaGraphLaunch", "wait for stage", "barrier", "CUDA API call"
const char* toString(HostCallKind kind);
// The kind of a stored call by its name, the simulator's or a CUDA API's: names with GraphLaunch,
// then Launch (cudaLaunchKernel, cuLaunchKernel), "barrier", waits ("wait for stage", names with
// Synchronize: the host blocks), anything else Other.
HostCallKind hostCallKind(std::string_view name);

struct HostCall {
    double start = 0, end = 0; // seconds
    HostCallKind kind = HostCallKind::Launch;
    std::uint32_t launch = ~0U; // the plan launch a Launch issues; ~0U otherwise
};

struct SimResult {
    double latency = 0; // seconds, first issue to last kernel end
    std::vector<KernelSpan> kernels; // in start order
    std::vector<HostCall> host; // in time order, end to end from 0 to the latency
    std::vector<double> opStart, opEnd; // per op id, seconds
    std::vector<WarpSample> warps; // step function; warps > 0 only while some kernel runs
    double averageActiveWarps = 0; // time-weighted over the time some kernel runs
};

// The plan must be valid for the graph (validate(graph, plan) empty).
SimResult simulate(const Graph& graph, const Plan& plan, const SimDevice& device, const SimOptions& options = {},
    const KernelTable* kernels = nullptr);

// Latency of one stage run on its own (its launches, then the barrier that ends it), as the
// IOS search needs it.
double simulateStage(const Graph& graph, const Stage& stage, const SimDevice& device, const SimOptions& options = {},
    const KernelTable* kernels = nullptr);

} // namespace opsched
