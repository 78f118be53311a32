// The results store: one SQLite file holding devices, models, schedules, runs with their latencies,
// stage latencies, kernels and active-warp samples, and the IOS cost cache. Every run is written
// in one transaction, so a killed writer leaves whole runs only; readers read while a batch writes
// (WAL). See schema.cpp for the tables.
#pragma once

#include "store/job_claims.h"
#include "store/records.h"
#include "store/schema.h"

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace opsched::store {

class Store {
public:
    // See openDatabase(): never modifies a file it does not recognise. Throws StoreError.
    static Store open(const std::string& path, OpenMode mode);

    const std::string& path() const { return path_; }
    OpenMode mode() const { return mode_; }
    bool created() const { return created_; }
    bool migrated() const { return migrated_; }
    int fileVersion() const { return fileVersion_; }
    Connection& connection() { return db_; }

    // --- writing (ReadWrite only) ---
    // Writes the run and everything it references (device, model, schedule, strings) in one
    // transaction. Returns its id.
    RunId writeRun(const RunRecord& run);
    // As writeRun, unless a run with the same uid is there already (checked in the same
    // transaction, so two merges into one file add a run once). Returns whether it wrote.
    bool writeRunIfNew(const RunRecord& run);
    // Job keys that have a successful run (what a resumed batch skips).
    std::unordered_set<std::string> completedJobKeys();
    bool hasRunUid(const std::string& uid);
    // The newest run's id; RunId() (0) when there is none.
    RunId lastRunId();

    // --- batches sharing the database (job_claims.h) ---
    // Claims the job for `me` unless it is complete or held by another live batch (one write
    // transaction). With `failedAfter`, a failed run of the job newer than that id (another
    // batch's, while this one waited) is reported as FailedElsewhere instead of claiming again.
    JobClaim claimJob(const std::string& jobKey, const ClaimOwner& me, std::optional<RunId> failedAfter = std::nullopt,
        std::int64_t leaseSeconds = kClaimLeaseSeconds);
    struct JobRunWritten {
        RunId id;
        bool written = true;
    };
    // Writes the run of a job `me` claimed and drops the claim, in one transaction. When another
    // batch completed the job meanwhile (possible only once `me`'s claim had lapsed), a successful
    // run is not written: returns that batch's run with written = false.
    JobRunWritten writeJobRun(const RunRecord& run, const ClaimOwner& me);
    // Drops every claim `me` holds (a batch that stops).
    void releaseClaims(const ClaimOwner& me);

    // The IOS cost cache: stage signature -> latency in seconds (as the search uses it, so a cached
    // search repeats the fresh one exactly), per device and batch.
    std::unordered_map<std::string, double> loadCostCache(const std::string& deviceKey, std::int64_t batch);
    // One transaction; an existing entry is averaged with the new measurement.
    void addCostCache(
        const std::string& deviceKey, std::int64_t batch, const std::vector<std::pair<std::string, double>>& entries);
    std::size_t costCacheSize();
    struct CostCacheEntry {
        std::string deviceKey;
        std::int64_t batch = 1;
        std::string signature;
        double latencySeconds = 0;
        std::int64_t measurements = 1;
        std::string updatedAt;
    };
    std::vector<CostCacheEntry> costCacheEntries();
    // For merging: keeps, per key, the entry with more measurements (so merging twice changes nothing).
    void mergeCostCache(const std::vector<CostCacheEntry>& entries);

    // --- reading ---
    std::vector<RunSummary> runSummaries();
    bool hasRun(RunId id);
    // The whole run, as written. Throws StoreError naming the id when there is none.
    RunRecord loadRun(RunId id);

private:
    Store(Connection db, std::string path, OpenMode mode)
        : db_(std::move(db))
        , path_(std::move(path))
        , mode_(mode)
    {
    }
    void requireWritable(const char* what) const;
    DeviceId putDevice(const DeviceRecord& d);
    ModelId putModel(const ModelRecord& m);
    ScheduleId putSchedule(ModelId model, const ScheduleRecord& s);
    // The run and everything it references, inside the caller's transaction.
    RunId insertRun(const RunRecord& run);

    Connection db_;
    std::string path_;
    OpenMode mode_;
    bool created_ = false;
    bool migrated_ = false;
    int fileVersion_ = 0;
};

} // namespace opsched::store
