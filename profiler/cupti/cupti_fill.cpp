// Collected CUPTI data into store records: shared by builds with and without CUPTI, so it is tested
// everywhere.
#include "cupti/cupti_collector.h"

#include <algorithm>

namespace opsched::profiler::cupti {

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
        double area = 0, span = 0;
        for (const auto& w : collection.warps) {
            const std::int64_t duration = static_cast<std::int64_t>(w.end) - static_cast<std::int64_t>(w.start);
            run.warps.push_back({ rel(w.start), std::max<std::int64_t>(duration, 0), w.activeWarps, w.smActivePct });
            area += w.activeWarps * static_cast<double>(std::max<std::int64_t>(duration, 0));
            span += static_cast<double>(std::max<std::int64_t>(duration, 0));
        }
        if (span > 0)
            run.averageActiveWarps = area / span;
    }
    for (const auto& m : collection.messages)
        run.notes += (run.notes.empty() ? "" : "; ") + m;
}

} // namespace opsched::profiler::cupti
