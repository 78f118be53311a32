// Why one run is faster than another: the difference of two stored runs' latencies split into
// terms that add up to it exactly, from what each run recorded (kernels and host calls; simulated,
// CUDA and CPU-partition runs alike). docs/explain.md defines each term.
//
// One run's latency L is accounted as
//   L = kernel time - overlap + launch idle + sync idle + gap idle + variation
// over the recorded run, from 0 to its last kernel's or host call's end (the span S; a final join
// of the streams ends after the last kernel): kernel time is the sum of
// kernel durations, busy time the union of their intervals, overlap = kernel time - busy (what
// concurrency hid), idle = S - busy split by what the host did meanwhile (issuing launches and
// other API calls; joining the streams at a barrier; waiting for the device or nothing recorded,
// where the device idles on its own: waits between streams, launch latency), and variation = L - S (the
// median of the timed runs against the one recorded). The difference of two accounts, term by
// term, is then exactly L(A) - L(B); the kernel term is split further into kernels both runs have
// (matched by op, kernel name and order) and kernels only one has (merged convolutions, removed
// copies).
#pragma once

#include "store/records.h"

#include <cstdint>
#include <string>
#include <vector>

namespace opsched::analysis {

// One run's latency, accounted (nanoseconds).
struct LatencyAccount {
    double latencyNs = 0; // the run's median latency: the figure runs are compared by
    double spanNs = 0; // the recorded run: 0 to the end of its last kernel or host call
    double kernelNs = 0; // sum of kernel durations
    double busyNs = 0; // the union of kernel intervals
    double overlapNs = 0; // kernelNs - busyNs
    double launchIdleNs = 0; // no kernel runs while the host issues launches (and other API calls)
    double syncIdleNs = 0; // no kernel runs while the host joins the streams at a barrier
    double gapIdleNs = 0; // no kernel runs while the host waits for the device or does nothing recorded
    double variationNs = 0; // latencyNs - spanNs
    std::size_t kernels = 0;
};

// Throws std::invalid_argument for a run without kernels or latencies (a failed run).
LatencyAccount accountLatency(const store::RunRecord& run);

// Kernel time of one op in both runs (its kernels' durations summed; a merged launch's kernels
// count for its first op).
struct OpKernelChange {
    std::int64_t opId = -1; // -1: kernels without an op
    std::string op; // the model's op name
    double aNs = 0, bNs = 0;
    double changeNs() const { return aNs - bNs; }
};

// A term of the difference: its share of it is ns / (L(A) - L(B)).
struct BreakdownTerm {
    std::string key; // stable, for --json: shared_kernels, only_a_kernels, ...
    std::string label; // what a person reads
    double ns = 0; // contribution to L(A) - L(B); positive: A is slower by it
};

struct SpeedupBreakdown {
    LatencyAccount a, b;
    double differenceNs = 0; // a.latencyNs - b.latencyNs
    // shared_kernels, only_a_kernels, only_b_kernels, overlap, launch_idle, sync_idle, gap_idle,
    // variation: in this order, summing to differenceNs.
    std::vector<BreakdownTerm> terms;
    std::size_t sharedKernels = 0, onlyAKernels = 0, onlyBKernels = 0;
    std::vector<OpKernelChange> ops; // every op with kernels in either run, largest |change| first
    // The ops of the kernels each kernel term counts (sorted, once each): what to show for it.
    std::vector<std::int64_t> sharedOps, onlyAOps, onlyBOps;
    double termSumNs() const;
};

// A as the baseline (say sequential), B the schedule explained. Throws std::invalid_argument for
// runs that cannot be compared (no kernels, another model or batch).
SpeedupBreakdown explainDifference(const store::RunRecord& a, const store::RunRecord& b);

} // namespace opsched::analysis
