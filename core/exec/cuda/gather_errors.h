// Out-of-range token ids of embedding gathers, reported after a run instead of read out of bounds.
// The ids are run-time data (a graph input), so they cannot be checked while compiling: the gather
// kernel records the first bad one in a small device slot (kernels::IndexError) and writes zeros
// instead; the runner clears the slot before each run and reads it back with the outputs.
// Internal to the CUDA backend.
#pragma once

#include "exec/cuda/cuda_check.h"
#include "exec/cuda/tensor_kernel_params.h"

#include <cstdint>
#include <string>
#include <vector>

namespace opsched::gpu {

class GatherErrors {
public:
    // Registers a gather (`label` names its op and layer; `rows` is the extent of the axis it
    // indexes) and returns the code its kernel reports with. The slot is allocated on the first
    // call, which must come before any capture.
    int add(const std::string& label, std::int64_t rows);
    kernels::IndexError* slot() const { return static_cast<kernels::IndexError*>(slot_.data()); }
    bool empty() const { return labels_.empty(); }

    // Stream-ordered: clear before the run's kernels, fetch after them; nothing when no gather
    // was registered.
    void clear(cudaStream_t stream) const;
    void fetch(cudaStream_t stream);
    // After the stream has synchronised: throws Error naming the gather and the id, if any.
    void throwIfReported() const;

private:
    DeviceBuffer slot_;
    std::vector<std::string> labels_;
    std::vector<std::int64_t> rows_;
    kernels::IndexError fetched_ {};
};

} // namespace opsched::gpu
