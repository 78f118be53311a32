// Schema migration: a version-1 file, written here with the version-1 schema as it shipped, opens
// read-only without being changed (migrated in memory) and read-write by being migrated in place.
#include "profiler_test_support.h"

#include "store/merge.h"
#include "store/store.h"

#include <gtest/gtest.h>

namespace opsched {
namespace {

using store::Connection;
using store::OpenMode;
using store::Store;

// The version-1 schema: runs without uid, latencies with the median only, warp samples without
// durations or SM-active %, no cost cache.
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE devices (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, name TEXT NOT NULL, simulated INTEGER NOT NULL,
  computeMajor INTEGER, computeMinor INTEGER, smCount INTEGER, maxWarpsPerSm INTEGER, clockRate INTEGER,
  memoryBandwidth REAL, l2CacheSize INTEGER, totalMemory INTEGER, driverVersion INTEGER, runtimeVersion INTEGER);
CREATE TABLE models (id INTEGER PRIMARY KEY, name TEXT NOT NULL, ref TEXT NOT NULL, sha256 TEXT NOT NULL,
  op_count INTEGER NOT NULL, ops_json TEXT NOT NULL, UNIQUE (sha256, ref));
CREATE TABLE schedules (id INTEGER PRIMARY KEY, model_id INTEGER NOT NULL REFERENCES models(id),
  scheduler TEXT NOT NULL, format TEXT NOT NULL, document TEXT NOT NULL, plan TEXT NOT NULL, params TEXT NOT NULL,
  search_seconds REAL NOT NULL, states INTEGER NOT NULL DEFAULT 0, transitions INTEGER NOT NULL DEFAULT 0);
CREATE TABLE runs (id INTEGER PRIMARY KEY, job_key TEXT NOT NULL, model_id INTEGER NOT NULL REFERENCES models(id),
  schedule_id INTEGER REFERENCES schedules(id), device_id INTEGER NOT NULL REFERENCES devices(id),
  batch INTEGER NOT NULL, started_at TEXT NOT NULL, finished_at TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('ok', 'failed')), error TEXT, simulated INTEGER NOT NULL,
  cuda_graph INTEGER NOT NULL DEFAULT 0, warps INTEGER NOT NULL DEFAULT 0, repeats INTEGER NOT NULL DEFAULT 0,
  average_active_warps REAL, host TEXT, opsched_version TEXT, notes TEXT);
CREATE INDEX runs_job ON runs(job_key, status);
CREATE TABLE latency_samples (run_id INTEGER NOT NULL REFERENCES runs(id), repeat INTEGER NOT NULL,
  latency_ns REAL NOT NULL, PRIMARY KEY (run_id, repeat)) WITHOUT ROWID;
CREATE TABLE latencies (run_id INTEGER PRIMARY KEY REFERENCES runs(id), repeats INTEGER NOT NULL,
  median_ns REAL NOT NULL);
CREATE TABLE stage_latencies (run_id INTEGER NOT NULL REFERENCES runs(id), stage INTEGER NOT NULL,
  start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, PRIMARY KEY (run_id, stage)) WITHOUT ROWID;
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL UNIQUE);
CREATE TABLE kernels (run_id INTEGER NOT NULL REFERENCES runs(id), start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER, contextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, graphNodeId INTEGER,
  gridId INTEGER, opId INTEGER, launchId INTEGER, part INTEGER NOT NULL DEFAULT 0, gridX INTEGER, gridY INTEGER,
  gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER, registersPerThread INTEGER,
  staticSharedMemory INTEGER, dynamicSharedMemory INTEGER, localMemoryPerThread INTEGER,
  shortName INTEGER REFERENCES StringIds(id), demangledName INTEGER REFERENCES StringIds(id), warps REAL);
CREATE INDEX kernels_run ON kernels(run_id, start);
CREATE TABLE warp_samples (run_id INTEGER NOT NULL REFERENCES runs(id), time_ns INTEGER NOT NULL,
  active_warps REAL NOT NULL, PRIMARY KEY (run_id, time_ns)) WITHOUT ROWID;
PRAGMA application_id = 1869640547;
PRAGMA user_version = 1;
)sql";

