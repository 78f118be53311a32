#include "store/store.h"

#include "store/random_id.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <random>
#include <unordered_map>

namespace opsched::store {
namespace {

// The cost cache's upsert of one row: `values` the new row's, `update` how it changes the row
// already there for that device, batch and signature.
std::string costCacheUpsert(const char* values, const char* update)
{
    return std::string("INSERT INTO cost_cache(device_key, batch, signature, latency_s, measurements, updated_at)\n")
        + "VALUES " + values + "\nON CONFLICT(device_key, batch, signature) DO UPDATE SET" + update;
}

// Interns kernel names into StringIds within the current transaction.
class StringInterner {
public:
    explicit StringInterner(Connection& db)
        : insert_(db.prepare("INSERT OR IGNORE INTO StringIds(value) VALUES (?1)"))
        , select_(db.prepare("SELECT id FROM StringIds WHERE value = ?1"))
    {
    }
    StringId operator()(const std::string& value)
    {
        if (auto it = ids_.find(value); it != ids_.end())
            return it->second;
        insert_.bind(1, value).run();
        select_.bind(1, value);
        if (!select_.step())
            throw StoreError("internal: string '" + value + "' was not interned");
        const StringId id(select_.getInt(0));
        select_.reset();
        ids_.emplace(value, id);
        return id;
    }

private:
    Statement insert_;
    Statement select_;
    std::unordered_map<std::string, StringId> ids_;
};

} // namespace

const char* toString(RunStatus s)
{
    return s == RunStatus::Ok ? "ok" : "failed";
}

std::string utcNow()
{
    const auto now = std::chrono::system_clock::now();
    const std::time_t t = std::chrono::system_clock::to_time_t(now);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm tm {};
    gmtime_r(&t, &tm);
    char buf[80];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
        tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
    return buf;
}

Store Store::open(const std::string& path, OpenMode mode)
{
    OpenedDatabase opened = openDatabase(path, mode);
    Store store(std::move(opened.connection), path, mode);
    store.created_ = opened.created;
    store.migrated_ = opened.migrated;
    store.fileVersion_ = opened.fileVersion;
    return store;
}

void Store::requireWritable(const char* what) const
{
    if (mode_ != OpenMode::ReadWrite)
        throw StoreError(std::string("internal: ") + what + " on a database opened read-only ('" + path_ + "')");
}

DeviceId Store::putDevice(const DeviceRecord& d)
{
    auto insert = db_.prepare(R"sql(
INSERT INTO devices(key, name, simulated, computeMajor, computeMinor, smCount, maxWarpsPerSm, clockRate,
                    memoryBandwidth, l2CacheSize, totalMemory, driverVersion, runtimeVersion)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) ON CONFLICT(key) DO NOTHING)sql");
    insert.bind(1, d.key).bind(2, d.name).bind(3, d.simulated ? 1 : 0).bind(4, d.computeMajor).bind(5, d.computeMinor);
    insert.bind(6, d.smCount).bind(7, d.maxWarpsPerSm).bind(8, d.clockRate).bind(9, d.memoryBandwidth);
    insert.bind(10, d.l2CacheSize).bind(11, d.totalMemory).bind(12, d.driverVersion).bind(13, d.runtimeVersion);
    insert.run();
    auto select = db_.prepare("SELECT id FROM devices WHERE key = ?1");
    select.bind(1, d.key);
    if (!select.step())
        db_.fail("device '" + d.key + "' missing after insert");
    return DeviceId(select.getInt(0));
}

ModelId Store::putModel(const ModelRecord& m)
{
    auto insert = db_.prepare(R"sql(
INSERT INTO models(name, ref, sha256, op_count, ops_json) VALUES (?1, ?2, ?3, ?4, ?5)
ON CONFLICT(sha256, ref) DO NOTHING)sql");
    insert.bind(1, m.name).bind(2, m.ref).bind(3, m.sha256).bind(4, static_cast<std::int64_t>(m.opCount));
    insert.bind(5, m.ops.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)).run();
    auto select = db_.prepare("SELECT id FROM models WHERE sha256 = ?1 AND ref = ?2");
    select.bind(1, m.sha256).bind(2, m.ref);
    if (!select.step())
        db_.fail("model '" + m.ref + "' missing after insert");
    return ModelId(select.getInt(0));
}

