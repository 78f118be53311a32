// makeCudaStageTimer for CUDA builds: stages, ops and plans measured on the device as captured
// CUDA graphs (so launch cost is what the final plan pays), median of timed replays.
#include "exec/cuda/cuda_stage_timer.h"

#include "exec/cuda/cuda_runtime_info.h"
#include "exec/cuda/device_runner.h"
#include "schedule/basic_schedulers.h"
#include "util/statistics.h"

#include <algorithm>
#include <chrono>
#include <map>

namespace opsched {
namespace {

using gpu::DeviceRunner;
using gpu::GraphExec;
using gpu::StreamOp;
using gpu::StreamOpKind;
using gpu::StreamProgram;

class CudaStageTimer final : public StageTimer {
public:
    explicit CudaStageTimer(const CudaTimerOptions& options)
        : options_(options)
    {
        const CudaRuntimeStatus status = queryCudaRuntime();
        const CudaDeviceInfo& dev = status.devices.at(static_cast<std::size_t>(options.device));
        identity_.device = "cuda:" + std::to_string(options.device) + " " + dev.name;
        identity_.driver = std::to_string(status.driverVersion) + "/" + std::to_string(status.runtimeVersion) + "/"
            + std::to_string(status.cudnnVersion);
        identity_.options = std::string("tf32=") + (options.tf32 ? "on" : "off");
    }

    TimerIdentity identity() const override { return identity_; }
    TimerStats stats() const override { return stats_; }

    double timeStage(const Graph& graph, const Stage& stage) override
    {
        Context& c = contextFor(graph);
        StreamProgram p;
        if (stage.strategy == StageStrategy::Merge) {
            std::vector<OpId> ops;
            for (const auto& g : stage.groups)
                ops.insert(ops.end(), g.begin(), g.end());
            std::vector<std::uint32_t> key;
            for (auto id : ops)
                key.push_back(id.value());
            auto it = c.merged.find(key);
            if (it == c.merged.end()) {
                const Clock::time_point t0 = Clock::now();
                it = c.merged.emplace(key, c.runner->addMergedLaunch(ops)).first;
                stats_.compileSeconds += secondsSince(t0);
            }
            p.ops.push_back({ StreamOpKind::Launch, 0, static_cast<std::uint32_t>(it->second) });
            return measure(c, p);
        }
        // Group g on stream g, forked from stream 0 and joined back: the stage's own fork/join.
        p.streams = static_cast<std::uint32_t>(std::max<std::size_t>(stage.groups.size(), 1));
        if (p.streams > 1) {
            p.ops.push_back({ StreamOpKind::Record, 0, p.events++ });
            for (std::uint32_t s = 1; s < p.streams; ++s)
                p.ops.push_back({ StreamOpKind::Wait, s, 0 });
        }
        for (std::uint32_t g = 0; g < stage.groups.size(); ++g)
            for (auto id : stage.groups[g])
                p.ops.push_back({ StreamOpKind::Launch, g, c.launchOf.at(id.value()) });
        for (std::uint32_t s = 1; s < p.streams; ++s) {
            p.ops.push_back({ StreamOpKind::Record, s, p.events });
            p.ops.push_back({ StreamOpKind::Wait, 0, p.events++ });
        }
        return measure(c, p);
    }

    double timeOp(const Graph& graph, OpId op) override
    {
        Context& c = contextFor(graph);
        StreamProgram p;
        p.ops.push_back({ StreamOpKind::Launch, 0, c.launchOf.at(op.value()) });
        return measure(c, p);
    }

    std::vector<double> timePlan(const Graph& graph, const Plan& plan, int repeats) override
    {
        DeviceRunner runner(graph, plan, runnerOptions(), gpu::ArenaReuse::WhenOrdered);
        const GraphExec exec = runner.capture(gpu::buildStreamProgram(graph, plan));
        return runner.time(exec, options_.warmup, repeats);
    }

private:
    // One graph at a time (a search works on one): every op laid out in its own bytes, so any
    // stage of any plan can run without the plan's memory reuse getting in the way.
    struct Context {
        std::uint64_t instance = 0;
        std::unique_ptr<DeviceRunner> runner;
        std::vector<std::uint32_t> launchOf; // op -> launch of the sequential plan
        std::map<std::vector<std::uint32_t>, std::size_t> merged;
    };

    gpu::CudaOptions runnerOptions() const
    {
        gpu::CudaOptions o;
        o.device = options_.device;
        o.tf32 = options_.tf32;
        return o;
    }

    Context& contextFor(const Graph& graph)
    {
        if (!context_.runner || context_.instance != graph.instanceId()) {
            context_ = Context {};
            const Plan plan = compileSchedule(graph, sequentialSchedule(graph));
            context_.runner = std::make_unique<DeviceRunner>(graph, plan, runnerOptions(), gpu::ArenaReuse::Never);
            context_.instance = graph.instanceId();
            context_.launchOf.assign(graph.opCount(), 0);
            for (std::size_t i = 0; i < plan.launches.size(); ++i)
                for (auto id : plan.launches[i].ops)
                    context_.launchOf[id.value()] = static_cast<std::uint32_t>(i);
        }
        return context_;
    }

    double measure(Context& c, const StreamProgram& program)
    {
        Clock::time_point t0 = Clock::now();
        for (const auto& op : program.ops)
            if (op.kind == StreamOpKind::Launch)
                c.runner->compileLaunch(op.index); // once per launch; cuDNN's algorithm search
        stats_.compileSeconds += secondsSince(t0);
        t0 = Clock::now();
        const GraphExec exec = c.runner->capture(program);
        stats_.captureSeconds += secondsSince(t0);
        t0 = Clock::now();
        const double seconds = median(c.runner->timeBackToBack(exec, options_.warmup, options_.repeats));
        stats_.replaySeconds += secondsSince(t0);
        ++stats_.captures;
        return seconds;
    }

    using Clock = std::chrono::steady_clock;
    static double secondsSince(Clock::time_point t0)
    {
        return std::chrono::duration<double>(Clock::now() - t0).count();
    }

    CudaTimerOptions options_;
    TimerIdentity identity_;
    Context context_;
    TimerStats stats_;
};

} // namespace

std::unique_ptr<StageTimer> makeCudaStageTimer(const CudaTimerOptions& options)
{
    try {
        gpu::selectDevice(options.device);
    } catch (const Error& e) {
        throw Error("cuda:" + std::to_string(options.device) + ": " + e.what()
            + "; use --device sim:NAME (see `opsched-cli devices`) to estimate on a simulated GPU");
    }
    return std::make_unique<CudaStageTimer>(options);
}

} // namespace opsched
