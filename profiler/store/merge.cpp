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
        // Keeps the uid, so a second merge finds it; checked again inside the write, for a merge
        // into the same file running at the same time.
        if (out.writeRunIfNew(run))
            ++stats.runsAdded;
        else
            ++stats.runsAlreadyPresent;
    }
    const auto entries = in.costCacheEntries();
    out.mergeCostCache(entries);
    stats.costEntries = entries.size();
    return stats;
}

} // namespace opsched::store
