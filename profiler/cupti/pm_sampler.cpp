#include "cupti/pm_sampler.h"

#include "cupti/cupti_errors.h"

#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>

namespace opsched::profiler::cupti {

// CUPTI parameter structs: zeroed but for the fields named, with their size set (CUPTI checks it
// for compatibility). GCC before 14 warns about each field a designated initializer leaves out,
// which is every output here: CUPTI wants them zero.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#define CUPTI_PARAMS(T, ...) T({ .structSize = T##_STRUCT_SIZE __VA_OPT__(, ) __VA_ARGS__ })

struct PmSampler::Impl {
    PmSamplingConfig config;
    std::vector<const char*> metrics { kActiveWarpsMetric, kSmActiveMetric };
    bool profilerInitialized = false;
    CUpti_Profiler_Host_Object* host = nullptr;
    CUpti_PmSampling_Object* sampler = nullptr;
    bool started = false;
    std::vector<std::uint8_t> availability, configImage, counterData;
    std::thread worker;
    std::atomic<bool> stopping { false };
    std::mutex mutex; // samples, problems, counterData
    std::vector<ActiveWarpSample> samples;
    std::vector<std::string> problems;

    // Empty on success; otherwise what failed, with everything set up so far torn down.
    std::string setup();
    void teardown();
    void initCounterData();
    // Decodes the hardware buffer into the counter-data image; evaluates and reuses a full image.
    // Returns false at the end of the records or on an error.
    bool decode();
    void evaluate(); // completed samples of the image -> samples; then reinitialise the image
    void run(); // the worker thread
};

std::string PmSampler::Impl::setup()
{
    auto init = CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
    if (auto r = dl::cuptiProfilerInitialize(&init); r != CUPTI_SUCCESS)
        return describe(r, "cuptiProfilerInitialize");
    profilerInitialized = true;

    auto chip
        = CUPTI_PARAMS(CUpti_Device_GetChipName_Params, .deviceIndex = static_cast<std::size_t>(config.deviceIndex));
    if (auto r = dl::cuptiDeviceGetChipName(&chip); r != CUPTI_SUCCESS)
        return describe(r, "cuptiDeviceGetChipName");

    auto avail = CUPTI_PARAMS(
        CUpti_PmSampling_GetCounterAvailability_Params, .deviceIndex = static_cast<std::size_t>(config.deviceIndex));
    if (auto r = dl::cuptiPmSamplingGetCounterAvailability(&avail); r != CUPTI_SUCCESS)
        return describe(r, "cuptiPmSamplingGetCounterAvailability");
    availability.resize(avail.counterAvailabilityImageSize);
    avail.pCounterAvailabilityImage = availability.data();
    if (auto r = dl::cuptiPmSamplingGetCounterAvailability(&avail); r != CUPTI_SUCCESS)
        return describe(r, "cuptiPmSamplingGetCounterAvailability");

    auto hostInit = CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params, .profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING,
        .pChipName = chip.pChipName, .pCounterAvailabilityImage = availability.data());
    if (auto r = dl::cuptiProfilerHostInitialize(&hostInit); r != CUPTI_SUCCESS)
        return describe(r, "cuptiProfilerHostInitialize");
    host = hostInit.pHostObject;

