// Built when oneDNN was not found: the CPU backend reports that it is missing.
#include "exec/cpu/cpu_executor.h"

#include "util/error.h"

namespace opsched::cpu {

struct CpuExecutor::Impl { };

bool cpuBackendAvailable()
{
    return false;
}

void pinCallingThread(const std::vector<int>&)
{
    throw Error("the CPU backend is not built");
}

CpuExecutor::CpuExecutor(const Graph&, const Plan&, CpuOptions)
{
    throw Error("the CPU backend is not built: configure opsched with oneDNN (Debian: libdnnl-dev) to run on the CPU");
}

CpuExecutor::~CpuExecutor() = default;

std::vector<std::vector<float>> CpuExecutor::run(const std::vector<std::vector<float>>&)
{
    throw Error("the CPU backend is not built");
}

void CpuExecutor::poison() { }

const std::vector<LaunchTiming>& CpuExecutor::lastLaunchTimings() const
{
    static const std::vector<LaunchTiming> none;
    return none;
}

std::int64_t CpuExecutor::peakArenaBytes() const
{
    return 0;
}
std::int64_t CpuExecutor::activationBytes() const
{
    return 0;
}
std::int64_t CpuExecutor::weightBytes() const
{
    return 0;
}
std::int64_t CpuExecutor::scratchpadBytes() const
{
    return 0;
}
std::size_t CpuExecutor::primitiveCount() const
{
    return 0;
}
std::string effectiveCpuIsa()
{
    return {};
}
std::vector<PrimitiveUse> CpuExecutor::primitives() const
{
    return {};
}

const TensorLayout& CpuExecutor::layout() const
{
    throw Error("the CPU backend is not built");
}

} // namespace opsched::cpu