// One device, model, schedule and two runs: four repeats (10, 20, 30, 40 us), three warp samples.
void writeVersion1File(const std::string& path)
{
    Connection c(path, Connection::Access::Create);
    c.exec(kSchemaV1);
    c.exec(R"sql(
INSERT INTO devices(id, key, name, simulated, smCount) VALUES (1, 'sim:h100', 'simulated H100', 1, 132);
INSERT INTO models(id, name, ref, sha256, op_count, ops_json)
  VALUES (1, 'tiny', 'zoo:tiny', 'abc', 1, '[{"name":"conv","type":"Conv","inputs":[]}]');
INSERT INTO schedules(id, model_id, scheduler, format, document, plan, params, search_seconds)
  VALUES (1, 1, 'sequential', 'opsched-schedule', '{"format":"opsched-schedule"}',
          '{"format":"opsched-plan","launches":[{"ops":["conv"],"stream":0,"wait_for":[]}]}', '{}', 0.001);
INSERT INTO runs(id, job_key, model_id, schedule_id, device_id, batch, started_at, finished_at, status, simulated,
                 warps, repeats, average_active_warps)
  VALUES (1, 'job-1', 1, 1, 1, 1, '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:01.000Z', 'ok', 1, 1, 4, 100.0),
         (2, 'job-2', 1, 1, 1, 2, '2024-01-01T00:00:02.000Z', '2024-01-01T00:00:03.000Z', 'ok', 1, 0, 4, NULL);
INSERT INTO latency_samples VALUES (1, 0, 40000), (1, 1, 10000), (1, 2, 30000), (1, 3, 20000),
                                   (2, 0, 5000), (2, 1, 5000), (2, 2, 5000), (2, 3, 5000);
INSERT INTO latencies VALUES (1, 4, 25000), (2, 4, 5000);
INSERT INTO StringIds VALUES (1, 'Conv'), (2, 'conv');
INSERT INTO kernels(run_id, start, end, streamId, opId, launchId, shortName, demangledName, warps)
  VALUES (1, 1000, 9000, 0, 0, 0, 1, 2, 64);
INSERT INTO warp_samples VALUES (1, 0, 0), (1, 1000, 64), (1, 9000, 0);
)sql");
}

TEST(StoreMigration, ReadOnlyOpenMigratesInMemoryAndLeavesTheFileAlone)
{
    test::TempDir dir;
    const auto path = dir.file("v1.db");
    writeVersion1File(path);
    const auto before = test::fileHash(path);

    Store db = Store::open(path, OpenMode::ReadOnly);
    EXPECT_EQ(db.fileVersion(), 1);
    EXPECT_TRUE(db.migrated());
    const auto runs = db.runSummaries();
    ASSERT_EQ(runs.size(), 2U);
    ASSERT_TRUE(runs[0].latency.has_value());
    EXPECT_DOUBLE_EQ(runs[0].latency->medianNs, 25000);
    EXPECT_DOUBLE_EQ(runs[0].latency->p10Ns, 13000);
    EXPECT_DOUBLE_EQ(runs[0].latency->p90Ns, 37000);
    EXPECT_EQ(runs[0].uid.size(), 32U);

    EXPECT_EQ(test::fileHash(path), before);
    Connection raw(path, Connection::Access::ReadOnly);
    EXPECT_EQ(raw.queryInt("PRAGMA user_version"), 1);
}

TEST(StoreMigration, ReadWriteOpenMigratesInPlace)
{
    test::TempDir dir;
    const auto path = dir.file("v1.db");
    writeVersion1File(path);
    {
        Store db = Store::open(path, OpenMode::ReadWrite);
        EXPECT_EQ(db.fileVersion(), 1);
        EXPECT_TRUE(db.migrated());
        // The migrated file takes new runs like a fresh one.
        db.writeRun(test::simulatedRun("zoo:squeezenet", "sequential"));
        db.addCostCache("sim:h100", 1, { { "stage", 1.0 } });
    }
    Connection raw(path, Connection::Access::ReadOnly);
    EXPECT_EQ(raw.queryInt("PRAGMA user_version"), store::kSchemaVersion);
    EXPECT_EQ(raw.queryInt("PRAGMA application_id"), store::kApplicationId);
    EXPECT_EQ(raw.queryText("PRAGMA integrity_check"), "ok");
    EXPECT_EQ(raw.queryInt("SELECT count(*) FROM runs WHERE uid IS NULL OR length(uid) != 32"), 0);
    EXPECT_EQ(raw.queryInt("SELECT count(DISTINCT uid) FROM runs"), 3);
    auto p = raw.prepare("SELECT p10_ns, p90_ns, mean_ns, min_ns, max_ns FROM latencies WHERE run_id = 1");
    ASSERT_TRUE(p.step());
    EXPECT_DOUBLE_EQ(p.getDouble(0), 13000);
    EXPECT_DOUBLE_EQ(p.getDouble(1), 37000);
    EXPECT_DOUBLE_EQ(p.getDouble(2), 25000);
    EXPECT_DOUBLE_EQ(p.getDouble(3), 10000);
    EXPECT_DOUBLE_EQ(p.getDouble(4), 40000);
    auto w = raw.prepare("SELECT time_ns, duration_ns, sm_active_pct FROM warp_samples WHERE run_id = 1 ORDER BY 1");
    std::vector<std::int64_t> durations;
    while (w.step()) {
        durations.push_back(w.getInt(1));
        EXPECT_TRUE(w.isNull(2));
    }
    EXPECT_EQ(durations, (std::vector<std::int64_t> { 1000, 8000, 0 }));
    EXPECT_EQ(raw.queryInt("SELECT count(*) FROM cost_cache"), 1);

    Store again = Store::open(path, OpenMode::ReadOnly);
    EXPECT_FALSE(again.migrated());
    const auto run = again.loadRun(store::RunId(1));
    EXPECT_EQ(run.kernels.size(), 1U);
    EXPECT_EQ(run.kernels[0].demangledName, "conv");
    EXPECT_EQ(run.warps.size(), 3U);
}

