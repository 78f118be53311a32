// Reading runs back: summaries for `compare`, whole runs for export and merge.
#include "store/store.h"

namespace opsched::store {
namespace {

RunStatus statusFrom(const std::string& s)
{
    return s == "ok" ? RunStatus::Ok : RunStatus::Failed;
}

nlohmann::ordered_json parseJson(const std::string& text, const std::string& what)
{
    try {
        return nlohmann::ordered_json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw StoreError("stored " + what + " is not valid JSON: " + e.what());
    }
}

std::optional<int> optInt(const Statement& st, int col)
{
    if (st.isNull(col))
        return std::nullopt;
    return static_cast<int>(st.getInt(col));
}

} // namespace

std::vector<RunSummary> Store::runSummaries()
{
    auto st = db_.prepare(R"sql(
SELECT r.id, r.uid, r.job_key, m.name, m.ref, m.sha256, s.scheduler, d.key, d.name, r.simulated, r.batch, r.status,
       r.error, r.started_at, r.finished_at, l.repeats, l.median_ns, l.p10_ns, l.p90_ns, l.mean_ns, l.min_ns,
       l.max_ns, r.average_active_warps,
       (SELECT count(*) FROM kernels k WHERE k.run_id = r.id),
       (SELECT count(*) FROM warp_samples w WHERE w.run_id = r.id)
FROM runs r JOIN models m ON m.id = r.model_id JOIN devices d ON d.id = r.device_id
LEFT JOIN schedules s ON s.id = r.schedule_id LEFT JOIN latencies l ON l.run_id = r.id
ORDER BY r.id)sql");
    std::vector<RunSummary> runs;
    while (st.step()) {
        RunSummary r;
        r.id = RunId(st.getInt(0));
        r.uid = st.getText(1);
        r.jobKey = st.getText(2);
        r.modelName = st.getText(3);
        r.modelRef = st.getText(4);
        r.modelSha256 = st.getText(5);
        r.scheduler = st.getText(6);
        r.deviceKey = st.getText(7);
        r.deviceName = st.getText(8);
        r.simulated = st.getInt(9) != 0;
        r.batch = st.getInt(10);
        r.status = statusFrom(st.getText(11));
        r.error = st.getText(12);
        r.startedAt = st.getText(13);
        r.finishedAt = st.getText(14);
        if (!st.isNull(15)) {
            LatencyStats l;
            l.repeats = static_cast<std::size_t>(st.getInt(15));
            l.medianNs = st.getDouble(16);
            // Files migrated from v1 may lack the percentiles of runs without samples.
            l.p10Ns = st.getOptionalDouble(17).value_or(l.medianNs);
            l.p90Ns = st.getOptionalDouble(18).value_or(l.medianNs);
            l.meanNs = st.getOptionalDouble(19).value_or(l.medianNs);
            l.minNs = st.getOptionalDouble(20).value_or(l.medianNs);
            l.maxNs = st.getOptionalDouble(21).value_or(l.medianNs);
            r.latency = l;
        }
        r.averageActiveWarps = st.getOptionalDouble(22);
        r.kernelCount = static_cast<std::size_t>(st.getInt(23));
        r.warpSampleCount = static_cast<std::size_t>(st.getInt(24));
        runs.push_back(std::move(r));
    }
    return runs;
}

bool Store::hasRun(RunId id)
{
    auto st = db_.prepare("SELECT 1 FROM runs WHERE id = ?1");
    st.bind(1, id.value());
    return st.step();
}

namespace {

// loadRun's first query, one row: the run's own columns (0-13), its device (14-26), model (27-31)
// and schedule (32-40, null without one).
void readRunColumns(const Statement& st, RunRecord& r)
{
    r.uid = st.getText(0);
    r.jobKey = st.getText(1);
    r.batch = st.getInt(2);
    r.startedAt = st.getText(3);
    r.finishedAt = st.getText(4);
    r.status = statusFrom(st.getText(5));
    r.error = st.getText(6);
    r.simulated = st.getInt(7) != 0;
    r.cudaGraph = st.getInt(8) != 0;
    r.warpsCollected = st.getInt(9) != 0;
    r.averageActiveWarps = st.getOptionalDouble(10);
    r.host = st.getText(11);
    r.opschedVersion = st.getText(12);
    r.notes = st.getText(13);
}

void readDeviceColumns(const Statement& st, DeviceRecord& d)
{
    d.key = st.getText(14);
    d.name = st.getText(15);
    d.simulated = st.getInt(16) != 0;
    d.computeMajor = optInt(st, 17);
    d.computeMinor = optInt(st, 18);
    d.smCount = optInt(st, 19);
    d.maxWarpsPerSm = optInt(st, 20);
    d.clockRate = st.getOptionalInt(21);
    d.memoryBandwidth = st.getOptionalDouble(22);
    d.l2CacheSize = st.getOptionalInt(23);
    d.totalMemory = st.getOptionalInt(24);
    d.driverVersion = optInt(st, 25);
    d.runtimeVersion = optInt(st, 26);
}

void readModelAndSchedule(const Statement& st, RunRecord& r)
{
    ModelRecord& m = r.model;
    m.name = st.getText(27);
    m.ref = st.getText(28);
    m.sha256 = st.getText(29);
    m.opCount = static_cast<std::size_t>(st.getInt(30));
    m.ops = parseJson(st.getText(31), "op list");
    if (!st.isNull(32)) {
        ScheduleRecord s;
        s.scheduler = st.getText(33);
        s.format = st.getText(34);
        s.document = parseJson(st.getText(35), "schedule");
        s.plan = parseJson(st.getText(36), "plan");
        s.params = parseJson(st.getText(37), "scheduler parameters");
        s.searchSeconds = st.getDouble(38);
        s.states = st.getInt(39);
        s.transitions = st.getInt(40);
        r.schedule = std::move(s);
    }
}

// One row of loadRun's kernel query.
KernelRecord kernelFrom(const Statement& k)
{
    KernelRecord kr;
    kr.start = k.getInt(0);
    kr.end = k.getInt(1);
    kr.deviceId = k.getOptionalInt(2);
    kr.contextId = k.getOptionalInt(3);
    kr.streamId = k.getInt(4);
    kr.correlationId = k.getOptionalInt(5);
    kr.graphNodeId = k.getOptionalInt(6);
    kr.gridId = k.getOptionalInt(7);
    kr.opId = k.getOptionalInt(8);
    kr.launchId = k.getOptionalInt(9);
    kr.part = k.getInt(10);
    kr.gridX = k.getOptionalInt(11);
    kr.gridY = k.getOptionalInt(12);
    kr.gridZ = k.getOptionalInt(13);
    kr.blockX = k.getOptionalInt(14);
    kr.blockY = k.getOptionalInt(15);
    kr.blockZ = k.getOptionalInt(16);
    kr.registersPerThread = k.getOptionalInt(17);
    kr.staticSharedMemory = k.getOptionalInt(18);
    kr.dynamicSharedMemory = k.getOptionalInt(19);
    kr.localMemoryPerThread = k.getOptionalInt(20);
    kr.shortName = k.getText(21);
    kr.demangledName = k.getText(22);
    kr.warps = k.getOptionalDouble(23);
    return kr;
}

} // namespace

RunRecord Store::loadRun(RunId id)
{
    auto st = db_.prepare(R"sql(
SELECT r.uid, r.job_key, r.batch, r.started_at, r.finished_at, r.status, r.error, r.simulated, r.cuda_graph, r.warps,
       r.average_active_warps, r.host, r.opsched_version, r.notes,
       d.key, d.name, d.simulated, d.computeMajor, d.computeMinor, d.smCount, d.maxWarpsPerSm, d.clockRate,
       d.memoryBandwidth, d.l2CacheSize, d.totalMemory, d.driverVersion, d.runtimeVersion,
       m.name, m.ref, m.sha256, m.op_count, m.ops_json,
       s.id, s.scheduler, s.format, s.document, s.plan, s.params, s.search_seconds, s.states, s.transitions
FROM runs r JOIN models m ON m.id = r.model_id JOIN devices d ON d.id = r.device_id
LEFT JOIN schedules s ON s.id = r.schedule_id WHERE r.id = ?1)sql");
    st.bind(1, id.value());
    if (!st.step()) {
        const auto last = db_.queryInt("SELECT max(id) FROM runs");
        throw StoreError("database '" + path_ + "' has no run " + std::to_string(id.value())
            + (last ? " (run ids go up to " + std::to_string(*last) + ")" : " (it holds no runs)"));
    }
    RunRecord r;
    r.id = id;
    readRunColumns(st, r);
    readDeviceColumns(st, r.device);
    readModelAndSchedule(st, r);

    auto lat = db_.prepare("SELECT latency_ns FROM latency_samples WHERE run_id = ?1 ORDER BY repeat");
    lat.bind(1, id.value());
    while (lat.step())
        r.latenciesNs.push_back(lat.getDouble(0));

    auto stages = db_.prepare("SELECT stage, start_ns, end_ns FROM stage_latencies WHERE run_id = ?1 ORDER BY stage");
    stages.bind(1, id.value());
    while (stages.step())
        r.stages.push_back({ static_cast<std::uint32_t>(stages.getInt(0)), stages.getInt(1), stages.getInt(2) });

    auto k = db_.prepare(R"sql(
SELECT k.start, k.end, k.deviceId, k.contextId, k.streamId, k.correlationId, k.graphNodeId, k.gridId, k.opId,
       k.launchId, k.part, k.gridX, k.gridY, k.gridZ, k.blockX, k.blockY, k.blockZ, k.registersPerThread,
       k.staticSharedMemory, k.dynamicSharedMemory, k.localMemoryPerThread, sn.value, dn.value, k.warps
FROM kernels k LEFT JOIN StringIds sn ON sn.id = k.shortName LEFT JOIN StringIds dn ON dn.id = k.demangledName
WHERE k.run_id = ?1 ORDER BY k.start, k.streamId, k.rowid)sql");
    k.bind(1, id.value());
    while (k.step())
        r.kernels.push_back(kernelFrom(k));

    auto w = db_.prepare("SELECT time_ns, duration_ns, active_warps, sm_active_pct FROM warp_samples WHERE run_id = ?1 "
                         "ORDER BY time_ns");
    w.bind(1, id.value());
    while (w.step())
        r.warps.push_back({ w.getInt(0), w.getInt(1), w.getDouble(2), w.getOptionalDouble(3) });

    auto h
        = db_.prepare("SELECT start_ns, end_ns, name, launch_id FROM host_calls WHERE run_id = ?1 ORDER BY start_ns");
    h.bind(1, id.value());
    while (h.step())
        r.hostCalls.push_back({ h.getInt(0), h.getInt(1), h.getText(2), h.getOptionalInt(3) });
    return r;
}

} // namespace opsched::store
