#include "store/schema.h"

#include "store/latency_stats.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <thread>
#include <vector>

namespace opsched::store {
namespace {

// Times are nanoseconds from the start of the run (kernels, warp samples, stages) or latencies in
// nanoseconds; the cost cache keeps the search's seconds. `kernels` and `StringIds` use Nsight Systems' column names
// (its SQLite export of CUPTI_ACTIVITY_KIND_KERNEL), `devices` those of its TARGET_INFO_GPU, so queries carry over.
constexpr const char* kSchema = R"sql(
CREATE TABLE devices (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,         -- sim:h100, or cuda:<uuid> for a real GPU
  name TEXT NOT NULL,
  simulated INTEGER NOT NULL,
  computeMajor INTEGER, computeMinor INTEGER,
  smCount INTEGER, maxWarpsPerSm INTEGER,
  clockRate INTEGER,                -- kHz
  memoryBandwidth REAL,             -- bytes/s
  l2CacheSize INTEGER, totalMemory INTEGER,
  driverVersion INTEGER, runtimeVersion INTEGER
);
CREATE TABLE models (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  ref TEXT NOT NULL,                -- as given: zoo:squeezenet, a file path
  sha256 TEXT NOT NULL,             -- structure fingerprint, batch-independent
  op_count INTEGER NOT NULL,
  ops_json TEXT NOT NULL,           -- [{"name","type","inputs"}], index = op id
  UNIQUE (sha256, ref)
);
CREATE TABLE schedules (
  id INTEGER PRIMARY KEY,
  model_id INTEGER NOT NULL REFERENCES models(id),
  scheduler TEXT NOT NULL,
  format TEXT NOT NULL,             -- opsched-schedule or opsched-plan
  document TEXT NOT NULL,           -- the schedule/plan file JSON
  plan TEXT NOT NULL,               -- the executed plan (opsched-plan JSON)
  params TEXT NOT NULL,
  search_seconds REAL NOT NULL,
  states INTEGER NOT NULL DEFAULT 0,
  transitions INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  uid TEXT,                         -- random; merge skips runs it already holds
  job_key TEXT NOT NULL,            -- what `profile` resumes by
  model_id INTEGER NOT NULL REFERENCES models(id),
  schedule_id INTEGER REFERENCES schedules(id),
  device_id INTEGER NOT NULL REFERENCES devices(id),
  batch INTEGER NOT NULL,
  started_at TEXT NOT NULL, finished_at TEXT NOT NULL,   -- ISO 8601 UTC
  status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
  error TEXT,
  simulated INTEGER NOT NULL,
  cuda_graph INTEGER NOT NULL DEFAULT 0,
  warps INTEGER NOT NULL DEFAULT 0, -- active warps were collected
  repeats INTEGER NOT NULL DEFAULT 0,
  average_active_warps REAL,
  host TEXT, opsched_version TEXT, notes TEXT
);
CREATE UNIQUE INDEX runs_uid ON runs(uid);
CREATE INDEX runs_job ON runs(job_key, status);
CREATE TABLE latency_samples (
  run_id INTEGER NOT NULL REFERENCES runs(id),
  repeat INTEGER NOT NULL,
  latency_ns REAL NOT NULL,
  PRIMARY KEY (run_id, repeat)
) WITHOUT ROWID;
CREATE TABLE latencies (
  run_id INTEGER PRIMARY KEY REFERENCES runs(id),
  repeats INTEGER NOT NULL,
  median_ns REAL NOT NULL,
  p10_ns REAL, p90_ns REAL, mean_ns REAL, min_ns REAL, max_ns REAL
);
CREATE TABLE stage_latencies (
  run_id INTEGER NOT NULL REFERENCES runs(id),
  stage INTEGER NOT NULL,
  start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
  PRIMARY KEY (run_id, stage)
) WITHOUT ROWID;
CREATE TABLE StringIds (
  id INTEGER PRIMARY KEY,
  value TEXT NOT NULL UNIQUE
);
CREATE TABLE kernels (
  run_id INTEGER NOT NULL REFERENCES runs(id),
  start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER, contextId INTEGER, streamId INTEGER NOT NULL,
  correlationId INTEGER, graphNodeId INTEGER, gridId INTEGER,
  opId INTEGER,                     -- graph op index (first op of a merged launch)
  launchId INTEGER,                 -- index into the plan's launches
  part INTEGER NOT NULL DEFAULT 0,  -- kernel index within the launch
  gridX INTEGER, gridY INTEGER, gridZ INTEGER,
  blockX INTEGER, blockY INTEGER, blockZ INTEGER,
  registersPerThread INTEGER, staticSharedMemory INTEGER, dynamicSharedMemory INTEGER,
  localMemoryPerThread INTEGER,
  shortName INTEGER REFERENCES StringIds(id),
  demangledName INTEGER REFERENCES StringIds(id),
  warps REAL                        -- warps the grid asks for
);
CREATE INDEX kernels_run ON kernels(run_id, start);
CREATE TABLE warp_samples (
  run_id INTEGER NOT NULL REFERENCES runs(id),
  time_ns INTEGER NOT NULL,
  duration_ns INTEGER NOT NULL DEFAULT 0,
  active_warps REAL NOT NULL,       -- whole GPU
  sm_active_pct REAL,               -- NULL where not measured (simulated)
  PRIMARY KEY (run_id, time_ns)
) WITHOUT ROWID;
CREATE TABLE host_calls (
  run_id INTEGER NOT NULL REFERENCES runs(id),
  start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
  name TEXT NOT NULL,               -- cudaLaunchKernel, cudaGraphLaunch, wait for stage, barrier
  launch_id INTEGER                 -- the plan launch a kernel launch issues
);
CREATE INDEX host_calls_run ON host_calls(run_id, start_ns);
CREATE TABLE cost_cache (
  device_key TEXT NOT NULL,
  batch INTEGER NOT NULL,
  signature TEXT NOT NULL,          -- the stage's op signatures (cost_cache.h)
  latency_s REAL NOT NULL,          -- seconds, exactly as the search used it
  measurements INTEGER NOT NULL DEFAULT 1,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (device_key, batch, signature)
) WITHOUT ROWID;
CREATE TABLE job_claims (
  job_key TEXT PRIMARY KEY,         -- a job some batch is running now (runs.job_key once written)
  owner TEXT NOT NULL,              -- random id of that batch
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  pid_start INTEGER NOT NULL DEFAULT 0, -- the process's start time (/proc/PID/stat): tells a reused pid apart
  claimed_at TEXT NOT NULL,         -- ISO 8601 UTC
  expires_at INTEGER NOT NULL       -- Unix seconds; renewed while the batch runs
) WITHOUT ROWID;
)sql";

// v2 -> v3: claims, so batches sharing a database never run a job twice.
constexpr const char* kJobClaimsV3 = R"sql(
CREATE TABLE job_claims (
  job_key TEXT PRIMARY KEY, owner TEXT NOT NULL, host TEXT NOT NULL, pid INTEGER NOT NULL,
  pid_start INTEGER NOT NULL DEFAULT 0, claimed_at TEXT NOT NULL, expires_at INTEGER NOT NULL
) WITHOUT ROWID;
)sql";

