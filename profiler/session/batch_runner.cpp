#include "session/batch_runner.h"

#include "model/model_ref.h"
#include "schedule/ios_scheduler.h"
#include "session/cost_cache.h"
#include "session/sim_run.h"

#include <unistd.h>

#include <chrono>

#ifndef OPSCHED_VERSION
#define OPSCHED_VERSION "unknown"
#endif

namespace opsched::profiler {
namespace {

std::string hostName()
{
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0)
        return {};
    return buf;
}

double secondsSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

SimulatedBackend::SimulatedBackend(const SimDevice& device, bool cudaGraph)
    : device_(device)
    , cost_(device, SimOptions { cudaGraph })
{
}

store::DeviceRecord SimulatedBackend::device() const
{
    return simDeviceRecord(device_);
}

void SimulatedBackend::run(
    store::RunRecord& run, const Graph& graph, const SchedulerOutput& out, const ProfileSettings& settings)
{
    SimRunOptions options;
    options.sim.cudaGraph = settings.cudaGraph;
    options.repeats = settings.repeats;
    options.warps = settings.warps;
    fillSimulatedRun(run, graph, out, device_, options);
}

struct BatchRunner::LoadedModel {
    std::string ref;
    std::int64_t batch = 0;
    Graph graph;
    store::ModelRecord record;
};

BatchRunner::BatchRunner(store::Store& store, RunBackend& backend, ProfileSettings settings)
    : store_(store)
    , backend_(backend)
    , settings_(std::move(settings))
    , device_(backend.device())
{
}

BatchRunner::~BatchRunner() = default;

const BatchRunner::LoadedModel& BatchRunner::model(const std::string& ref, std::int64_t batch)
{
    if (!loaded_ || loaded_->ref != ref || loaded_->batch != batch) {
        Graph graph = loadModel(ref, batch);
        store::ModelRecord record = modelRecord(graph, ref);
        // Made while the previous graph is alive, so the new one has another address: cost models
        // cache per-graph tables keyed by the graph's address (SimulatedStageCost, CachedStageCost).
        auto next = std::make_unique<LoadedModel>(LoadedModel { ref, batch, std::move(graph), std::move(record) });
        loaded_ = std::move(next);
        bool known = false;
        for (const auto& k : known_)
            known = known || k.ref == ref;
        if (!known)
            known_.push_back({ ref, loaded_->record.sha256, loaded_->graph.name() });
    }
    return *loaded_;
}

StageCostModel& BatchRunner::costFor(std::int64_t batch)
{
    if (!settings_.costCache)
        return backend_.costModel();
    for (auto& [b, cost] : cached_)
        if (b == batch)
            return *cost;
    auto cost = std::make_unique<CachedStageCost>(backend_.costModel(), store_.loadCostCache(device_.key, batch));
    cached_.emplace_back(batch, std::move(cost));
    return *cached_.back().second;
}

void BatchRunner::runJob(const ProfileJob& job, JobEvent& event, store::RunRecord& record, BatchResult& result)
{
    const LoadedModel& m = model(job.modelRef, job.batch);
    event.modelName = m.graph.name();
    record.jobKey = jobKey(m.record.sha256, job, settings_, device_.key);
    record.device = device_;
    record.model = m.record;
    record.batch = job.batch;
    record.startedAt = store::utcNow();
    record.host = hostName();
    record.opschedVersion = OPSCHED_VERSION;
    record.cudaGraph = settings_.cudaGraph;
    record.simulated = device_.simulated;

    SchedulerParams params = settings_.schedulerParams();
    params.progress = [this](const IosProgress&) { return !cancelled(); };
    StageCostModel& cost = costFor(job.batch);
    try {
        const SchedulerOutput out = runScheduler(job.scheduler, m.graph, cost, params);
        if (auto problems = validate(m.graph, out.plan); !problems.empty())
            throw Error(job.scheduler + " produced an invalid plan: " + problems.front());
        if (cancelled())
            throw BatchCancelled();
        backend_.run(record, m.graph, out, settings_);
        const double median = store::latencyStats(record.latenciesNs).medianNs;
        record.schedule = scheduleRecord(m.graph, out, device_.key, settings_.cudaGraph, median * 1e-9);
        record.status = store::RunStatus::Ok;
    } catch (const Cancelled&) {
        throw BatchCancelled();
    } catch (const BatchCancelled&) {
        throw;
    } catch (const std::exception& e) {
        record.status = store::RunStatus::Failed;
        record.error = e.what();
    }
    if (auto* cached = dynamic_cast<CachedStageCost*>(&cost))
        store_.addCostCache(device_.key, job.batch, cached->takeNew());
    record.finishedAt = store::utcNow();
    event.runId = store_.writeRun(record);
    event.run = &record;
    event.outcome = record.status == store::RunStatus::Ok ? JobOutcome::Done : JobOutcome::Failed;
    event.error = record.error;
    result.runs.push_back(event.runId);
}

BatchResult BatchRunner::run(const std::vector<ProfileJob>& jobs)
{
    const auto t0 = std::chrono::steady_clock::now();
    BatchResult result;
    result.total = jobs.size();
    auto complete = store_.completedJobKeys();
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        if (cancelled()) {
            result.interrupted = true;
            break;
        }
        const ProfileJob& job = jobs[i];
        const auto tJob = std::chrono::steady_clock::now();
        JobEvent event;
        event.index = i;
        event.total = jobs.size();
        event.job = &job;

        // Skipping needs only the model's fingerprint, which does not depend on the batch.
        std::string sha;
        for (const auto& k : known_)
            if (k.ref == job.modelRef) {
                sha = k.sha256;
                event.modelName = k.name;
            }
        try {
            if (sha.empty()) {
                sha = model(job.modelRef, job.batch).record.sha256;
                event.modelName = loaded_->graph.name();
            }
        } catch (const std::exception& e) {
            event.kind = JobEvent::Kind::Finished;
            event.outcome = JobOutcome::Failed;
            event.error = e.what();
            ++result.failed;
            if (listener_)
                listener_(event);
            continue;
        }
        if (complete.contains(jobKey(sha, job, settings_, device_.key))) {
            event.kind = JobEvent::Kind::Finished;
            event.outcome = JobOutcome::Skipped;
            ++result.skipped;
            if (listener_)
                listener_(event);
            continue;
        }
        if (listener_)
            listener_(event);

        store::RunRecord record;
        event.kind = JobEvent::Kind::Finished;
        try {
            runJob(job, event, record, result);
        } catch (const BatchCancelled&) {
            result.interrupted = true;
            break;
        } catch (const store::StoreError&) {
            throw; // the database refused a write: later jobs would fail alike
        } catch (const std::exception& e) {
            // The model did not load, or the store refused the run: nothing was written.
            event.outcome = JobOutcome::Failed;
            event.error = e.what();
        }
        event.seconds = secondsSince(tJob);
        if (event.outcome == JobOutcome::Done) {
            ++result.done;
            complete.insert(record.jobKey); // a job listed twice runs once
        } else {
            ++result.failed;
        }
        if (listener_)
            listener_(event);
    }
    result.seconds = secondsSince(t0);
    return result;
}

} // namespace opsched::profiler
