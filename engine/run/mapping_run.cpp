#include "engine/run/mapping_run.h"

#include "engine/device_ref.h"
#include "engine/map_devices.h"
#include "engine/run/run_check.h"

#include "exec/cuda/cuda_executor.h"
#include "exec/cuda/cuda_runtime_info.h"
#include "exec/segment_executors.h"
#include "map/bridge/mapping_plan.h"
#include "util/error.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

namespace opsched::engine {

namespace {

// N for "cuda:N", nothing for other names.
std::optional<int> cudaIndexOf(const std::string& device)
{
    const DeviceRef ref = parseDeviceRef(device);
    if (ref.kind != DeviceKind::Cuda)
        return std::nullopt;
    return ref.index;
}

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// A clear refusal before anything is built: the runner would name the first CUDA segment instead.
void checkCudaDevices(const MappingRun& run)
{
    for (std::size_t u = 0; u < run.cudaIndex.size(); ++u) {
        if (run.cudaIndex[u] < 0)
            continue;
        const std::string& name = run.doc.devices[u];
        const CudaRuntimeStatus status = queryCudaRuntime();
        if (!status.available)
            throw Error("run --mapping: device " + name + ": no CUDA device (" + status.reason
                + "); mappings over cpu and cpu:N devices run without one");
        if (!gpu::cudaBackendAvailable())
            throw Error("run --mapping: device " + name
                + ": this build of opsched has no CUDA backend (cuDNN "
                  "headers were not found when it was built)");
        if (run.cudaIndex[u] >= static_cast<int>(status.devices.size()))
            throw Error("run --mapping: device " + name + " does not exist; this machine has "
                + std::to_string(status.devices.size()) + " CUDA device(s)");
    }
}

} // namespace

MappingRun prepareMappingRun(const Graph& graph, const std::string& file, bool segments)
{
    MappingRun run;
    run.doc = map::readMappingFile(graph, file);
    run.segmented = segments;
    for (const auto& device : run.doc.devices) {
        if (const auto cuda = cudaIndexOf(device)) {
            run.cores.emplace_back();
            run.cudaIndex.push_back(*cuda);
            run.segmented = true; // a GPU keeps its own memory: values cross as host copies between segments
            continue;
        }
        const auto cores = cpuCoresOf(device, run.doc.devices);
        if (!cores)
            throw Error("run --mapping: device " + device
                + " cannot run: mappings run on cpu, cpu:N and cuda:N "
                  "devices; sim devices only predict (see the file's makespan_ms)");
        run.cores.push_back(*cores);
        run.cudaIndex.push_back(-1);
    }
    if (!run.segmented) {
        run.partitions = run.cores;
        if (run.partitions.size() == 1 && run.partitions.front().empty())
            run.partitions.clear(); // "cpu" alone: oneDNN's own threads, as `run` does
    }
    // The predicted schedule, recomputed from the file's costs and links when it has them all.
    const bool complete
        = std::all_of(run.doc.costsMs.begin(), run.doc.costsMs.end(), [](double c) { return std::isfinite(c); }) ||
        [&] {
            for (std::size_t t = 0; t < graph.opCount(); ++t)
                if (!std::isfinite(run.doc.costsMs[t * run.doc.devices.size() + run.doc.mapping.device[t]]))
                    return false;
            return true;
        }();
    if (complete) {
        const map::MappingProblem problem = map::problemFromDocument(graph, run.doc);
        const map::MappingTimes times = map::evaluate(problem, run.doc.mapping);
        if (!times.feasible)
            throw Error("run --mapping: " + file + ": " + times.problem);
        run.predictedStart = times.start;
        run.predictedFinish = times.finish;
        run.predictedMs = times.makespan * 1e3;
    }
    run.plan = map::planForMapping(graph, run.doc.mapping, run.predictedStart);
    return run;
}

double measuredSpanMs(const std::vector<cpu::LaunchTiming>& timings)
{
    if (timings.empty())
        return 0;
    std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = 0;
    for (const auto& t : timings) {
        first = std::min(first, t.startNs);
        last = std::max(last, t.endNs);
    }
    return static_cast<double>(last - first) * 1e-6;
}

SegmentRunResult runMappingSegments(const Graph& graph, const MappingRun& run,
    const std::vector<std::vector<float>>& inputs, int repeat, bool tf32, SegmentRunChecks checks)
{
    checkCudaDevices(run);
    const auto start = Clock::now();
    SegmentRunResult r;
    auto segments = exec::cutSegments(graph, run.doc.mapping.device, run.doc.mapping.order);
    const auto factory = [&run, tf32](const Subgraph& sub, std::uint32_t u) -> std::unique_ptr<exec::SegmentExecutor> {
        if (run.cudaIndex[u] >= 0)
            return exec::makeCudaSegmentExecutor(sub.graph, run.cudaIndex[u], tf32);
        return exec::makeCpuSegmentExecutor(sub.graph, run.cores[u]);
    };
    exec::SegmentRunner runner(graph, std::move(segments), run.doc.devices, factory);
    runner.acceptStaleValues(checks.skipWaits);
    r.prepareMs = msSince(start);
    if (checks.check) {
        runner.run(warmUpInputs(inputs)); // warm-up on other data: the first touch of the arenas, caches
        runner.poison();
        r.outputs = runner.run(inputs);
    } else {
        r.outputs = runner.run(inputs); // warm-up
    }
    for (int i = 0; i < repeat; ++i) {
        const auto t = Clock::now();
        std::vector<std::vector<float>> outputs = runner.run(inputs);
        r.latenciesMs.push_back(msSince(t));
        if (!checks.check)
            r.outputs = std::move(outputs);
    }
    r.segments = runner.segments();
    r.timings = runner.lastTimings();
    r.waits = runner.waitsFor();
    for (std::size_t s = 0; s < r.segments.size(); ++s) {
        r.arenaBytes += runner.executor(s).arenaBytes();
        r.weightBytes += runner.executor(s).weightBytes();
    }
    return r;
}

} // namespace opsched::engine
