#include "exec/cuda/gather_errors.h"

#include <sstream>

namespace opsched::gpu {

int GatherErrors::add(const std::string& label, std::int64_t rows)
{
    if (labels_.empty()) {
        slot_ = DeviceBuffer(sizeof(kernels::IndexError), "the gathers' error slot");
        checkCuda(cudaMemset(slot_.data(), 0, sizeof(kernels::IndexError)), "clearing the gathers' error slot");
    }
    labels_.push_back(label);
    rows_.push_back(rows);
    return static_cast<int>(labels_.size()); // 0 means "nothing reported"
}

void GatherErrors::clear(cudaStream_t stream) const
{
    if (!empty())
        checkCuda(
            cudaMemsetAsync(slot_.data(), 0, sizeof(kernels::IndexError), stream), "clearing the gathers' error slot");
}

void GatherErrors::fetch(cudaStream_t stream)
{
    fetched_ = {};
    if (!empty())
        checkCuda(cudaMemcpyAsync(&fetched_, slot_.data(), sizeof(kernels::IndexError), cudaMemcpyDeviceToHost, stream),
            "reading the gathers' error slot");
}

void GatherErrors::throwIfReported() const
{
    if (fetched_.gather <= 0 || fetched_.gather > static_cast<int>(labels_.size()))
        return;
    const auto k = static_cast<std::size_t>(fetched_.gather - 1);
    std::ostringstream id;
    id << fetched_.id;
    throw Error(labels_[k] + ": index " + id.str() + " is outside a table of " + std::to_string(rows_[k])
        + " rows (valid: " + std::to_string(-rows_[k]) + " to " + std::to_string(rows_[k] - 1)
        + "); check the token ids against the vocabulary size");
}

} // namespace opsched::gpu
