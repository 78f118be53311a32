#include "exec/cuda/cuda_executor.h"

#include "exec/cuda/device_runner.h"

namespace opsched::gpu {

bool cudaBackendAvailable()
{
    return true;
}

struct CudaExecutor::Impl {
    DeviceRunner runner;
    GraphExec exec;
    StreamProgram program; // kept for eager, profiled runs
    std::string deviceName;

    Impl(const Graph& graph, const Plan& plan, const CudaOptions& options)
        : runner(graph, plan, options, ArenaReuse::WhenOrdered)
    {
        for (std::size_t i = 0; i < plan.launches.size(); ++i)
            runner.compileLaunch(i);
        program = buildStreamProgram(graph, plan, !options.skipDependencyWaits);
        exec = runner.capture(program); // once; every run replays it
        cudaDeviceProp prop {};
        if (cudaGetDeviceProperties(&prop, options.device) == cudaSuccess)
            deviceName = prop.name;
    }
};

CudaExecutor::CudaExecutor(const Graph& graph, const Plan& plan, CudaOptions options)
{
    selectDevice(options.device);
    impl_ = std::make_unique<Impl>(graph, plan, options);
}

CudaExecutor::~CudaExecutor() = default;

std::vector<std::vector<float>> CudaExecutor::run(const std::vector<std::vector<float>>& inputs)
{
    return impl_->runner.run(impl_->exec, inputs);
}

void CudaExecutor::poison()
{
    impl_->runner.poison();
}

std::vector<double> CudaExecutor::timeReplays(int warmup, int repeats)
{
    return impl_->runner.time(impl_->exec, warmup, repeats);
}

void CudaExecutor::runEagerly(const LaunchWrapper& wrap)
{
    impl_->runner.runEagerly(impl_->program, wrap);
}

std::int64_t CudaExecutor::arenaBytes() const
{
    return impl_->runner.arenaBytes();
}
std::int64_t CudaExecutor::weightBytes() const
{
    return impl_->runner.weightBytes();
}
std::string CudaExecutor::deviceName() const
{
    return impl_->deviceName;
}
std::string CudaExecutor::notes() const
{
    return impl_->runner.notes();
}

} // namespace opsched::gpu
