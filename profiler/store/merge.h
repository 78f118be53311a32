// Merging result databases, so profiling split across GPU servers (one job-array task per
// database) ends in one file. Runs are matched by their uid: merging the same input twice, or an
// input that already went into the output, adds nothing.
#pragma once

#include "store/store.h"

#include <string>

namespace opsched::store {

struct MergeStats {
    std::size_t runsAdded = 0;
    std::size_t runsAlreadyPresent = 0;
    std::size_t costEntries = 0;
};

// Copies every run of the database at `inputPath` (opened read-only, never modified; an older
// schema is migrated in memory) into `out`, one transaction per run. Throws StoreError.
MergeStats mergeInto(Store& out, const std::string& inputPath);

} // namespace opsched::store
