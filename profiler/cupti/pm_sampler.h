// PM sampling of active warps and SM-active % (cupti_pmsampling.h, CUPTI 12.6+/13): a host object
// builds the config image for both metrics (one pass, checked), the device samples them at a fixed
// GPU-time interval into a hardware buffer, and a worker thread decodes that buffer while the
// workload runs so it never overflows. CUPTI builds only.
#pragma once

#include "cupti/cupti_collector.h"

#include <memory>
#include <string>
#include <vector>

namespace opsched::profiler::cupti {

class PmSampler {
public:
    explicit PmSampler(const PmSamplingConfig& config);
    ~PmSampler();
    PmSampler(const PmSampler&) = delete;
    PmSampler& operator=(const PmSampler&) = delete;

    // Sets up and starts sampling. Empty on success, otherwise why it cannot sample (nothing is
    // left enabled then).
    std::string start();
    // Stops, decodes what is left and evaluates every sample. Problems (buffer overflow, a decode
    // error) are appended to `messages`.
    std::vector<ActiveWarpSample> stop(std::vector<std::string>& messages);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace opsched::profiler::cupti
