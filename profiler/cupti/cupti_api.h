// CUPTI resolved at run time (dlopen), so binaries that link the collector (opsched-cli) start on
// machines without CUPTI; util/shared_library.h does the opening. Each call keeps cupti.h's exact
// signature through decltype; a missing library or symbol answers CUPTI_ERROR_NOT_INITIALIZED
// (callers check queryCupti() first to say why). CUPTI builds only.
#pragma once

#include "util/shared_library.h"

#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <utility>

namespace opsched::profiler::cupti::dl {

inline const SharedLibrary& library()
{
    static const SharedLibrary lib({ "libcupti.so.13", "libcupti.so" });
    return lib;
}

// dl::cuptiX(args...) calls libcupti's cuptiX, resolved on first use.
#define OPSCHED_CUPTI_CALL(name)                                                                                       \
    template <typename... Args> CUptiResult name(Args&&... args)                                                       \
    {                                                                                                                  \
        static const auto fn = library().symbol<decltype(&::name)>(#name);                                             \
        return fn ? fn(std::forward<Args>(args)...) : CUPTI_ERROR_NOT_INITIALIZED;                                     \
    }

OPSCHED_CUPTI_CALL(cuptiActivityDisable)
OPSCHED_CUPTI_CALL(cuptiActivityEnable)
OPSCHED_CUPTI_CALL(cuptiActivityFlushAll)
OPSCHED_CUPTI_CALL(cuptiActivityGetNextRecord)
OPSCHED_CUPTI_CALL(cuptiActivityGetNumDroppedRecords)
OPSCHED_CUPTI_CALL(cuptiActivityPopExternalCorrelationId)
OPSCHED_CUPTI_CALL(cuptiActivityPushExternalCorrelationId)
OPSCHED_CUPTI_CALL(cuptiActivityRegisterCallbacks)
OPSCHED_CUPTI_CALL(cuptiDeviceGetChipName)
OPSCHED_CUPTI_CALL(cuptiGetCallbackName)
OPSCHED_CUPTI_CALL(cuptiGetResultString)
OPSCHED_CUPTI_CALL(cuptiGetTimestamp)
OPSCHED_CUPTI_CALL(cuptiPmSamplingCounterDataGetSampleInfo)
OPSCHED_CUPTI_CALL(cuptiPmSamplingCounterDataImageInitialize)
OPSCHED_CUPTI_CALL(cuptiPmSamplingDecodeData)
OPSCHED_CUPTI_CALL(cuptiPmSamplingDisable)
OPSCHED_CUPTI_CALL(cuptiPmSamplingEnable)
OPSCHED_CUPTI_CALL(cuptiPmSamplingGetCounterAvailability)
OPSCHED_CUPTI_CALL(cuptiPmSamplingGetCounterDataInfo)
OPSCHED_CUPTI_CALL(cuptiPmSamplingGetCounterDataSize)
OPSCHED_CUPTI_CALL(cuptiPmSamplingSetConfig)
OPSCHED_CUPTI_CALL(cuptiPmSamplingStart)
OPSCHED_CUPTI_CALL(cuptiPmSamplingStop)
OPSCHED_CUPTI_CALL(cuptiProfilerDeInitialize)
OPSCHED_CUPTI_CALL(cuptiProfilerHostConfigAddMetrics)
OPSCHED_CUPTI_CALL(cuptiProfilerHostDeinitialize)
OPSCHED_CUPTI_CALL(cuptiProfilerHostEvaluateToGpuValues)
OPSCHED_CUPTI_CALL(cuptiProfilerHostGetConfigImage)
OPSCHED_CUPTI_CALL(cuptiProfilerHostGetConfigImageSize)
OPSCHED_CUPTI_CALL(cuptiProfilerHostGetNumOfPasses)
OPSCHED_CUPTI_CALL(cuptiProfilerHostInitialize)
OPSCHED_CUPTI_CALL(cuptiProfilerInitialize)

#undef OPSCHED_CUPTI_CALL

} // namespace opsched::profiler::cupti::dl
