#include "store/merge.h"

#include <filesystem>

namespace opsched::store {

MergeStats mergeInto(Store& out, const std::string& inputPath)
{
    std::error_code ec;
    if (std::filesystem::equivalent(out.path(), inputPath, ec))
        throw StoreError("cannot merge '" + inputPath + "' into itself");
    Store in = Store::open(inputPath, OpenMode::ReadOnly);
    MergeStats stats;
    for (const auto& summary : in.runSummaries()) {
        if (!summary.uid.empty() && out.hasRunUid(summary.uid)) {
            ++stats.runsAlreadyPresent;
            continue;
        }
        RunRecord run = in.loadRun(summary.id);
        out.writeRun(run); // keeps the uid, so a second merge finds it
        ++stats.runsAdded;
    }
    const auto entries = in.costCacheEntries();
    out.mergeCostCache(entries);
    stats.costEntries = entries.size();
    return stats;
}

} // namespace opsched::store
