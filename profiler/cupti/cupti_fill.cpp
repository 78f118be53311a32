// Collected CUPTI data into store records: shared by builds with and without CUPTI, so it is tested
// everywhere.
#include "cupti/cupti_collector.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace opsched::profiler::cupti {

namespace {

// Active warps averaged over the time the run's kernels ran (the union of their intervals), each
// sample weighted by its overlap with it. The sampler runs from before the first launch to after
// the last, its first window reaches back to when sampling began, and a profiled eager run leaves
// host gaps between kernels: averaging over every sample measured mostly idle time (seen on an
// H100: 18 warps over all samples of googlenet's run, 76 to 373 while its kernels ran).
// Without kernels, over every sample.
std::optional<double> averageWhileBusy(const Collection& collection)
{
    std::vector<std::pair<std::uint64_t, std::uint64_t>> busy;
    for (const auto& k : collection.kernels)
        if (k.end > k.start)
            busy.emplace_back(k.start, k.end);
    std::sort(busy.begin(), busy.end());
    std::vector<std::pair<std::uint64_t, std::uint64_t>> merged;
    for (const auto& [start, end] : busy) {
        if (!merged.empty() && start <= merged.back().second)
            merged.back().second = std::max(merged.back().second, end);
        else
            merged.emplace_back(start, end);
    }
    double area = 0, span = 0;
    for (const auto& w : collection.warps) {
        if (w.end <= w.start)
            continue;
        double overlap = 0;
        if (collection.kernels.empty()) {
            overlap = static_cast<double>(w.end - w.start);
        } else {
            // The first busy interval ending after the sample starts, then those it reaches.
            auto it = std::lower_bound(merged.begin(), merged.end(), w.start,
                                       [](const auto& interval, std::uint64_t t) { return interval.second <= t; });
            for (; it != merged.end() && it->first < w.end; ++it)
                overlap += static_cast<double>(std::min(w.end, it->second) - std::max(w.start, it->first));
        }
        area += w.activeWarps * overlap;
        span += overlap;
    }
    if (span <= 0)
        return std::nullopt;
    return area / span;
}

} // namespace

void fillRun(store::RunRecord& run, const Collection& collection,
    const std::function<std::optional<std::int64_t>(const CollectedKernel&)>& launchOf)
{
    const auto rel
        = [&](std::uint64_t t) { return static_cast<std::int64_t>(t) - static_cast<std::int64_t>(collection.startNs); };
    for (const auto& k : collection.kernels) {
        store::KernelRecord r;
        r.start = rel(k.start);
        r.end = rel(k.end);
        r.deviceId = k.deviceId;
        r.contextId = k.contextId;
        r.streamId = k.streamId;
        r.correlationId = k.correlationId;
        if (k.graphNodeId)
            r.graphNodeId = static_cast<std::int64_t>(k.graphNodeId);
        r.gridId = k.gridId;
        r.launchId = launchOf ? launchOf(k) : std::nullopt;
        r.gridX = k.gridX;
        r.gridY = k.gridY;
        r.gridZ = k.gridZ;
        r.blockX = k.blockX;
        r.blockY = k.blockY;
        r.blockZ = k.blockZ;
        r.registersPerThread = k.registersPerThread;
        r.staticSharedMemory = k.staticSharedMemory;
        r.dynamicSharedMemory = k.dynamicSharedMemory;
        r.localMemoryPerThread = k.localMemoryPerThread;
        r.shortName = k.shortName;
        r.demangledName = k.demangledName;
        // Warps the grid launches (threads rounded up to whole warps per block).
        const std::int64_t threads = std::int64_t { k.blockX } * k.blockY * k.blockZ;
        r.warps = static_cast<double>(std::int64_t { k.gridX } * k.gridY * k.gridZ * ((threads + 31) / 32));
        run.kernels.push_back(std::move(r));
    }
    if (collection.warpsCollected) {
        run.warpsCollected = true;
        for (const auto& w : collection.warps) {
            const auto duration = static_cast<std::int64_t>(w.end) - static_cast<std::int64_t>(w.start);
            run.warps.push_back({ rel(w.start), std::max<std::int64_t>(duration, 0), w.activeWarps, w.smActivePct });
        }
        run.averageActiveWarps = averageWhileBusy(collection);
    }
    for (const auto& m : collection.messages)
        run.notes += (run.notes.empty() ? "" : "; ") + m;
}

} // namespace opsched::profiler::cupti
