#include "engine/results_database.h"

#include "store/store.h"
#include "util/error.h"

#include <algorithm>
#include <stdexcept>

namespace opsched::engine {
namespace {

store::Store readOnly(const std::string& path)
{
    return store::Store::open(path, store::OpenMode::ReadOnly);
}

} // namespace

std::vector<store::RunSummary> listRuns(const std::string& path)
{
    return readOnly(path).runSummaries();
}

std::vector<store::RunRecord> loadRuns(const std::string& path, const std::vector<store::RunId>& ids)
{
    store::Store db = readOnly(path);
    std::vector<store::RunRecord> runs;
    runs.reserve(ids.size());
    for (const store::RunId id : ids)
        runs.push_back(db.loadRun(id));
    return runs;
}

StoredComparison compareStoredRuns(const std::string& path, const store::ComparisonFilter& filter, bool explain)
{
    store::Store db = readOnly(path);
    StoredComparison c;
    c.groups = store::compareRuns(db.runSummaries(), filter);
    std::size_t rows = 0;
    for (const auto& g : c.groups)
        rows += g.rows.size();
    if (rows == 0)
        throw Error("'" + path + "' holds no successful runs"
            + (filter.model || filter.batch || filter.device ? " matching MODEL, --batch and --device" : "")
            + "; record some with `opsched-cli profile`");
    if (!explain)
        return c;
    for (const auto& g : c.groups) {
        const auto seq = std::find_if(
            g.rows.begin(), g.rows.end(), [](const store::ComparisonRow& r) { return r.scheduler == "sequential"; });
        if (seq == g.rows.end())
            continue;
        const store::RunRecord base = db.loadRun(seq->run);
        for (const auto& r : g.rows) {
            if (r.scheduler == "sequential")
                continue;
            try {
                c.explained[r.run.value()].breakdown = analysis::explainDifference(base, db.loadRun(r.run));
            } catch (const std::invalid_argument& e) {
                c.explained[r.run.value()].error = e.what();
            }
        }
    }
    return c;
}

RunExplanation explainRuns(const std::string& path, store::RunId a, store::RunId b)
{
    store::Store db = readOnly(path);
    RunExplanation e { db.loadRun(a), db.loadRun(b), {} };
    try {
        e.breakdown = analysis::explainDifference(e.a, e.b);
    } catch (const std::invalid_argument& ex) {
        throw Error(std::string("explain: ") + ex.what());
    }
    return e;
}

RunExport exportStoredRun(
    const std::string& path, store::RunId id, const std::string& format, const std::string& output)
{
    const auto parsed = profiler::parseExportFormat(format);
    if (!parsed)
        throw Error("unknown export format '" + format + "' (formats: schedule, chrome-trace, csv)");
    RunExport e;
    e.run = readOnly(path).loadRun(id);
    e.text = profiler::exportRun(e.run, *parsed);
    if (output != "-")
        profiler::writeTextFile(output, e.text);
    return e;
}

MergeReport mergeDatabases(const std::string& output, const std::vector<std::string>& inputs,
    const std::function<void(const std::string& input, const store::MergeStats&)>& merged)
{
    for (const auto& in : inputs)
        (void)readOnly(in);
    store::Store out = store::Store::open(output, store::OpenMode::ReadWrite);
    MergeReport report;
    for (const auto& in : inputs) {
        const store::MergeStats s = store::mergeInto(out, in);
        if (merged)
            merged(in, s);
        report.added += s.runsAdded;
        report.present += s.runsAlreadyPresent;
    }
    report.totalRuns = out.connection().queryInt("SELECT count(*) FROM runs").value_or(0);
    return report;
}

store::RunId storeRun(const std::string& path, const store::RunRecord& run)
{
    return store::Store::open(path, store::OpenMode::ReadWrite).writeRun(run);
}

} // namespace opsched::engine
