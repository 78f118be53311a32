// Headless batch profiling: runs every job (model x scheduler x batch) on one backend and writes
// each run to the store in its own transaction. Resumable: jobs with a successful run in the store
// are skipped. Cancellable between jobs and inside the IOS search; a cancelled job writes nothing.
// Batches may share one database: each job is claimed before it runs (store/job_claims.h), a job
// another live batch holds is left for the end and then skipped once that batch completed it.
#pragma once

#include "session/job.h"
#include "store/store.h"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

namespace opsched::profiler {

// Where runs happen: the simulated GPU (SimulatedBackend) or the local GPU through the CUDA executor and
// the CUPTI collector (CudaBackend, session/cuda_backend.h).
class RunBackend {
public:
    virtual ~RunBackend() = default;
    virtual store::DeviceRecord device() const = 0;
    // The cost model the schedulers search with on this device.
    virtual StageCostModel& costModel() = 0;
    // Runs the plan and fills the measurements of `run` (latencies, stages, kernels, warps, notes).
    virtual void run(
        store::RunRecord& run, const Graph& graph, const SchedulerOutput& out, const ProfileSettings& settings)
        = 0;
};

class SimulatedBackend : public RunBackend {
public:
    SimulatedBackend(const SimDevice& device, bool cudaGraph);
    store::DeviceRecord device() const override;
    StageCostModel& costModel() override { return cost_; }
    void run(store::RunRecord& run, const Graph& graph, const SchedulerOutput& out,
        const ProfileSettings& settings) override;

private:
    const SimDevice& device_;
    SimulatedStageCost cost_;
};

enum class JobOutcome { Done, Skipped, Failed };

struct JobEvent {
    // Waiting: another batch is running the job; this one comes back to it after its other jobs.
    enum class Kind { Started, Waiting, Finished } kind = Kind::Started;
    std::size_t index = 0; // 0-based position in the batch
    std::size_t total = 0;
    const ProfileJob* job = nullptr;
    std::string modelName; // empty when the model did not load
    JobOutcome outcome = JobOutcome::Done;
    std::string error;
    double seconds = 0; // wall time of the job
    const store::RunRecord* run = nullptr; // the stored run (Done, and Failed after scheduling)
    store::RunId runId;
    // Waiting, and Skipped or Failed after waiting: the other batch ("pid 1234 on node7").
    std::string otherBatch;
};

struct BatchResult {
    std::size_t total = 0, done = 0, skipped = 0, failed = 0;
    bool interrupted = false;
    double seconds = 0;
    std::vector<store::RunId> runs; // written now, in job order
    bool allSucceeded() const { return !interrupted && failed == 0; }
};

class BatchRunner {
public:
    BatchRunner(store::Store& store, RunBackend& backend, ProfileSettings settings);
    ~BatchRunner();
    BatchRunner(const BatchRunner&) = delete;
    BatchRunner& operator=(const BatchRunner&) = delete;

    // When set and true, the batch stops before the next job (or inside the IOS search).
    void setCancelFlag(const std::atomic<bool>* cancel) { cancel_ = cancel; }
    void setListener(std::function<void(const JobEvent&)> listener) { listener_ = std::move(listener); }

    BatchResult run(const std::vector<ProfileJob>& jobs);

    // This runner's identity in job claims.
    const store::ClaimOwner& claimOwner() const { return owner_; }

private:
    struct LoadedModel;
    enum class Attempt { Finished, Held, Cancelled };
    // Claims job `index` and runs it, or reports it complete (or failed) elsewhere; Held when
    // another batch holds it (its holder in `event.otherBatch`).
    Attempt attemptJob(std::size_t index, const std::vector<ProfileJob>& jobs, const std::string& key, JobEvent& event,
        std::optional<store::RunId> failedAfter, BatchResult& result, std::unordered_set<std::string>& complete);
    bool cancelled() const { return cancel_ && cancel_->load(); }
    // A job another batch held when this one reached it.
    struct Waiting {
        std::size_t index;
        std::string key;
        std::string modelName;
        std::string otherBatch;
        std::optional<store::RunId> after; // the newest run when it started waiting
    };
    std::optional<std::string> keyToRun(
        const ProfileJob& job, JobEvent& event, BatchResult& result, const std::unordered_set<std::string>& complete);
    void runEachJob(const std::vector<ProfileJob>& jobs, BatchResult& result, std::unordered_set<std::string>& complete,
        std::vector<Waiting>& waiting);
    void awaitHeldJobs(const std::vector<ProfileJob>& jobs, BatchResult& result,
        std::unordered_set<std::string>& complete, std::vector<Waiting>& waiting);
    const LoadedModel& model(const std::string& ref, std::int64_t batch);
    StageCostModel& costFor(std::int64_t batch);
    // Runs one job, filling `record` (the run to store), `event` (what to report) and `result`.
    void runJob(const ProfileJob& job, JobEvent& event, store::RunRecord& record, BatchResult& result);

    store::Store& store_;
    RunBackend& backend_;
    ProfileSettings settings_;
    store::DeviceRecord device_;
    const std::atomic<bool>* cancel_ = nullptr;
    std::function<void(const JobEvent&)> listener_;
    std::unique_ptr<LoadedModel> loaded_;
    store::ClaimOwner owner_;
    std::unique_ptr<store::ClaimKeeper> keeper_; // renews the claims while the batch runs
    struct KnownModel {
        std::string ref, sha256, name;
    };
    std::vector<KnownModel> known_; // fingerprints are batch-independent: skipping needs no load
    std::vector<std::pair<std::int64_t, std::unique_ptr<StageCostModel>>> cached_; // per batch
};

// Thrown inside a job when the batch is cancelled; the job writes nothing.
class BatchCancelled : public Error {
public:
    BatchCancelled()
        : Error("cancelled")
    {
    }
};

} // namespace opsched::profiler
