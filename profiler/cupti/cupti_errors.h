// CUPTI results as messages a person can act on. CUPTI builds only.
#pragma once

#include "cupti/cupti_api.h"

#include <string>

namespace opsched::profiler::cupti {

inline std::string describe(CUptiResult result, const char* call)
{
    const char* text = nullptr;
    if (dl::cuptiGetResultString(result, &text) != CUPTI_SUCCESS || !text)
        text = "unknown CUPTI error";
    std::string why;
    switch (result) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        why = "no permission to read the GPU's performance counters: run as root, or load the NVIDIA driver with "
              "NVreg_RestrictProfilingToAdminUsers=0, a.k.a. RmProfilingAdminOnly "
              "(https://developer.nvidia.com/ERR_NVGPUCTRPERM)";
        break;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_HARDWARE_BUSY:
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
        why = "another profiler (Nsight Systems, Nsight Compute, DCGM profiling) holds the GPU's counters";
        break;
    case CUPTI_ERROR_INVALID_OPERATION:
        why = "PM sampling is already enabled on this device (another profiler or session)";
        break;
    case CUPTI_ERROR_NOT_INITIALIZED:
    case CUPTI_ERROR_INVALID_DEVICE:
        why = "no usable CUDA device";
        break;
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_INVALID_CHIP_NAME:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
        why = "this GPU or setup does not support it";
        break;
    default:
        break;
    }
    std::string msg = std::string(call) + " failed: " + text;
    if (!why.empty())
        msg += " (" + why + ")";
    return msg;
}

} // namespace opsched::profiler::cupti
