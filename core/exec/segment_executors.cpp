#include "exec/segment_executors.h"

#include "exec/cpu/cpu_executor.h"
#include "exec/cuda/cuda_executor.h"
#include "plan/plan.h"
#include "schedule/basic_schedulers.h"

namespace opsched::exec {
namespace {

class CpuSegment final : public SegmentExecutor {
public:
    CpuSegment(const Graph& graph, cpu::CpuOptions options)
        : executor_(graph, compileSchedule(graph, sequentialSchedule(graph)), std::move(options))
    {
    }
    std::vector<std::vector<float>> run(const std::vector<std::vector<float>>& inputs) override
    {
        return executor_.run(inputs);
    }
    void poison() override { executor_.poison(); }
    std::int64_t arenaBytes() const override { return executor_.peakArenaBytes(); }
    std::int64_t weightBytes() const override { return executor_.weightBytes(); }

private:
    cpu::CpuExecutor executor_;
};

class CudaSegment final : public SegmentExecutor {
public:
    CudaSegment(const Graph& graph, int device, bool tf32)
        : executor_(graph, compileSchedule(graph, sequentialSchedule(graph)), options(device, tf32))
    {
    }
    std::vector<std::vector<float>> run(const std::vector<std::vector<float>>& inputs) override
    {
        return executor_.run(inputs); // copies in, replays the segment's CUDA graph, copies out
    }
    void poison() override { executor_.poison(); }
    std::int64_t arenaBytes() const override { return executor_.arenaBytes(); }
    std::int64_t weightBytes() const override { return executor_.weightBytes(); }

private:
    static gpu::CudaOptions options(int device, bool tf32)
    {
        gpu::CudaOptions o;
        o.device = device;
        o.tf32 = tf32;
        return o;
    }
    gpu::CudaExecutor executor_;
};

} // namespace

std::unique_ptr<SegmentExecutor> makeCpuSegmentExecutor(const Graph& subgraph, const std::vector<int>& cores)
{
    cpu::CpuOptions o;
    if (!cores.empty())
        o.partitions = { cores };
    return std::make_unique<CpuSegment>(subgraph, std::move(o));
}

std::unique_ptr<SegmentExecutor> makeCallerCpuSegmentExecutor(const Graph& subgraph, int threads)
{
    cpu::CpuOptions o;
    o.threads = threads;
    return std::make_unique<CpuSegment>(subgraph, std::move(o));
}

std::unique_ptr<SegmentExecutor> makeCudaSegmentExecutor(const Graph& subgraph, int device, bool tf32)
{
    return std::make_unique<CudaSegment>(subgraph, device, tf32);
}

} // namespace opsched::exec
