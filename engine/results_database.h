// Results databases as the user meets them (`compare --db`, `explain`, `export`, `merge`, the
// Runs panel): every function opens the file itself, read-only where it only reads, so a file that
// cannot be read changes nothing, and says what is wrong with it (Error, exit 1).
#pragma once

#include "analysis/speedup_breakdown.h"
#include "export/export.h"
#include "store/comparison.h"
#include "store/merge.h"
#include "store/records.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace opsched::engine {

// One line per run, in id order (the Runs panel's list).
std::vector<store::RunSummary> listRuns(const std::string& path);
// The runs `ids` names, whole (kernels, stages, warps), in that order.
std::vector<store::RunRecord> loadRuns(const std::string& path, const std::vector<store::RunId>& ids);

// `compare --db`: per model, batch and device, the latest successful run of each scheduler; with
// `explain`, each row's breakdown against its group's sequential run (by run id; a row that cannot be
// explained holds the reason instead). Throws Error when nothing matches.
struct StoredComparison {
    std::vector<store::ComparisonGroup> groups;
    struct Explained {
        std::optional<analysis::SpeedupBreakdown> breakdown;
        std::string error;
    };
    std::map<std::int64_t, Explained> explained; // run id -> against sequential
};
StoredComparison compareStoredRuns(const std::string& path, const store::ComparisonFilter& filter, bool explain);

// `explain --runs A,B`: why run B is faster or slower than run A.
struct RunExplanation {
    store::RunRecord a, b;
    analysis::SpeedupBreakdown breakdown;
};
RunExplanation explainRuns(const std::string& path, store::RunId a, store::RunId b);

// `export`: one stored run as a schedule file, a Chrome trace or a kernel CSV (`format` as the CLI
// names it), written to `output` ("-": returned only, for standard output).
struct RunExport {
    store::RunRecord run;
    std::string text;
};
RunExport exportStoredRun(
    const std::string& path, store::RunId id, const std::string& format, const std::string& output);

// `merge`: every input checked before `output` is opened, so a bad input leaves it as it was; then
// each merged in turn (`merged` hears of each as it lands).
struct MergeReport {
    std::size_t added = 0, present = 0;
    std::int64_t totalRuns = 0; // in `output` afterwards
};
MergeReport mergeDatabases(const std::string& output, const std::vector<std::string>& inputs,
    const std::function<void(const std::string& input, const store::MergeStats&)>& merged = {});

// Appends a run; returns its id.
store::RunId storeRun(const std::string& path, const store::RunRecord& run);

} // namespace opsched::engine
