// Kernel tracing with the CUPTI Activity API, and collect(), which wraps a workload with kernel
// tracing and PM sampling. CUPTI builds only (cupti_stub.cpp otherwise).
#include "cupti/cupti_collector.h"

#include "cupti/cupti_errors.h"
#include "cupti/pm_sampler.h"
#include "exec/cuda/cuda_runtime_info.h"

#include <cupti.h>
#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace opsched::profiler::cupti {
namespace {

constexpr std::size_t kBufferBytes = 8u << 20;
constexpr std::size_t kBufferAlign = 8;

// CUPTI delivers activity buffers to process-wide callbacks.
struct ActivityState {
    std::mutex mutex;
    std::vector<CollectedKernel> kernels;
    std::vector<CollectedApiCall> apiCalls;
    std::unordered_map<std::uint32_t, std::uint64_t> external; // correlationId -> external id
    std::size_t dropped = 0;
    bool callbacksRegistered = false;
};

ActivityState& state()
{
    static ActivityState s;
    return s;
}

std::string demangle(const char* name)
{
    if (!name)
        return {};
    int status = 0;
    std::unique_ptr<char, decltype(&std::free)> out(abi::__cxa_demangle(name, nullptr, nullptr, &status), &std::free);
    return status == 0 && out ? std::string(out.get()) : std::string(name);
}

// Nsight's shortName: the function name without return type, scope, template arguments or parameters.
std::string shortName(const std::string& demangled)
{
    std::string s;
    int depth = 0;
    for (char c : demangled) {
        if (c == '(' && depth == 0)
            break;
        if (c == '<')
            ++depth;
        else if (c == '>')
            --depth;
        else if (depth == 0)
            s += c;
    }
    if (auto pos = s.rfind("::"); pos != std::string::npos)
        s = s.substr(pos + 2);
    if (auto pos = s.rfind(' '); pos != std::string::npos)
        s = s.substr(pos + 1);
    return s.empty() ? demangled : s;
}

void CUPTIAPI bufferRequested(std::uint8_t** buffer, std::size_t* size, std::size_t* maxRecords)
{
    *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(kBufferAlign, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *maxRecords = 0;
}

void CUPTIAPI bufferCompleted(
    CUcontext context, std::uint32_t streamId, std::uint8_t* buffer, std::size_t, std::size_t validSize)
{
    ActivityState& s = state();
    std::lock_guard lock(s.mutex);
    CUpti_Activity* record = nullptr;
    while (dl::cuptiActivityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS) {
        if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
            const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
            CollectedKernel c;
            c.start = k->start;
            c.end = k->end;
            c.deviceId = k->deviceId;
            c.contextId = k->contextId;
            c.streamId = k->streamId;
            c.correlationId = k->correlationId;
            c.graphNodeId = k->graphNodeId;
            c.gridId = k->gridId;
            c.gridX = k->gridX;
            c.gridY = k->gridY;
            c.gridZ = k->gridZ;
            c.blockX = k->blockX;
            c.blockY = k->blockY;
            c.blockZ = k->blockZ;
            c.registersPerThread = k->registersPerThread;
            c.staticSharedMemory = k->staticSharedMemory;
            c.dynamicSharedMemory = k->dynamicSharedMemory;
            c.localMemoryPerThread = k->localMemoryPerThread;
            c.mangledName = k->name ? k->name : "";
            c.demangledName = demangle(k->name);
            c.shortName = shortName(c.demangledName);
            s.kernels.push_back(std::move(c));
        } else if (record->kind == CUPTI_ACTIVITY_KIND_RUNTIME || record->kind == CUPTI_ACTIVITY_KIND_DRIVER) {
            // The host row: what the issuing thread spends in each CUDA call.
            const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
            CollectedApiCall c;
            c.start = a->start;
            c.end = a->end;
            c.threadId = a->threadId;
            c.correlationId = a->correlationId;
            c.driver = record->kind == CUPTI_ACTIVITY_KIND_DRIVER;
            const char* name = nullptr;
            const auto domain = c.driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
            if (dl::cuptiGetCallbackName(domain, a->cbid, &name) == CUPTI_SUCCESS && name)
                c.name = name;
            else
                c.name = (c.driver ? "driver call " : "runtime call ") + std::to_string(a->cbid);
            s.apiCalls.push_back(std::move(c));
        } else if (record->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
            const auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
            if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
                s.external[e->correlationId] = e->externalId;
        }
    }
    std::size_t dropped = 0;
    if (dl::cuptiActivityGetNumDroppedRecords(context, streamId, &dropped) == CUPTI_SUCCESS)
        s.dropped += dropped;
    std::free(buffer);
}

constexpr CUpti_ActivityKind kCorrelationKinds[]
    = { CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER };

void disableKinds()
{
    for (auto kind : kCorrelationKinds)
        dl::cuptiActivityDisable(kind);
    dl::cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
}

// Starts kernel tracing; empty or why not.
std::string startKernels()
{
    ActivityState& s = state();
    {
        std::lock_guard lock(s.mutex);
        s.kernels.clear();
        s.apiCalls.clear();
        s.external.clear();
        s.dropped = 0;
    }
    if (!s.callbacksRegistered) {
        if (auto r = dl::cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted); r != CUPTI_SUCCESS)
            return describe(r, "cuptiActivityRegisterCallbacks");
        s.callbacksRegistered = true;
    }
    if (auto r = dl::cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); r != CUPTI_SUCCESS)
        return describe(r, "cuptiActivityEnable(CONCURRENT_KERNEL)");
    // CUPTI writes an external-correlation record only in front of a runtime or driver API record,
    // so those kinds must be on too: without them no kernel would carry its plan launch's id.
    // Driver too, since cuDNN launches some kernels through it. Their records are the host row.
    for (auto kind : kCorrelationKinds)
        if (auto r = dl::cuptiActivityEnable(kind); r != CUPTI_SUCCESS) {
            disableKinds();
            const std::string call = "cuptiActivityEnable(kind " + std::to_string(static_cast<int>(kind)) + ")";
            return describe(r, call.c_str());
        }
    return {};
}