ScheduleId Store::putSchedule(ModelId model, const ScheduleRecord& s)
{
    auto insert = db_.prepare(R"sql(
INSERT INTO schedules(model_id, scheduler, format, document, plan, params, search_seconds, states, transitions)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9))sql");
    insert.bind(1, model.value())
        .bind(2, s.scheduler)
        .bind(3, s.format)
        .bind(4, s.document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    insert.bind(5, s.plan.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
        .bind(6, s.params.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
        .bind(7, s.searchSeconds)
        .bind(8, s.states);
    insert.bind(9, s.transitions).run();
    return ScheduleId(db_.lastInsertId());
}

RunId Store::writeRun(const RunRecord& run)
{
    requireWritable("writing a run");
    Transaction tx(db_);
    const RunId id = insertRun(run);
    tx.commit();
    return id;
}

bool Store::writeRunIfNew(const RunRecord& run)
{
    requireWritable("writing a run");
    Transaction tx(db_);
    if (!run.uid.empty() && hasRunUid(run.uid))
        return false;
    insertRun(run);
    tx.commit();
    return true;
}

RunId Store::insertRun(const RunRecord& run)
{
    const DeviceId device = putDevice(run.device);
    const ModelId model = putModel(run.model);
    std::optional<std::int64_t> schedule;
    if (run.schedule)
        schedule = putSchedule(model, *run.schedule).value();

    auto insertRun = db_.prepare(R"sql(
INSERT INTO runs(uid, job_key, model_id, schedule_id, device_id, batch, started_at, finished_at, status, error,
                 simulated, cuda_graph, warps, repeats, average_active_warps, host, opsched_version, notes)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18))sql");
    const std::string uid = run.uid.empty() ? randomHexId() : run.uid;
    insertRun.bind(1, uid).bind(2, run.jobKey).bind(3, model.value()).bind(4, schedule).bind(5, device.value());
    insertRun.bind(6, run.batch).bind(7, run.startedAt).bind(8, run.finishedAt).bind(9, toString(run.status));
    if (run.error.empty())
        insertRun.bindNull(10);
    else
        insertRun.bind(10, run.error);
    insertRun.bind(11, run.simulated ? 1 : 0).bind(12, run.cudaGraph ? 1 : 0).bind(13, run.warpsCollected ? 1 : 0);
    insertRun.bind(14, static_cast<std::int64_t>(run.latenciesNs.size())).bind(15, run.averageActiveWarps);
    insertRun.bind(16, run.host).bind(17, run.opschedVersion).bind(18, run.notes);
    insertRun.run();
    const RunId id(db_.lastInsertId());

    if (!run.latenciesNs.empty()) {
        auto sample = db_.prepare("INSERT INTO latency_samples(run_id, repeat, latency_ns) VALUES (?1, ?2, ?3)");
        for (std::size_t i = 0; i < run.latenciesNs.size(); ++i)
            sample.bind(1, id.value()).bind(2, static_cast<std::int64_t>(i)).bind(3, run.latenciesNs[i]).run();
        const LatencyStats s = latencyStats(run.latenciesNs);
        auto stats = db_.prepare(R"sql(
INSERT INTO latencies(run_id, repeats, median_ns, p10_ns, p90_ns, mean_ns, min_ns, max_ns)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8))sql");
        stats.bind(1, id.value()).bind(2, static_cast<std::int64_t>(s.repeats)).bind(3, s.medianNs).bind(4, s.p10Ns);
        stats.bind(5, s.p90Ns).bind(6, s.meanNs).bind(7, s.minNs).bind(8, s.maxNs).run();
    }
    if (!run.stages.empty()) {
        auto stage
            = db_.prepare("INSERT INTO stage_latencies(run_id, stage, start_ns, end_ns) VALUES (?1, ?2, ?3, ?4)");
        for (const auto& s : run.stages)
            stage.bind(1, id.value()).bind(2, s.stage).bind(3, s.startNs).bind(4, s.endNs).run();
    }
    if (!run.kernels.empty()) {
        StringInterner intern(db_);
        auto kernel = db_.prepare(R"sql(
INSERT INTO kernels(run_id, start, end, deviceId, contextId, streamId, correlationId, graphNodeId, gridId, opId,
                    launchId, part, gridX, gridY, gridZ, blockX, blockY, blockZ, registersPerThread,
                    staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, shortName, demangledName, warps)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23,
        ?24, ?25))sql");
        for (const auto& k : run.kernels) {
            kernel.bind(1, id.value()).bind(2, k.start).bind(3, k.end).bind(4, k.deviceId).bind(5, k.contextId);
            kernel.bind(6, k.streamId).bind(7, k.correlationId).bind(8, k.graphNodeId).bind(9, k.gridId);
            kernel.bind(10, k.opId).bind(11, k.launchId).bind(12, k.part).bind(13, k.gridX).bind(14, k.gridY);
            kernel.bind(15, k.gridZ).bind(16, k.blockX).bind(17, k.blockY).bind(18, k.blockZ);
            kernel.bind(19, k.registersPerThread).bind(20, k.staticSharedMemory).bind(21, k.dynamicSharedMemory);
            kernel.bind(22, k.localMemoryPerThread).bind(23, intern(k.shortName).value());
            kernel.bind(24, intern(k.demangledName).value()).bind(25, k.warps).run();
        }
    }
    if (!run.warps.empty()) {
        auto warp = db_.prepare(R"sql(
INSERT INTO warp_samples(run_id, time_ns, duration_ns, active_warps, sm_active_pct) VALUES (?1, ?2, ?3, ?4, ?5))sql");
        for (const auto& w : run.warps)
            warp.bind(1, id.value())
                .bind(2, w.timeNs)
                .bind(3, w.durationNs)
                .bind(4, w.activeWarps)
                .bind(5, w.smActivePct)
                .run();
    }
    if (!run.hostCalls.empty()) {
        auto call = db_.prepare(
            "INSERT INTO host_calls(run_id, start_ns, end_ns, name, launch_id) VALUES (?1, ?2, ?3, ?4, ?5)");
        for (const auto& c : run.hostCalls)
            call.bind(1, id.value()).bind(2, c.startNs).bind(3, c.endNs).bind(4, c.name).bind(5, c.launchId).run();
    }
    return id;
}