    auto add = CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params, .pHostObject = host,
        .ppMetricNames = metrics.data(), .numMetrics = metrics.size());
    if (auto r = dl::cuptiProfilerHostConfigAddMetrics(&add); r != CUPTI_SUCCESS)
        return describe(r, "adding the active-warps metrics");
    auto size = CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params, .pHostObject = host);
    if (auto r = dl::cuptiProfilerHostGetConfigImageSize(&size); r != CUPTI_SUCCESS)
        return describe(r, "cuptiProfilerHostGetConfigImageSize");
    configImage.resize(size.configImageSize);
    auto image = CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params, .pHostObject = host,
        .configImageSize = configImage.size(), .pConfigImage = configImage.data());
    if (auto r = dl::cuptiProfilerHostGetConfigImage(&image); r != CUPTI_SUCCESS)
        return describe(r, "cuptiProfilerHostGetConfigImage");
    // PM sampling cannot replay: both metrics must fit one pass.
    auto passes = CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params, .configImageSize = configImage.size(),
        .pConfigImage = configImage.data());
    if (auto r = dl::cuptiProfilerHostGetNumOfPasses(&passes); r != CUPTI_SUCCESS)
        return describe(r, "cuptiProfilerHostGetNumOfPasses");
    if (passes.numOfPasses != 1)
        return "the active-warps metrics need " + std::to_string(passes.numOfPasses)
            + " passes on this GPU; PM sampling collects in one";

    auto enable
        = CUPTI_PARAMS(CUpti_PmSampling_Enable_Params, .deviceIndex = static_cast<std::size_t>(config.deviceIndex));
    if (auto r = dl::cuptiPmSamplingEnable(&enable); r != CUPTI_SUCCESS)
        return describe(r, "cuptiPmSamplingEnable");
    sampler = enable.pPmSamplingObject;

    auto set = CUPTI_PARAMS(CUpti_PmSampling_SetConfig_Params, .pPmSamplingObject = sampler,
        .configSize = configImage.size(), .pConfig = configImage.data(),
        .hardwareBufferSize = config.hardwareBufferBytes, .samplingInterval = config.intervalNs,
        .triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL,
        .hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST);
    if (auto r = dl::cuptiPmSamplingSetConfig(&set); r != CUPTI_SUCCESS) {
        // Turing and GA100 have no GPU-time trigger: count SYS clock cycles instead (about 1 GHz,
        // so the interval stays near the requested one; sample timestamps are exact either way).
        set.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_SYSCLK_INTERVAL;
        if (auto r2 = dl::cuptiPmSamplingSetConfig(&set); r2 != CUPTI_SUCCESS)
            return describe(r, "cuptiPmSamplingSetConfig");
        problems.push_back("this GPU has no GPU-time sampling trigger; sampled every "
            + std::to_string(config.intervalNs) + " SYS clock cycles instead");
    }
    initCounterData();

    auto startParams = CUPTI_PARAMS(CUpti_PmSampling_Start_Params, .pPmSamplingObject = sampler);
    if (auto r = dl::cuptiPmSamplingStart(&startParams); r != CUPTI_SUCCESS)
        return describe(r, "cuptiPmSamplingStart");
    started = true;
    return {};
}

void PmSampler::Impl::initCounterData()
{
    auto size = CUPTI_PARAMS(CUpti_PmSampling_GetCounterDataSize_Params, .pPmSamplingObject = sampler,
        .pMetricNames = metrics.data(), .numMetrics = metrics.size(), .maxSamples = config.maxSamples);
    if (auto r = dl::cuptiPmSamplingGetCounterDataSize(&size); r != CUPTI_SUCCESS) {
        problems.push_back(describe(r, "cuptiPmSamplingGetCounterDataSize"));
        counterData.clear();
        return;
    }
    counterData.assign(size.counterDataSize, 0);
    auto init = CUPTI_PARAMS(CUpti_PmSampling_CounterDataImage_Initialize_Params, .pPmSamplingObject = sampler,
        .counterDataSize = counterData.size(), .pCounterData = counterData.data());
    if (auto r = dl::cuptiPmSamplingCounterDataImageInitialize(&init); r != CUPTI_SUCCESS) {
        problems.push_back(describe(r, "cuptiPmSamplingCounterDataImageInitialize"));
        counterData.clear();
    }
}

void PmSampler::Impl::evaluate()
{
    auto info = CUPTI_PARAMS(CUpti_PmSampling_GetCounterDataInfo_Params, .pCounterDataImage = counterData.data(),
        .counterDataImageSize = counterData.size());
    if (auto r = dl::cuptiPmSamplingGetCounterDataInfo(&info); r != CUPTI_SUCCESS) {
        problems.push_back(describe(r, "cuptiPmSamplingGetCounterDataInfo"));
        return;
    }
    for (std::size_t i = 0; i < info.numCompletedSamples; ++i) {
        auto sample = CUPTI_PARAMS(CUpti_PmSampling_CounterData_GetSampleInfo_Params, .pPmSamplingObject = sampler,
            .pCounterDataImage = counterData.data(), .counterDataImageSize = counterData.size(), .sampleIndex = i);
        if (dl::cuptiPmSamplingCounterDataGetSampleInfo(&sample) != CUPTI_SUCCESS)
            continue;
        double values[2] = { 0, 0 };
        auto eval = CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params, .pHostObject = host,
            .pCounterDataImage = counterData.data(), .counterDataImageSize = counterData.size(), .rangeIndex = i,
            .ppMetricNames = metrics.data(), .numMetrics = metrics.size(), .pMetricValues = values);
        if (auto r = dl::cuptiProfilerHostEvaluateToGpuValues(&eval); r != CUPTI_SUCCESS) {
            problems.push_back(describe(r, "evaluating a PM sample"));
            break;
        }
        samples.push_back({ sample.startTimestamp, sample.endTimestamp, values[0], values[1] });
    }
    initCounterData();
}