// The kernels (and, in `apiCalls`, the API calls) recorded since startKernels.
std::vector<CollectedKernel> stopKernels(
    std::vector<std::string>& messages, std::vector<CollectedApiCall>* apiCalls = nullptr)
{
    if (auto r = dl::cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); r != CUPTI_SUCCESS)
        messages.push_back(describe(r, "cuptiActivityFlushAll"));
    disableKinds();
    ActivityState& s = state();
    std::lock_guard lock(s.mutex);
    if (s.dropped)
        messages.push_back(std::to_string(s.dropped) + " kernel records were dropped by CUPTI");
    for (auto& k : s.kernels)
        if (auto it = s.external.find(k.correlationId); it != s.external.end())
            k.externalId = it->second;
    for (auto& call : s.apiCalls)
        if (auto it = s.external.find(call.correlationId); it != s.external.end())
            call.externalId = it->second;
    if (apiCalls)
        *apiCalls = std::exchange(s.apiCalls, {});
    s.apiCalls.clear();
    return std::exchange(s.kernels, {});
}

} // namespace

bool built()
{
    return true;
}

ExternalIdScope::ExternalIdScope(std::uint64_t id)
{
    pushed_ = dl::cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id) == CUPTI_SUCCESS;
}

ExternalIdScope::~ExternalIdScope()
{
    if (pushed_) {
        std::uint64_t last = 0;
        dl::cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
    }
}

Collection collect(const std::function<void()>& workload, bool warps, const PmSamplingConfig& config)
{
    Collection c;
    const auto cuda = queryCudaRuntime();
    if (!cuda.available) {
        c.messages.push_back("no CUDA device (" + cuda.reason + "): latencies only");
        workload();
        return c;
    }
    std::string why = startKernels();
    c.kernelsCollected = why.empty();
    if (!why.empty())
        c.messages.push_back("kernels not recorded: " + why);
    std::unique_ptr<PmSampler> sampler;
    if (warps) {
        sampler = std::make_unique<PmSampler>(config);
        if (why = sampler->start(); !why.empty()) {
            c.messages.push_back("active warps not recorded: " + why);
            sampler.reset();
        }
    }
    dl::cuptiGetTimestamp(&c.startNs);
    try {
        workload();
    } catch (...) {
        std::vector<std::string> ignored;
        if (sampler)
            sampler->stop(ignored);
        if (c.kernelsCollected)
            stopKernels(ignored);
        throw;
    }
    if (sampler) {
        c.warps = sampler->stop(c.messages);
        c.warpsCollected = true;
    }
    if (c.kernelsCollected)
        c.kernels = stopKernels(c.messages, &c.apiCalls);
    return c;
}

} // namespace opsched::profiler::cupti
