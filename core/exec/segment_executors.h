// The executors a segment runs on (exec/segment_runner.h): the CPU executor on a core partition
// (or oneDNN's own threads) and the CUDA executor on one GPU, each running its subgraph's
// sequential plan (the segment's ops in the mapping's order; on the GPU one CUDA graph).
#pragma once

#include "exec/segment_runner.h"

#include <memory>
#include <vector>

namespace opsched::exec {

// `cores` empty: oneDNN's default threads on the calling thread; else one pinned worker on those
// cores (CpuOptions::partitions with one partition). Throws Error as CpuExecutor does.
std::unique_ptr<SegmentExecutor> makeCpuSegmentExecutor(const Graph& subgraph, const std::vector<int>& cores);
// Runs on the calling thread with `threads` OpenMP threads (0: oneDNN's default), no hand-off: for
// a caller that pinned itself to a partition's cores (cpu::pinCallingThread) and creates and runs
// it there.
std::unique_ptr<SegmentExecutor> makeCallerCpuSegmentExecutor(const Graph& subgraph, int threads);

// cuda:`device`. Throws Error as CudaExecutor does (no CUDA build, no device, no cuDNN, ...).
std::unique_ptr<SegmentExecutor> makeCudaSegmentExecutor(const Graph& subgraph, int device, bool tf32);

} // namespace opsched::exec
