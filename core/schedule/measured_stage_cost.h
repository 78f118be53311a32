// The measured cost model: the IOS search's stage latencies timed on a device (a StageTimer),
// cached in memory and, through a StageCostStore, on disk. The cache key is the timer's identity
// (GPU, driver, settings), the batch and the stage's structural signature (stage_signature.h), so
// identical blocks and repeated runs are timed once.
#pragma once

#include "plan/stage_signature.h"
#include "plan/stage_timer.h"
#include "schedule/stage_cost.h"
#include "util/statistics.h"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace opsched {

// The persistent half of the cache (the profiler keeps it in SQLite: profiler/session/
// stage_cost_store.h). Keys: the timer's key (timerKey), the batch, and a signature.
class StageCostStore {
public:
    virtual ~StageCostStore() = default;
    virtual std::unordered_map<std::string, double> load(const std::string& timerKey, std::int64_t batch) = 0;
    virtual void add(
        const std::string& timerKey, std::int64_t batch, const std::vector<std::pair<std::string, double>>& entries)
        = 0;
};

// One string for a timer identity, as stored: "measured|DEVICE|DRIVER|OPTIONS".
std::string timerKey(const TimerIdentity& identity);

// Counts, for reports and tests.
struct MeasuredCostCounts {
    std::size_t stagesTimed = 0; // timer.timeStage calls
    std::size_t opsTimed = 0; // timer.timeOp calls
    std::size_t memoryHits = 0; // answered from this process's cache
    std::size_t storeHits = 0; // answered from the persistent cache
};

// A whole plan replayed many times: its spread.
struct PlanTiming {
    Spread seconds;
    std::vector<double> samples;
};

class MeasuredStageCost : public StageCostModel {
public:
    // `deviceModel` is the analytical model for Opara (closestSimDevice of the GPU); `store` may be
    // null (no persistent cache). `deviceName` is what schedules record ("cuda:0").
    MeasuredStageCost(
        StageTimer& timer, std::string deviceName, SimDevice deviceModel, StageCostStore* store = nullptr);
    // Writes what is not yet stored; errors are swallowed here (call flush() to see them).
    ~MeasuredStageCost() override;
    MeasuredStageCost(const MeasuredStageCost&) = delete;
    MeasuredStageCost& operator=(const MeasuredStageCost&) = delete;

    double stageLatency(const Graph& graph, const Stage& stage) override;
    std::string deviceName() const override { return deviceName_; }
    const SimDevice& deviceModel() const override { return deviceModel_; }
    // Median of a few replays of the whole plan on the timer's device (not cached).
    double planLatency(const Graph& graph, const Plan& plan) override;

    // One op alone (for the critical-path floor), cached like stages.
    double opLatency(const Graph& graph, OpId op);
    // Every op alone, by op id.
    std::vector<double> opLatencies(const Graph& graph);
    // `repeats` replays of the whole plan (never cached: it is the result, not a search input).
    PlanTiming planLatency(const Graph& graph, const Plan& plan, int repeats);

    // Writes the entries measured since the last flush to the store. Throws what the store throws.
    void flush();

    const MeasuredCostCounts& counts() const { return counts_; }
    const TimerIdentity& identity() const { return identity_; }
    StageTimer& timer() { return timer_; }

private:
    const StageSignatures& signaturesFor(const Graph& graph);
    // Looks the key up in memory, then in the store (loaded once per batch); times it otherwise.
    template <typename Measure>
    double lookup(const Graph& graph, const std::string& key, Measure&& measure, std::size_t& timedCounter);

    StageTimer& timer_;
    std::string deviceName_;
    SimDevice deviceModel_;
    StageCostStore* store_;
    TimerIdentity identity_;
    std::string timerKey_;
    std::unordered_map<std::string, double> memory_; // signature -> seconds (this process)
    std::unordered_map<std::int64_t, std::unordered_map<std::string, double>> stored_; // per batch
    std::unordered_map<std::int64_t, std::vector<std::pair<std::string, double>>> pending_;
    std::uint64_t signaturesGraph_ = 0;
    std::unique_ptr<StageSignatures> signatures_;
    MeasuredCostCounts counts_;
};

} // namespace opsched
