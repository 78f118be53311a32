#include "engine/run/profile_batch.h"

#include "engine/catalog.h"
#include "engine/device_ref.h"
#include "engine/model.h"
#include "engine/scheduling.h"

#include "export/export.h"
#include "session/cuda_backend.h"
#include "store/store.h"
#include "util/error.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <memory>
#include <optional>

namespace opsched::engine {
namespace {

// Every name a scheduler's, or an Error naming them.
void checkSchedulers(const std::vector<std::string>& schedulers)
{
    const auto known = schedulerNames();
    for (const auto& s : schedulers) {
        if (std::find(known.begin(), known.end(), s) == known.end()) {
            std::string all;
            for (const auto& k : known)
                all += (all.empty() ? "" : ", ") + k;
            throw Error("unknown scheduler '" + s + "' (schedulers: " + all + ")");
        }
    }
}

profiler::ProfileSettings profileSettings(const ProfileRequest& r)
{
    profiler::ProfileSettings settings;
    settings.deviceRef = r.device;
    settings.r = r.pruning.r;
    settings.s = r.pruning.s;
    settings.lowering = schedulerParams(r.pruning).lowering;
    settings.cudaGraph = r.cudaGraph;
    settings.warps = r.warps;
    settings.repeats = r.repeat;
    settings.costCache = r.costCache;
    settings.shapes = r.shapes;
    return settings;
}

// The results database (upgraded when older), and the export folder when asked for.
store::Store openProfileDatabase(const ProfileRequest& r, const ProfileHooks& hooks)
{
    store::Store db = store::Store::open(r.database, store::OpenMode::ReadWrite);
    if (db.migrated() && hooks.note)
        hooks.note("upgraded '" + r.database + "' from schema version " + std::to_string(db.fileVersion()) + " to "
            + std::to_string(store::kSchemaVersion));
    if (!r.exportDir.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(r.exportDir, ec);
        if (ec)
            throw Error("--export-dir " + r.exportDir + ": " + ec.message());
    }
    return db;
}

// Where the jobs run: measured on GPU `gpu` (CUPTI) or simulated.
struct ProfileBackend {
    std::unique_ptr<StageCostModel> measuredCost; // the measured backend's, outliving it
    std::unique_ptr<profiler::RunBackend> backend;
};

ProfileBackend makeProfileBackend(const ProfileRequest& r, std::optional<int> gpu, const SimDevice* simDevice)
{
    ProfileBackend out;
    if (gpu) {
        out.measuredCost = makeCostModel(r.device, true, CostCacheOptions {});
        out.backend = std::make_unique<profiler::CudaBackend>(profiler::CudaBackendOptions { *gpu }, *out.measuredCost);
    } else {
        out.backend = std::make_unique<profiler::SimulatedBackend>(*simDevice, r.cudaGraph);
    }
    return out;
}

} // namespace

std::vector<std::string> splitList(const std::string& list)
{
    std::vector<std::string> items;
    std::size_t start = 0;
    while (start <= list.size()) {
        const auto comma = std::min(list.find(',', start), list.size());
        if (comma > start)
            items.push_back(list.substr(start, comma - start));
        start = comma + 1;
    }
    return items;
}

std::vector<std::int64_t> batchList(const std::string& list)
{
    std::vector<std::int64_t> batches;
    for (const auto& s : splitList(list)) {
        std::int64_t v = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || end != s.data() + s.size() || v < kBatch.min || v > kBatch.max)
            throw Error("'" + s + "' is not a batch size from " + std::to_string(kBatch.min) + " to "
                + std::to_string(kBatch.max));
        batches.push_back(v);
    }
    if (batches.empty())
        throw Error("no batch size given");
    return batches;
}

profiler::BatchResult profileBatch(const ProfileRequest& r, const ProfileHooks& hooks)
{
    const std::vector<std::string> schedulers = r.schedulers.empty() ? schedulerNames() : splitList(r.schedulers);
    const std::vector<std::int64_t> batches = batchList(r.batches);
    checkSchedulers(schedulers);
    // cuda:N: the measured backend (refuses clearly without a GPU or CUPTI); otherwise simulated.
    const std::optional<int> gpu = cudaDeviceIndex(r.device);
    if (gpu) {
        const std::string why = profiler::cudaProfilingUnavailable(*gpu);
        if (!why.empty())
            throw Error(messages::cudaUnavailable(r.device, why, "profile on a simulated GPU instead"));
    }
    const SimDevice* simDevice = gpu ? nullptr : &simDeviceFor(r.device);
    // Bad model references fail now, not half way through the batch.
    for (const auto& m : r.models)
        (void)openModel({ m, batches.front(), m.starts_with(kZooPrefix) ? InputShapes {} : r.shapes });

    store::Store db = openProfileDatabase(r, hooks);
    ProfileBackend backendParts = makeProfileBackend(r, gpu, simDevice);
    profiler::BatchRunner runner(db, *backendParts.backend, profileSettings(r));
    runner.setCancelFlag(hooks.cancel);
    const std::string deviceKey = backendParts.backend->device().key;
    runner.setListener([&](const profiler::JobEvent& e) {
        if (hooks.onJob)
            hooks.onJob(e);
        if (r.exportDir.empty() || e.kind != profiler::JobEvent::Kind::Finished
            || e.outcome != profiler::JobOutcome::Done)
            return;
        const std::string base = r.exportDir + "/" + profiler::jobLabel(e.modelName, *e.job, deviceKey);
        store::RunRecord run = *e.run;
        run.id = e.runId;
        for (auto f : { profiler::ExportFormat::Schedule, profiler::ExportFormat::ChromeTrace })
            profiler::writeTextFile(base + profiler::fileSuffix(f), profiler::exportRun(run, f));
    });
    const auto jobs = profiler::expandJobs(r.models, schedulers, batches);
    if (hooks.beforeRun)
        hooks.beforeRun();
    try {
        return runner.run(jobs);
    } catch (const store::StoreError& e) {
        // Every run is written in one transaction: what is there is whole.
        const bool full = e.reason() == store::StoreError::Reason::Full;
        throw Error(std::string(e.what()) + "; every job finished before is in the database, whole: "
            + (full ? "once there is room, run" : "run") + " the same command to resume");
    }
}

} // namespace opsched::engine