std::unordered_set<std::string> Store::completedJobKeys()
{
    std::unordered_set<std::string> keys;
    auto st = db_.prepare("SELECT DISTINCT job_key FROM runs WHERE status = 'ok'");
    while (st.step())
        keys.insert(st.getText(0));
    return keys;
}

bool Store::hasRunUid(const std::string& uid)
{
    auto st = db_.prepare("SELECT 1 FROM runs WHERE uid = ?1");
    st.bind(1, uid);
    return st.step();
}

RunId Store::lastRunId()
{
    return RunId(db_.queryInt("SELECT max(id) FROM runs").value_or(0));
}

std::unordered_map<std::string, double> Store::loadCostCache(const std::string& deviceKey, std::int64_t batch)
{
    std::unordered_map<std::string, double> cache;
    auto st = db_.prepare("SELECT signature, latency_s FROM cost_cache WHERE device_key = ?1 AND batch = ?2");
    st.bind(1, deviceKey).bind(2, batch);
    while (st.step())
        cache.emplace(st.getText(0), st.getDouble(1));
    return cache;
}

void Store::addCostCache(
    const std::string& deviceKey, std::int64_t batch, const std::vector<std::pair<std::string, double>>& entries)
{
    requireWritable("writing the cost cache");
    if (entries.empty())
        return;
    Transaction tx(db_);
    // A repeated measurement refines the running mean instead of replacing it.
    auto st = db_.prepare(costCacheUpsert("(?1, ?2, ?3, ?4, 1, ?5)", R"sql(
  latency_s = (latency_s * measurements + excluded.latency_s) / (measurements + 1),
  measurements = measurements + 1, updated_at = excluded.updated_at)sql"));
    const std::string now = utcNow();
    for (const auto& [signature, seconds] : entries)
        st.bind(1, deviceKey).bind(2, batch).bind(3, signature).bind(4, seconds).bind(5, now).run();
    tx.commit();
}

std::size_t Store::costCacheSize()
{
    return static_cast<std::size_t>(db_.queryInt("SELECT count(*) FROM cost_cache").value_or(0));
}

std::vector<Store::CostCacheEntry> Store::costCacheEntries()
{
    std::vector<CostCacheEntry> entries;
    auto st = db_.prepare(
        "SELECT device_key, batch, signature, latency_s, measurements, updated_at FROM cost_cache ORDER BY 1, 2, 3");
    while (st.step())
        entries.push_back({ st.getText(0), st.getInt(1), st.getText(2), st.getDouble(3), st.getInt(4), st.getText(5) });
    return entries;
}

void Store::mergeCostCache(const std::vector<CostCacheEntry>& entries)
{
    requireWritable("merging the cost cache");
    if (entries.empty())
        return;
    Transaction tx(db_);
    auto st = db_.prepare(costCacheUpsert("(?1, ?2, ?3, ?4, ?5, ?6)", R"sql(
  latency_s = excluded.latency_s, measurements = excluded.measurements, updated_at = excluded.updated_at
WHERE excluded.measurements > measurements)sql"));
    for (const auto& e : entries)
        st.bind(1, e.deviceKey)
            .bind(2, e.batch)
            .bind(3, e.signature)
            .bind(4, e.latencySeconds)
            .bind(5, e.measurements)
            .bind(6, e.updatedAt)
            .run();
    tx.commit();
}

} // namespace opsched::store
