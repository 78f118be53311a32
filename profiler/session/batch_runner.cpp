#include "session/batch_runner.h"

#include "model/model_ref.h"
#include "schedule/ios_scheduler.h"
#include "session/cost_cache.h"
#include "session/sim_run.h"

#include <unistd.h>

#include <chrono>
#include <thread>

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
    , owner_(store::ClaimOwner::thisProcess())
{
}

BatchRunner::~BatchRunner() = default;

const BatchRunner::LoadedModel& BatchRunner::model(const std::string& ref, std::int64_t batch)
{
    if (!loaded_ || loaded_->ref != ref || loaded_->batch != batch) {
        // --shape is for the model files among the references; built-in networks have no free dimensions.
        Graph graph = loadModel(ref, batch, ref.starts_with(kZooPrefix) ? InputShapes {} : settings_.shapes);
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
    const auto written = store_.writeJobRun(record, owner_);
    event.runId = written.id;
    if (!written.written) {
        // Another batch took the job over (this one's claim had lapsed) and finished first.
        event.outcome = JobOutcome::Skipped;
        return;
    }
    event.run = &record;
    event.outcome = record.status == store::RunStatus::Ok ? JobOutcome::Done : JobOutcome::Failed;
    event.error = record.error;
    result.runs.push_back(event.runId);
}

BatchRunner::Attempt BatchRunner::attemptJob(std::size_t index, const std::vector<ProfileJob>& jobs,
    const std::string& key, JobEvent& event, std::optional<store::RunId> failedAfter, BatchResult& result,
    std::unordered_set<std::string>& complete)
{
    const auto tJob = std::chrono::steady_clock::now();
    const ProfileJob& job = jobs[index];
    const store::JobClaim claim = store_.claimJob(key, owner_, failedAfter);
    event.kind = JobEvent::Kind::Finished;
    switch (claim.state) {
    case store::JobClaim::State::HeldElsewhere:
        event.otherBatch = claim.holder;
        return Attempt::Held;
    case store::JobClaim::State::Complete:
        complete.insert(key);
        event.outcome = JobOutcome::Skipped;
        event.runId = claim.runId;
        ++result.skipped;
        if (listener_)
            listener_(event);
        return Attempt::Finished;
    case store::JobClaim::State::FailedElsewhere:
        event.outcome = JobOutcome::Failed;
        event.runId = claim.runId;
        event.error = "failed in the other batch (" + event.otherBatch + "): " + claim.error;
        ++result.failed;
        if (listener_)
            listener_(event);
        return Attempt::Finished;
    case store::JobClaim::State::Claimed:
        break;
    }
    if (!keeper_)
        keeper_ = std::make_unique<store::ClaimKeeper>(store_.path(), owner_);
    event.kind = JobEvent::Kind::Started;
    if (listener_)
        listener_(event);

    store::RunRecord record;
    event.kind = JobEvent::Kind::Finished;
    try {
        runJob(job, event, record, result);
    } catch (const BatchCancelled&) {
        return Attempt::Cancelled;
    } catch (const store::StoreError&) {
        throw; // the database refused a write: later jobs would fail alike
    } catch (const std::exception& e) {
        // The model did not load: nothing was written; the claim goes, so another batch may try.
        event.outcome = JobOutcome::Failed;
        event.error = e.what();
        store_.releaseClaims(owner_);
    }
    event.seconds = secondsSince(tJob);
    if (event.outcome == JobOutcome::Failed) {
        ++result.failed;
    } else {
        if (event.outcome == JobOutcome::Done)
            ++result.done;
        else
            ++result.skipped;
        complete.insert(key); // a job listed twice runs once
    }
    if (listener_)
        listener_(event);
    return Attempt::Finished;
}

BatchResult BatchRunner::run(const std::vector<ProfileJob>& jobs)
{
    const auto t0 = std::chrono::steady_clock::now();
    BatchResult result;
    result.total = jobs.size();
    auto complete = store_.completedJobKeys();
    // However the batch ends (done, cancelled, a database error), its claims go with it.
    struct Cleanup {
        BatchRunner& runner;
        ~Cleanup()
        {
            runner.keeper_.reset();
            try {
                runner.store_.releaseClaims(runner.owner_);
            } catch (const std::exception&) {
                // A full or busy database: the claims stay, and lapse with this process.
            }
        }
    } cleanup { *this };

    std::vector<Waiting> waiting;
    runEachJob(jobs, result, complete, waiting);
    awaitHeldJobs(jobs, result, complete, waiting);
    result.seconds = secondsSince(t0);
    return result;
}

// The job's key, or nullopt when it is reported already: its model did not load (failed), or the
// database holds its run (skipped).
std::optional<std::string> BatchRunner::keyToRun(
    const ProfileJob& job, JobEvent& event, BatchResult& result, const std::unordered_set<std::string>& complete)
{
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
        return std::nullopt;
    }
    const std::string key = jobKey(sha, job, settings_, device_.key);
    if (complete.contains(key)) {
        event.kind = JobEvent::Kind::Finished;
        event.outcome = JobOutcome::Skipped;
        ++result.skipped;
        if (listener_)
            listener_(event);
        return std::nullopt;
    }
    return key;
}

// Each job in turn: run, skipped or reported; those another batch holds go on `waiting`.
void BatchRunner::runEachJob(const std::vector<ProfileJob>& jobs, BatchResult& result,
    std::unordered_set<std::string>& complete, std::vector<Waiting>& waiting)
{
    for (std::size_t i = 0; i < jobs.size() && !result.interrupted; ++i) {
        if (cancelled()) {
            result.interrupted = true;
            break;
        }
        const ProfileJob& job = jobs[i];
        JobEvent event;
        event.index = i;
        event.total = jobs.size();
        event.job = &job;

        const std::optional<std::string> found = keyToRun(job, event, result, complete);
        if (!found)
            continue;
        const std::string& key = *found;
        switch (attemptJob(i, jobs, key, event, std::nullopt, result, complete)) {
        case Attempt::Cancelled:
            result.interrupted = true;
            break;
        case Attempt::Held:
            waiting.push_back({ i, key, event.modelName, event.otherBatch, store_.lastRunId() });
            event.kind = JobEvent::Kind::Waiting;
            if (listener_)
                listener_(event);
            break;
        case Attempt::Finished:
            break;
        }
    }
}

void BatchRunner::awaitHeldJobs(const std::vector<ProfileJob>& jobs, BatchResult& result,
    std::unordered_set<std::string>& complete, std::vector<Waiting>& waiting)
{
    // The jobs other batches were running: as each ends there, skip it (done), report it (failed
    // there) or run it (given up, or its batch gone).
    while (!result.interrupted && !waiting.empty()) {
        for (auto it = waiting.begin(); it != waiting.end() && !result.interrupted;) {
            if (cancelled()) {
                result.interrupted = true;
                break;
            }
            JobEvent event;
            event.index = it->index;
            event.total = jobs.size();
            event.job = &jobs[it->index];
            event.modelName = it->modelName;
            event.otherBatch = it->otherBatch;
            switch (attemptJob(it->index, jobs, it->key, event, it->after, result, complete)) {
            case Attempt::Cancelled:
                result.interrupted = true;
                break;
            case Attempt::Held:
                ++it;
                break;
            case Attempt::Finished:
                it = waiting.erase(it);
                break;
            }
        }
        for (int tick = 0; tick < 10 && !waiting.empty() && !result.interrupted && !cancelled(); ++tick)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

} // namespace opsched::profiler
