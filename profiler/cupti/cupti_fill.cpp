// Collected CUPTI data into store records: shared by builds with and without CUPTI, so it is tested
// everywhere.
#include "cupti/cupti_collector.h"

#include <algorithm>
#include <unordered_map>
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

std::vector<CollectedApiCall> hostRow(std::vector<CollectedApiCall> calls)
{
    // The workload's thread: the one issuing most launches.
    std::unordered_map<std::uint32_t, std::size_t> launches;
    for (const auto& c : calls)
        if (c.name.find("Launch") != std::string::npos)
            ++launches[c.threadId];
    if (launches.empty())
        return {};
    const std::uint32_t thread = std::max_element(launches.begin(), launches.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second < b.second : a.first > b.first; // ties: lower id
    })->first;
    std::erase_if(calls, [&](const CollectedApiCall& c) { return c.threadId != thread || c.end < c.start; });
    // Runtime before driver at equal starts, so the runtime call encloses the driver one.
    std::sort(calls.begin(), calls.end(), [](const CollectedApiCall& a, const CollectedApiCall& b) {
        return a.start != b.start ? a.start < b.start : a.driver < b.driver;
    });
    std::vector<CollectedApiCall> row;
    std::uint64_t runtimeEnd = 0; // end of the last runtime call kept
    for (auto& c : calls) {
        if (c.driver && c.start < runtimeEnd)
            continue; // inside a runtime call: the same time, told twice
        if (!row.empty() && c.start < row.back().end)
            continue; // overlapping (another nesting, e.g. a callback): the outer call stands
        if (!c.driver)
            runtimeEnd = c.end;
        row.push_back(std::move(c));
    }
    return row;
}

void fillRun(store::RunRecord& run, const Collection& collection,
    const std::function<std::optional<std::int64_t>(const CollectedKernel&)>& launchOf,
    const std::function<std::optional<std::int64_t>(std::optional<std::uint64_t>)>& launchOfCall)
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
    for (auto& call : hostRow(collection.apiCalls)) {
        store::HostCallRecord h { rel(call.start), rel(call.end), std::move(call.name), std::nullopt };
        if (launchOfCall && h.name.find("Launch") != std::string::npos)
            h.launchId = launchOfCall(call.externalId);
        run.hostCalls.push_back(std::move(h));
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
