// Shared by the GPU tests: skip visibly where there is no device, and compare outputs.
#pragma once

#include "exec/cuda/cuda_executor.h"
#include "exec/cuda/cuda_runtime_info.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace opsched::test {

// Empty when the CUDA backend can run here, else why not.
inline std::string whyNoCuda()
{
    const CudaRuntimeStatus status = queryCudaRuntime();
    if (!status.available)
        return status.reason;
    if (!gpu::cudaBackendAvailable())
        return "this build has no CUDA backend";
    return {};
}

#define OPSCHED_SKIP_WITHOUT_CUDA()                                                                                    \
    do {                                                                                                               \
        if (const std::string why = ::opsched::test::whyNoCuda(); !why.empty())                                        \
            GTEST_SKIP() << "skipped: no CUDA device (" << why << ")";                                                 \
    } while (0)

// Largest |got - want| over all outputs, relative to the largest |want| (absolute where every
// |want| is 0): a tolerance means the same for outputs of any scale (the zoo's are about 1-10).
inline double maxRelativeError(const std::vector<std::vector<float>>& got, const std::vector<std::vector<float>>& want)
{
    if (got.size() != want.size())
        return INFINITY;
    double scale = 0.0, err = 0.0;
    for (std::size_t k = 0; k < want.size(); ++k) {
        if (got[k].size() != want[k].size())
            return INFINITY;
        for (std::size_t i = 0; i < want[k].size(); ++i) {
            scale = std::max(scale, static_cast<double>(std::abs(want[k][i])));
            if (got[k][i] == want[k][i])
                continue; // equal infinities (an empty max-pool window) differ by nothing
            const double d = std::abs(static_cast<double>(got[k][i]) - want[k][i]);
            err = std::isnan(d) ? INFINITY : std::max(err, d);
        }
    }
    return scale > 0.0 ? err / scale : err;
}

} // namespace opsched::test