TEST(StoreMigration, MergeReadsAVersion1InputWithoutChangingIt)
{
    test::TempDir dir;
    const auto in = dir.file("v1.db");
    writeVersion1File(in);
    const auto before = test::fileHash(in);
    Store out = Store::open(dir.file("out.db"), OpenMode::ReadWrite);
    const auto stats = store::mergeInto(out, in);
    EXPECT_EQ(stats.runsAdded, 2U);
    EXPECT_EQ(out.runSummaries().size(), 2U);
    EXPECT_EQ(test::fileHash(in), before);
}

// v2 -> v3 adds the job claims; a reader leaves the v2 file as it is.
TEST(StoreMigration, Version3GainsHostCallsAndKeepsItsRuns)
{
    test::TempDir dir;
    const auto path = dir.file("v3.db");
    {
        Store db = Store::open(path, OpenMode::ReadWrite);
        db.writeRun(test::simulatedRun("zoo:squeezenet", "sequential"));
        db.connection().exec("DROP TABLE host_calls; PRAGMA user_version = 3; PRAGMA wal_checkpoint(TRUNCATE)");
    }
    const auto before = test::fileHash(path);
    {
        Store reader = Store::open(path, OpenMode::ReadOnly);
        EXPECT_TRUE(reader.migrated());
        const auto runs = reader.runSummaries();
        ASSERT_EQ(runs.size(), 1U);
        EXPECT_TRUE(reader.loadRun(runs[0].id).hostCalls.empty()) << "a v3 run has no host calls";
    }
    EXPECT_EQ(test::fileHash(path), before) << "reading migrates a copy, never the file";
    Store db = Store::open(path, OpenMode::ReadWrite);
    EXPECT_EQ(db.fileVersion(), 3);
    EXPECT_TRUE(db.migrated());
    const auto id = db.writeRun(test::simulatedRun("zoo:squeezenet", "nimble"));
    EXPECT_FALSE(db.loadRun(id).hostCalls.empty());
    EXPECT_EQ(db.runSummaries().size(), 2U);
}

TEST(StoreMigration, Version2GainsJobClaims)
{
    test::TempDir dir;
    const auto path = dir.file("v2.db");
    {
        Store db = Store::open(path, OpenMode::ReadWrite);
        db.writeRun(test::simulatedRun("zoo:squeezenet", "sequential"));
        db.connection().exec(
            "DROP TABLE job_claims; DROP TABLE host_calls; PRAGMA user_version = 2; PRAGMA wal_checkpoint(TRUNCATE)");
    }
    const auto before = test::fileHash(path);
    {
        Store reader = Store::open(path, OpenMode::ReadOnly);
        EXPECT_TRUE(reader.migrated());
        EXPECT_EQ(reader.runSummaries().size(), 1U);
    }
    EXPECT_EQ(test::fileHash(path), before);
    {
        Store db = Store::open(path, OpenMode::ReadWrite);
        EXPECT_EQ(db.fileVersion(), 2);
        EXPECT_TRUE(db.migrated());
        const auto me = store::ClaimOwner::thisProcess();
        EXPECT_EQ(db.claimJob("job", me).state, store::JobClaim::State::Claimed);
    }
    Connection raw(path, Connection::Access::ReadOnly);
    EXPECT_EQ(raw.queryInt("PRAGMA user_version"), store::kSchemaVersion);
    EXPECT_EQ(raw.queryInt("SELECT count(*) FROM job_claims"), 1);
}

// Two writers open an old file at once: the second finds it migrated and does not migrate again.
TEST(StoreMigration, ASecondWriterFindsTheFileMigrated)
{
    test::TempDir dir;
    const auto path = dir.file("v1.db");
    writeVersion1File(path);
    Connection late(path, Connection::Access::ReadWrite);
    Store::open(path, OpenMode::ReadWrite);
    store::migrate(late, 1); // would fail re-adding columns if it started from 1
    EXPECT_EQ(late.queryInt("PRAGMA user_version"), store::kSchemaVersion);
}

TEST(StoreMigration, NewerVersionIsRefusedUntouched)
{
    test::TempDir dir;
    const auto path = dir.file("future.db");
    {
        Store::open(path, OpenMode::ReadWrite);
        Connection c(path, Connection::Access::ReadWrite);
        c.exec("PRAGMA user_version = 99");
    }
    const auto before = test::fileHash(path);
    for (auto mode : { OpenMode::ReadOnly, OpenMode::ReadWrite }) {
        try {
            Store::open(path, mode);
            FAIL() << "opened a version-99 file";
        } catch (const store::StoreError& e) {
            EXPECT_NE(std::string(e.what()).find("newer opsched (schema version 99"), std::string::npos) << e.what();
        }
    }
    EXPECT_EQ(test::fileHash(path), before);
}

} // namespace
} // namespace opsched
