// What a measured cost model asks of a real device: time one stage, one op alone, or a whole
// plan. The CUDA executor implements it on a GPU (exec/cuda/cuda_stage_timer.h); tests use fakes.
// Kept apart from CUDA so the search, its cache and the CLI compile and are tested without a GPU.
#pragma once

#include "plan/plan.h"
#include "plan/schedule.h"

#include <string>
#include <vector>

namespace opsched {

// Which device measured a number: part of every cache key, so results from another GPU, driver or
// library version are never reused.
struct TimerIdentity {
    std::string device; // "cuda:0 NVIDIA H100 80GB HBM3"
    std::string driver; // driver, runtime and cuDNN versions, e.g. "580.65/13000/91900"
    std::string options; // settings that change timings, e.g. "tf32=on"
    friend bool operator==(const TimerIdentity&, const TimerIdentity&) = default;
};

// Where a timer's time went, for the search report (a GPU search is bounded by these).
struct TimerStats {
    std::size_t captures = 0; // small graphs captured and timed (stages and ops)
    double compileSeconds = 0; // preparing launches: cuDNN algorithm searches, weights
    double captureSeconds = 0; // first eager runs, captures and instantiations
    double replaySeconds = 0; // warm-up and timed replays
};

class StageTimer {
public:
    virtual ~StageTimer() = default;
    virtual TimerIdentity identity() const = 0;
    // Median seconds of one stage after warm-up: its launches from the first to the join after the
    // last, captured as a small CUDA graph so launch cost is what the final plan pays.
    virtual double timeStage(const Graph& graph, const Stage& stage) = 0;
    // Median seconds of one op run alone (for the critical-path floor).
    virtual double timeOp(const Graph& graph, OpId op) = 0;
    // Seconds of `repeats` replays of the whole plan (one CUDA graph), each timed with events.
    virtual std::vector<double> timePlan(const Graph& graph, const Plan& plan, int repeats) = 0;
    // Totals since the timer was made; timers that keep none report zeros.
    virtual TimerStats stats() const { return {}; }
};

} // namespace opsched