// v3 -> v4: the host thread's calls of each run (older runs have none). IF NOT EXISTS: a file
// whose version was set back by hand may have the table already.
constexpr const char* kHostCallsV4 = R"sql(
CREATE TABLE IF NOT EXISTS host_calls (
  run_id INTEGER NOT NULL REFERENCES runs(id), start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
  name TEXT NOT NULL, launch_id INTEGER
);
CREATE INDEX IF NOT EXISTS host_calls_run ON host_calls(run_id, start_ns);
)sql";

// v1 -> v2. v1 had runs without uid, latencies with (run_id, repeats, median_ns) only,
// warp_samples with (run_id, time_ns, active_warps) only, and no cost cache.
void migrateV1ToV2(Connection& conn)
{
    conn.exec(R"sql(
ALTER TABLE runs ADD COLUMN uid TEXT;
UPDATE runs SET uid = lower(hex(randomblob(16)));
CREATE UNIQUE INDEX runs_uid ON runs(uid);
ALTER TABLE latencies ADD COLUMN p10_ns REAL;
ALTER TABLE latencies ADD COLUMN p90_ns REAL;
ALTER TABLE latencies ADD COLUMN mean_ns REAL;
ALTER TABLE latencies ADD COLUMN min_ns REAL;
ALTER TABLE latencies ADD COLUMN max_ns REAL;
ALTER TABLE warp_samples ADD COLUMN duration_ns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE warp_samples ADD COLUMN sm_active_pct REAL;
UPDATE warp_samples SET duration_ns = n.d
  FROM (SELECT run_id, time_ns,
               COALESCE(LEAD(time_ns) OVER (PARTITION BY run_id ORDER BY time_ns) - time_ns, 0) AS d
        FROM warp_samples) AS n
  WHERE warp_samples.run_id = n.run_id AND warp_samples.time_ns = n.time_ns;
CREATE TABLE cost_cache (
  device_key TEXT NOT NULL, batch INTEGER NOT NULL, signature TEXT NOT NULL,
  latency_s REAL NOT NULL, measurements INTEGER NOT NULL DEFAULT 1, updated_at TEXT NOT NULL,
  PRIMARY KEY (device_key, batch, signature)
) WITHOUT ROWID;
)sql");
    // Percentiles from the stored repeats, computed as new runs compute them.
    std::map<std::int64_t, std::vector<double>> samples;
    auto read = conn.prepare("SELECT run_id, latency_ns FROM latency_samples ORDER BY run_id, repeat");
    while (read.step())
        samples[read.getInt(0)].push_back(read.getDouble(1));
    auto update = conn.prepare(
        "UPDATE latencies SET p10_ns = ?2, p90_ns = ?3, mean_ns = ?4, min_ns = ?5, max_ns = ?6 WHERE run_id = ?1");
    for (auto& [run, values] : samples) {
        const LatencyStats s = latencyStats(values);
        update.bind(1, run).bind(2, s.p10Ns).bind(3, s.p90Ns).bind(4, s.meanNs).bind(5, s.minNs).bind(6, s.maxNs);
        update.run();
    }
}

