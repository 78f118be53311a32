#include "session/kernel_attribution.h"

#include <algorithm>
#include <limits>

namespace opsched::profiler {

std::uint64_t externalIdOfLaunch(std::size_t launch)
{
    return static_cast<std::uint64_t>(launch) + 1;
}

std::optional<std::int64_t> launchOfExternalId(std::optional<std::uint64_t> externalId, std::size_t launchCount)
{
    if (!externalId || *externalId == 0 || *externalId > launchCount)
        return std::nullopt;
    return static_cast<std::int64_t>(*externalId - 1);
}

std::size_t attributeKernels(std::vector<store::KernelRecord>& kernels, const Plan& plan)
{
    std::stable_sort(kernels.begin(), kernels.end(),
        [](const store::KernelRecord& a, const store::KernelRecord& b) { return a.start < b.start; });
    std::vector<std::int64_t> parts(plan.launches.size(), 0);
    std::size_t unattributed = 0;
    for (auto& k : kernels) {
        if (!k.launchId || *k.launchId < 0 || static_cast<std::size_t>(*k.launchId) >= plan.launches.size()) {
            k.launchId.reset();
            k.opId.reset();
            ++unattributed;
            continue;
        }
        const auto launch = static_cast<std::size_t>(*k.launchId);
        const auto& ops = plan.launches[launch].ops;
        if (!ops.empty())
            k.opId = static_cast<std::int64_t>(ops.front().value());
        k.part = parts[launch]++;
    }
    return unattributed;
}

std::vector<store::StageLatencyRecord> stageSpans(
    const std::vector<store::KernelRecord>& kernels, const Plan& plan, const Schedule& schedule)
{
    // Op -> stage; a merged launch's kernels count for every op it runs.
    std::size_t opCount = 0;
    for (const auto& stage : schedule.stages)
        for (const auto& group : stage.groups)
            for (auto op : group)
                opCount = std::max<std::size_t>(opCount, op.value() + 1);
    std::vector<std::optional<std::uint32_t>> stageOf(opCount);
    for (std::uint32_t s = 0; s < schedule.stages.size(); ++s)
        for (const auto& group : schedule.stages[s].groups)
            for (auto op : group)
                stageOf[op.value()] = s;

    constexpr auto none = std::numeric_limits<std::int64_t>::max();
    std::vector<std::int64_t> start(schedule.stages.size(), none), end(schedule.stages.size(), 0);
    for (const auto& k : kernels) {
        if (!k.launchId || static_cast<std::size_t>(*k.launchId) >= plan.launches.size())
            continue;
        for (auto op : plan.launches[static_cast<std::size_t>(*k.launchId)].ops) {
            if (op.value() >= stageOf.size() || !stageOf[op.value()])
                continue;
            const auto s = *stageOf[op.value()];
            start[s] = std::min(start[s], k.start);
            end[s] = std::max(end[s], k.end);
        }
    }
    std::vector<store::StageLatencyRecord> spans;
    for (std::uint32_t s = 0; s < schedule.stages.size(); ++s)
        if (start[s] != none)
            spans.push_back({ s, start[s], end[s] });
    return spans;
}

} // namespace opsched::profiler
