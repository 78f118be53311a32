// What a time range of a timeline holds, as the status line and the Range tab show it after a drag:
// its length, the ops and kernels in it, each stream's busy time, how many streams ran at once
// (on average and at the peak) and the average active warps. A value type computed from
// TimelineData alone.
#pragma once

#include "engine/timeline/timeline_data.h"

#include <string>
#include <vector>

namespace opsched {

struct StreamRangeStats {
    std::size_t row = 0; // the stream's op row
    std::string name; // "stream 3"
    double busy = 0; // seconds inside the range when one of its ops runs
    std::size_t ops = 0; // op spans overlapping the range
    std::size_t kernels = 0; // kernel spans of its kernel rows overlapping the range
    // While this stream is busy, how many streams (itself included) are busy on average: 1 means
    // it ran alone, 3 that two others ran beside it. 0 when it was idle in the range.
    double concurrency = 0;
};

struct RangeStats {
    double start = 0, end = 0; // seconds, start <= end
    std::size_t ops = 0; // op spans overlapping the range (a merged launch counts each op)
    std::size_t kernels = 0;
    bool hasKernels = true; // false: the run has no kernel rows (a mapping), kernels is n/a
    std::size_t transfers = 0; // results arriving over a link in the range (mappings)
    double transferredBytes = 0;
    std::vector<StreamRangeStats> streams; // one per op row, in row order
    double busy = 0; // sum of the streams' busy time
    double averageConcurrency = 0; // busy / duration: streams running at once, on average
    int peakConcurrency = 0; // most streams running at one instant in the range
    bool hasWarps = false; // the run has an active-warps curve
    double averageWarps = 0; // its time average over the range
    // The host thread in the range (when the run has host calls): what device idle time is made of.
    bool hasHost = false;
    std::size_t hostLaunches = 0; // kernel (or graph) launch calls overlapping the range
    double hostLaunchSeconds = 0; // time inside the range spent in them
    double hostWaitSeconds = 0; // waiting for a stage's (or the graph's) kernels to end
    double hostBarrierSeconds = 0; // joining the streams at stage barriers and the run's end
    double hostOtherSeconds = 0; // other CUDA API calls (measured runs: event records, ...)

    double duration() const { return end - start; }
    // Busy time of one stream as a fraction of the range (0..1); 0 for an empty range.
    double utilisation(const StreamRangeStats& s) const { return duration() > 0 ? s.busy / duration() : 0.0; }
};

// The statistics of [t0, t1] (swapped when t1 < t0; a zero-length range gives counts and no rates).
RangeStats rangeStats(const TimelineData& data, double t0, double t1);

// Seconds of [t0, t1] (t0 <= t1) in which no kernel runs on any stream: the device is idle.
double deviceIdleSeconds(const TimelineData& data, double t0, double t1);

// The time average of the active-warps step function (each sample holds until the next; zero before
// the first) over [t0, t1]; its value at t0 for an empty range.
double averageWarps(const std::vector<WarpSample>& warps, double t0, double t1);

} // namespace opsched