void setVersion(Connection& conn, int version)
{
    conn.exec("PRAGMA user_version = " + std::to_string(version));
}

std::string describe(const std::string& path)
{
    return "'" + path + "'";
}

// Checks a file that exists and is not empty without writing to it. Returns its user_version, or
// 0 for a blank SQLite file: no tables, no application_id, no user_version. That is what a writer
// killed while creating the database leaves (WAL mode set, schema not yet committed), and what
// another process creating it shows until its schema commits: a new database, not a foreign one.
int checkExisting(const std::string& path)
{
    Connection probe(path, Connection::Access::ReadOnly);
    // One read transaction, so every answer comes from one snapshot: another process creating or
    // migrating the file may commit in between (WAL), and a mark from before next to a version from
    // after would make an opsched file look like another application's.
    probe.exec("BEGIN");
    // The first read parses the header: a file that is not SQLite fails here (SQLITE_NOTADB).
    const auto appId = probe.queryInt("PRAGMA application_id").value_or(0);
    const auto version = static_cast<int>(probe.queryInt("PRAGMA user_version").value_or(0));
    if (appId != kApplicationId) {
        const auto tables = probe.queryInt("SELECT count(*) FROM sqlite_schema").value_or(0);
        if (appId == 0 && version == 0 && tables == 0)
            return 0;
        throw StoreError(describe(path) + " is an SQLite database of another application (" + std::to_string(tables)
            + " tables, application_id " + std::to_string(appId)
            + "), not an opsched results database; it was left untouched");
    }
    if (version > kSchemaVersion)
        throw StoreError(describe(path) + " was written by a newer opsched (schema version " + std::to_string(version)
            + "; this build reads versions 1 to " + std::to_string(kSchemaVersion) + "); it was left untouched");
    if (version < 1)
        throw StoreError(describe(path)
            + " is marked as an opsched database but has no schema version; it was left "
              "untouched");
    const auto check = probe.queryText("PRAGMA quick_check").value_or("");
    if (check != "ok")
        throw StoreError(describe(path) + ": the file is corrupt (" + check.substr(0, 200) + "); it was left as it is");
    probe.exec("COMMIT");
    return version;
}

