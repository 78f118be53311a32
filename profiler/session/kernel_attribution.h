// Measured kernels back to the plan: which launch (and so which ops) each kernel belongs to, its
// position within that launch, and the stages' spans on the GPU. Pure functions over plain
// records, so they are tested without a GPU.
//
// How kernels are attributed: the profiled replay issues the plan eagerly (CudaExecutor::
// runEagerly) with launch i wrapped in CUPTI external correlation id i + 1 (0 means "none" to
// CUPTI users). CUPTI ties the id to every kernel launched from that thread while it is pushed,
// cuDNN's internal kernels included. Inside a CUDA graph replay CUPTI only sees one cudaGraphLaunch,
// so an external id would name the whole graph; graph node ids would need the executable graph's
// nodes mapped back to launches at capture, which the runtime does not report.
#pragma once

#include "plan/plan.h"
#include "plan/schedule.h"
#include "store/records.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace opsched::profiler {

// The external correlation id pushed around plan launch `launch`, and back.
std::uint64_t externalIdOfLaunch(std::size_t launch);
// nullopt for no id, 0, or an id past the plan's launches (a kernel from outside the plan).
std::optional<std::int64_t> launchOfExternalId(std::optional<std::uint64_t> externalId, std::size_t launchCount);

// Sorts `kernels` by start and, for those with a launch id, fills opId (the launch's first op;
// merged launches name their first conv, as simulated runs do) and part (0, 1, ... in start order
// within the launch). Returns how many kernels have no launch.
std::size_t attributeKernels(std::vector<store::KernelRecord>& kernels, const Plan& plan);

// Each stage from its ops' first kernel start to their last kernel end; stages whose ops ran no
// kernel (e.g. only zero-copy views) are left out.
std::vector<store::StageLatencyRecord> stageSpans(
    const std::vector<store::KernelRecord>& kernels, const Plan& plan, const Schedule& schedule);

} // namespace opsched::profiler
