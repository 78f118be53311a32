// The measured cost model's persistent cache on disk: an opsched results database whose cost_cache
// table holds the stage and op timings (the same table `profile --cost-cache` fills), so one file
// format, one schema and one set of safety checks serve both.
#pragma once

#include "schedule/measured_stage_cost.h"
#include "store/store.h"

#include <string>

namespace opsched::profiler {

class SqliteStageCostStore : public StageCostStore {
public:
    // Opens or creates `path` (and its folder). A file that is not a usable opsched database
    // (corrupt, another program's, from a newer opsched) is never modified: Error naming the file,
    // what is wrong, and what to do (remove it, or run without the persistent cache).
    explicit SqliteStageCostStore(const std::string& path);

    std::unordered_map<std::string, double> load(const std::string& timerKey, std::int64_t batch) override;
    void add(const std::string& timerKey, std::int64_t batch,
        const std::vector<std::pair<std::string, double>>& entries) override;

    const std::string& path() const { return store_.path(); }
    std::size_t size() { return store_.costCacheSize(); }

private:
    store::Store store_;
};

// $XDG_CACHE_HOME/opsched/stage-costs.db, else ~/.cache/opsched/stage-costs.db. Throws Error when
// neither XDG_CACHE_HOME nor HOME is set.
std::string defaultStageCostCachePath();

} // namespace opsched::profiler
