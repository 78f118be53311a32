// The collector in a build without CUPTI: it runs the workload and says why nothing was collected.
#include "cupti/cupti_collector.h"

namespace opsched::profiler::cupti {

bool built()
{
    return false;
}

ExternalIdScope::ExternalIdScope(std::uint64_t) { }

ExternalIdScope::~ExternalIdScope() = default;

Collection collect(const std::function<void()>& workload, bool, const PmSamplingConfig&)
{
    Collection c;
    c.messages.push_back("this build has no CUPTI (CUDA toolkit not found at build time): latencies only");
    workload();
    return c;
}

} // namespace opsched::profiler::cupti