bool PmSampler::Impl::decode()
{
    std::lock_guard lock(mutex);
    if (counterData.empty())
        return false;
    auto decodeParams = CUPTI_PARAMS(CUpti_PmSampling_DecodeData_Params, .pPmSamplingObject = sampler,
        .pCounterDataImage = counterData.data(), .counterDataImageSize = counterData.size());
    if (auto r = dl::cuptiPmSamplingDecodeData(&decodeParams); r != CUPTI_SUCCESS) {
        problems.push_back(describe(r, "cuptiPmSamplingDecodeData"));
        return false;
    }
    if (decodeParams.overflow)
        problems.push_back("the PM sampling hardware buffer overflowed: samples were lost (raise the interval)");
    if (decodeParams.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL) {
        evaluate();
        return true; // more records may wait
    }
    return false;
}

void PmSampler::Impl::run()
{
    while (!stopping.load()) {
        while (decode()) { }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

void PmSampler::Impl::teardown()
{
    if (started) {
        auto stopParams = CUPTI_PARAMS(CUpti_PmSampling_Stop_Params, .pPmSamplingObject = sampler);
        dl::cuptiPmSamplingStop(&stopParams);
        started = false;
    }
    if (sampler) {
        auto disable = CUPTI_PARAMS(CUpti_PmSampling_Disable_Params, .pPmSamplingObject = sampler);
        dl::cuptiPmSamplingDisable(&disable);
        sampler = nullptr;
    }
    if (host) {
        auto deinit = CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params, .pHostObject = host);
        dl::cuptiProfilerHostDeinitialize(&deinit);
        host = nullptr;
    }
    if (profilerInitialized) {
        auto deinit = CUPTI_PARAMS(CUpti_Profiler_DeInitialize_Params);
        dl::cuptiProfilerDeInitialize(&deinit);
        profilerInitialized = false;
    }
}

PmSampler::PmSampler(const PmSamplingConfig& config)
    : impl_(std::make_unique<Impl>())
{
    impl_->config = config;
}

PmSampler::~PmSampler()
{
    if (impl_->worker.joinable()) {
        impl_->stopping = true;
        impl_->worker.join();
    }
    impl_->teardown();
}

std::string PmSampler::start()
{
    std::string why = impl_->setup();
    if (!why.empty()) {
        impl_->teardown();
        return why;
    }
    impl_->worker = std::thread([this] { impl_->run(); });
    return {};
}

std::vector<ActiveWarpSample> PmSampler::stop(std::vector<std::string>& messages)
{
    if (impl_->worker.joinable()) {
        impl_->stopping = true;
        impl_->worker.join();
    }
    if (impl_->started) {
        auto stopParams = CUPTI_PARAMS(CUpti_PmSampling_Stop_Params, .pPmSamplingObject = impl_->sampler);
        if (auto r = dl::cuptiPmSamplingStop(&stopParams); r != CUPTI_SUCCESS)
            impl_->problems.push_back(describe(r, "cuptiPmSamplingStop"));
        impl_->started = false;
        while (impl_->decode()) { }
        std::lock_guard lock(impl_->mutex);
        if (!impl_->counterData.empty())
            impl_->evaluate();
    }
    impl_->teardown();
    messages.insert(messages.end(), impl_->problems.begin(), impl_->problems.end());
    impl_->problems.clear();
    return std::exchange(impl_->samples, {});
}

} // namespace opsched::profiler::cupti