void configureForWriting(Connection& conn)
{
    // WAL: readers (the GUI, `compare --db`) read while a batch writes. Switching a new file to WAL
    // turns a read into a write, and SQLite answers such an upgrade SQLITE_BUSY at once, without
    // its busy handler, while another process is creating the same file: retry as the handler
    // would, for as long.
    std::string mode;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (int attempt = 0;; ++attempt) {
        try {
            mode = conn.queryText("PRAGMA journal_mode = WAL").value_or("");
            break;
        } catch (const StoreError& e) {
            if (e.reason() != StoreError::Reason::Busy || std::chrono::steady_clock::now() > deadline)
                throw;
            std::this_thread::sleep_for(std::chrono::milliseconds(std::min(5 + 5 * attempt, 100)));
        }
    }
    if (mode != "wal")
        throw StoreError("database " + describe(conn.path()) + ": cannot switch to WAL mode (got '" + mode + "')");
    // NORMAL is durable for every committed run in WAL mode except on power loss, where the last
    // commits may be lost but the file stays consistent.
    conn.exec("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON");
}

} // namespace

bool createSchema(Connection& conn)
{
    // Under the write lock: of several processes creating one database at once, the first writes
    // the schema, the others find it there.
    Transaction tx(conn);
    if (conn.queryInt("SELECT count(*) FROM sqlite_schema").value_or(0) != 0)
        return false;
    conn.exec(kSchema);
    conn.exec("PRAGMA application_id = " + std::to_string(kApplicationId));
    setVersion(conn, kSchemaVersion);
    tx.commit();
    return true;
}

void migrate(Connection& conn, int fromVersion)
{
    if (fromVersion >= kSchemaVersion)
        return;
    Transaction tx(conn);
    // Another writer may have migrated the file since it was checked: start from what it holds now.
    const int now = static_cast<int>(conn.queryInt("PRAGMA user_version").value_or(fromVersion));
    if (now >= kSchemaVersion)
        return;
    for (int v = std::max(now, fromVersion); v < kSchemaVersion; ++v) {
        switch (v) {
        case 1:
            migrateV1ToV2(conn);
            break;
        case 2:
            conn.exec(kJobClaimsV3);
            break;
        case 3:
            conn.exec(kHostCallsV4);
            break;
        default:
            throw StoreError("no migration from schema version " + std::to_string(v));
        }
    }
    setVersion(conn, kSchemaVersion);
    tx.commit();
}

OpenedDatabase openDatabase(const std::string& path, OpenMode mode)
{
    namespace fs = std::filesystem;
    // At most twice round: a second time only when another process created the file meanwhile.
    for (int attempt = 0;; ++attempt) {
        std::error_code ec;
        const bool exists = fs::exists(path, ec);
        if (exists && fs::is_directory(path, ec))
            throw StoreError(describe(path) + " is a directory, not a results database");
        const bool empty = exists && fs::file_size(path, ec) == 0 && !ec;
        OpenedDatabase db;
        // 0: a missing or empty file, or a blank SQLite file (see checkExisting).
        db.fileVersion = exists && !empty ? checkExisting(path) : 0;
        if (db.fileVersion == 0) {
            if (mode == OpenMode::ReadOnly && !exists)
                throw StoreError("no results database at " + describe(path));
            if (mode == OpenMode::ReadOnly && empty)
                throw StoreError(describe(path) + " is empty, not an opsched results database");
            if (mode == OpenMode::ReadOnly)
                throw StoreError(
                    describe(path) + " is an empty SQLite file (no tables), not an opsched results database yet");
            db.connection = Connection(path, Connection::Access::Create);
            configureForWriting(db.connection);
            if (createSchema(db.connection)) {
                db.created = true;
                return db;
            }
            if (attempt > 0)
                throw StoreError("database " + describe(path) + " changes under this process while it is created");
            continue; // another process created it: open it as it is now, checks included
        }
        if (mode == OpenMode::ReadOnly) {
            Connection file(path, Connection::Access::ReadOnly);
            if (db.fileVersion == kSchemaVersion) {
                db.connection = std::move(file);
                return db;
            }
            // Reading an old file must not change it: migrate a copy in memory.
            db.connection = Connection::memory();
            file.copyTo(db.connection);
            migrate(db.connection, db.fileVersion);
            db.migrated = true;
            return db;
        }
        db.connection = Connection(path, Connection::Access::ReadWrite);
        configureForWriting(db.connection);
        if (db.fileVersion < kSchemaVersion) {
            migrate(db.connection, db.fileVersion);
            db.migrated = true;
        }
        return db;
    }
}

} // namespace opsched::store
