#include "store/comparison.h"

#include "schedule/schedulers.h"

#include <algorithm>
#include <map>

namespace opsched::store {
namespace {

std::size_t schedulerRank(const std::string& name)
{
    const auto& names = schedulerNames();
    const auto it = std::find(names.begin(), names.end(), name);
    return static_cast<std::size_t>(it - names.begin());
}

} // namespace

std::vector<ComparisonGroup> compareRuns(const std::vector<RunSummary>& runs, const ComparisonFilter& filter)
{
    std::vector<ComparisonGroup> groups;
    std::map<std::tuple<std::string, std::int64_t, std::string>, std::size_t> index; // (sha, batch, device)
    std::vector<std::map<std::string, const RunSummary*>> latest; // per group: scheduler -> run
    for (const auto& r : runs) {
        if (filter.model && *filter.model != r.modelRef && *filter.model != r.modelName)
            continue;
        if ((filter.batch && *filter.batch != r.batch) || (filter.device && *filter.device != r.deviceKey))
            continue;
        const auto key = std::make_tuple(r.modelSha256, r.batch, r.deviceKey);
        auto [it, fresh] = index.try_emplace(key, groups.size());
        if (fresh) {
            ComparisonGroup g;
            g.modelName = r.modelName;
            g.modelRef = r.modelRef;
            g.modelSha256 = r.modelSha256;
            g.batch = r.batch;
            g.deviceKey = r.deviceKey;
            g.deviceName = r.deviceName;
            g.simulated = r.simulated;
            groups.push_back(std::move(g));
            latest.emplace_back();
        }
        if (r.status != RunStatus::Ok || !r.latency) {
            ++groups[it->second].failedRuns;
            continue;
        }
        latest[it->second][r.scheduler] = &r; // runs come in id order: the last one wins
    }
    for (std::size_t g = 0; g < groups.size(); ++g) {
        const RunSummary* seq = latest[g].contains("sequential") ? latest[g]["sequential"] : nullptr;
        for (const auto& [scheduler, run] : latest[g]) {
            ComparisonRow row;
            row.scheduler = scheduler;
            row.run = run->id;
            row.latency = *run->latency;
            row.averageActiveWarps = run->averageActiveWarps;
            if (seq && row.latency.medianNs > 0)
                row.speedup = seq->latency->medianNs / row.latency.medianNs;
            if (seq && seq->averageActiveWarps && run->averageActiveWarps && *seq->averageActiveWarps > 0)
                row.warpsVsSequential = *run->averageActiveWarps / *seq->averageActiveWarps;
            groups[g].rows.push_back(std::move(row));
        }
        std::stable_sort(groups[g].rows.begin(), groups[g].rows.end(), [](const auto& a, const auto& b) {
            const auto ra = schedulerRank(a.scheduler), rb = schedulerRank(b.scheduler);
            return ra != rb ? ra < rb : a.scheduler < b.scheduler;
        });
    }
    return groups;
}

} // namespace opsched::store
