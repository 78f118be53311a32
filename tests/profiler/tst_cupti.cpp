// The CUPTI collector. Collecting needs a CUDA device: those tests skip visibly without one
// ("skipped: no CUDA device"). Mapping collected data into store records runs everywhere.
#include "cupti/cupti_collector.h"
#include "cupti/cupti_info.h"
#include "exec/cuda/cuda_runtime_info.h"
#include "sim/simulator.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace opsched {
namespace {

namespace cupti = profiler::cupti;

// Why collecting cannot be tested here, or empty.
std::string noDevice()
{
    const auto cuda = queryCudaRuntime();
    if (!cuda.available)
        return "skipped: no CUDA device (" + cuda.reason + ")";
    if (!cupti::built())
        return "skipped: this build has no CUPTI";
    return {};
}

#define SKIP_WITHOUT_DEVICE()                                                                                          \
    if (const auto why = noDevice(); !why.empty())                                                                     \
    GTEST_SKIP() << why

TEST(Cupti, BuildFlagAgreesWithCuptiInfo)
{
    EXPECT_EQ(cupti::built(), queryCupti().built);
}

TEST(Cupti, WithoutADeviceTheWorkloadRunsAndTheReasonIsGiven)
{
    if (queryCudaRuntime().available && cupti::built())
        GTEST_SKIP() << "skipped: a CUDA device is present (this checks the no-device path)";
    int calls = 0;
    const auto c = cupti::collect([&] { ++calls; }, true);
    EXPECT_EQ(calls, 1);
    EXPECT_FALSE(c.kernelsCollected);
    EXPECT_FALSE(c.warpsCollected);
    ASSERT_FALSE(c.messages.empty());
    EXPECT_NE(c.messages.front().find("latencies only"), std::string::npos) << c.messages.front();
}

TEST(Cupti, RecordsTheKernelsOfAWorkload)
{
    SKIP_WITHOUT_DEVICE();
    std::string selfTest;
    const auto c = cupti::collect([&] { selfTest = cudaSelfTest(0); }, false);
    ASSERT_EQ(selfTest, "");
    if (!c.kernelsCollected)
        GTEST_SKIP() << "skipped: kernel tracing unavailable: " << (c.messages.empty() ? "?" : c.messages.front());
    ASSERT_FALSE(c.kernels.empty());
    for (const auto& k : c.kernels) {
        EXPECT_LE(k.start, k.end);
        EXPECT_GE(k.start, c.startNs);
        EXPECT_FALSE(k.demangledName.empty());
        EXPECT_GT(k.blockX, 0);
    }
}

TEST(Cupti, SamplesActiveWarpsAlignedWithTheKernels)
{
    SKIP_WITHOUT_DEVICE();
    cupti::PmSamplingConfig config;
    config.intervalNs = 20'000;
    const auto c = cupti::collect(
        [] {
            for (int i = 0; i < 200; ++i)
                (void)cudaSelfTest(0);
        },
        true, config);
    if (!c.warpsCollected) {
        // No permission or another profiler: reported, and the run goes on with latencies only.
        ASSERT_FALSE(c.messages.empty());
        GTEST_SKIP() << "skipped: PM sampling unavailable: " << c.messages.back();
    }
    ASSERT_FALSE(c.warps.empty());
    EXPECT_TRUE(std::any_of(c.warps.begin(), c.warps.end(), [](const auto& w) { return w.activeWarps > 0; }));
    if (c.kernelsCollected && !c.kernels.empty()) {
        // Samples with warps lie within the kernels' time span (the two clocks agree).
        const auto first = std::min_element(c.kernels.begin(), c.kernels.end(), [](const auto& a, const auto& b) {
            return a.start < b.start;
        })->start;
        const auto last = std::max_element(c.kernels.begin(), c.kernels.end(), [](const auto& a, const auto& b) {
            return a.end < b.end;
        })->end;
        for (const auto& w : c.warps)
            if (w.activeWarps > 0) {
                EXPECT_LE(w.start, last + 1'000'000);
                EXPECT_GE(w.end + 1'000'000, first);
            }
    }
}

TEST(CuptiFill, KernelsAndSamplesBecomeRunRecordsRelativeToTheStart)
{
    cupti::Collection c;
    c.startNs = 1'000'000;
    c.kernelsCollected = c.warpsCollected = true;
    cupti::CollectedKernel k;
    k.start = 1'000'500;
    k.end = 1'002'500;
    k.streamId = 7;
    k.correlationId = 3;
    k.gridX = 10;
    k.gridY = k.gridZ = 1;
    k.blockX = 48; // two warps per block
    k.blockY = k.blockZ = 1;
    k.registersPerThread = 32;
    k.demangledName = "void conv_kernel<float>(float*)";
    k.shortName = "conv_kernel";
    k.externalId = 4;
    c.kernels.push_back(k);
    c.warps.push_back({ 1'000'000, 1'001'000, 100, 50 });
    c.warps.push_back({ 1'001'000, 1'004'000, 20, 10 });
    c.messages.push_back("note");

    store::RunRecord run;
    cupti::fillRun(run, c, [](const cupti::CollectedKernel& ck) {
        return ck.externalId ? std::optional<std::int64_t>(static_cast<std::int64_t>(*ck.externalId)) : std::nullopt;
    });
    ASSERT_EQ(run.kernels.size(), 1U);
    EXPECT_EQ(run.kernels[0].start, 500);
    EXPECT_EQ(run.kernels[0].end, 2500);
    EXPECT_EQ(run.kernels[0].launchId, 4);
    EXPECT_EQ(run.kernels[0].streamId, 7);
    EXPECT_EQ(run.kernels[0].registersPerThread, 32);
    EXPECT_EQ(run.kernels[0].warps, 20.0);
    EXPECT_FALSE(run.kernels[0].graphNodeId.has_value());
    ASSERT_EQ(run.warps.size(), 2U);
    EXPECT_EQ(run.warps[1].timeNs, 1000);
    EXPECT_EQ(run.warps[1].durationNs, 3000);
    EXPECT_EQ(run.warps[1].smActivePct, 10.0);
    ASSERT_TRUE(run.averageActiveWarps.has_value());
    // Averaged over the kernel's span only (500..2500 ns): 500 ns of the first sample, 1500 of the second.
    EXPECT_DOUBLE_EQ(*run.averageActiveWarps, (100.0 * 500 + 20.0 * 1500) / 2000);
    // Over the union of the kernels' intervals: a second kernel inside the first adds nothing, one
    // after a gap (3000..3500) adds 500 ns of the second sample; the gap counts for nothing.
    auto inner = k, later = k;
    inner.start = 1'001'000, inner.end = 1'002'000;
    later.start = 1'003'000, later.end = 1'003'500;
    c.kernels.push_back(inner);
    c.kernels.push_back(later);
    store::RunRecord two;
    cupti::fillRun(two, c, {});
    ASSERT_TRUE(two.averageActiveWarps.has_value());
    EXPECT_DOUBLE_EQ(*two.averageActiveWarps, (100.0 * 500 + 20.0 * 2000) / 2500);
    // Without kernels, over every sample.
    store::RunRecord idle;
    c.kernels.clear();
    cupti::fillRun(idle, c, {});
    ASSERT_TRUE(idle.averageActiveWarps.has_value());
    EXPECT_DOUBLE_EQ(*idle.averageActiveWarps, (100.0 * 1000 + 20.0 * 3000) / 4000);
    EXPECT_TRUE(run.warpsCollected);
    EXPECT_EQ(run.notes, "note");
}

cupti::CollectedApiCall apiCall(const char* name, std::uint64_t start, std::uint64_t end, std::uint32_t thread,
    bool driver = false, std::optional<std::uint64_t> external = std::nullopt)
{
    cupti::CollectedApiCall c;
    c.name = name;
    c.start = start;
    c.end = end;
    c.threadId = thread;
    c.driver = driver;
    c.externalId = external;
    return c;
}

TEST(CuptiFill, HostRowKeepsTheLaunchingThreadWithoutNestedDriverCalls)
{
    std::vector<cupti::CollectedApiCall> calls = {
        apiCall("cudaEventRecord", 300, 340, 1), apiCall("cudaLaunchKernel", 100, 200, 1, false, 0),
        apiCall("cuLaunchKernel", 120, 180, 1, true), // inside cudaLaunchKernel: told twice
        apiCall("cuLaunchKernel", 220, 260, 1, true, 1), // cuDNN's own driver launch: kept
        apiCall("cudaLaunchKernel", 500, 600, 2), // another thread, fewer launches
        apiCall("cudaStreamSynchronize", 400, 900, 1),
        apiCall("cudaGetDevice", 410, 420, 1), // inside the synchronize: dropped
    };
    const auto row = cupti::hostRow(calls);
    std::vector<std::string> names;
    for (const auto& c : row)
        names.push_back(c.name);
    EXPECT_EQ(names,
        (std::vector<std::string> {
            "cudaLaunchKernel", "cuLaunchKernel", "cudaEventRecord", "cudaStreamSynchronize" }));
    for (std::size_t i = 1; i < row.size(); ++i)
        EXPECT_GE(row[i].start, row[i - 1].end) << "calls overlap at " << i;
    EXPECT_TRUE(cupti::hostRow({}).empty());
    // No launch at all: no thread to pick.
    EXPECT_TRUE(cupti::hostRow({ apiCall("cudaGetDevice", 1, 2, 1) }).empty());
}

TEST(CuptiFill, HostCallsBecomeRecordsWithTheirLaunch)
{
    cupti::Collection c;
    c.startNs = 1'000;
    c.apiCalls = { apiCall("cudaLaunchKernel", 1'100, 1'200, 5, false, 7), apiCall("cudaEventRecord", 1'250, 1'260, 5),
        apiCall("cudaDeviceSynchronize", 1'300, 2'000, 5) };
    store::RunRecord run;
    cupti::fillRun(run, c, {}, [](std::optional<std::uint64_t> id) {
        return id ? std::optional<std::int64_t>(static_cast<std::int64_t>(*id) * 10) : std::nullopt;
    });
    ASSERT_EQ(run.hostCalls.size(), 3U);
    EXPECT_EQ(run.hostCalls[0].name, "cudaLaunchKernel");
    EXPECT_EQ(run.hostCalls[0].startNs, 100);
    EXPECT_EQ(run.hostCalls[0].endNs, 200);
    EXPECT_EQ(run.hostCalls[0].launchId, 70);
    EXPECT_FALSE(run.hostCalls[1].launchId.has_value()); // not a launch
    EXPECT_EQ(run.hostCalls[2].endNs, 1'000);
    // The names read back as the window draws them.
    EXPECT_EQ(hostCallKind(run.hostCalls[0].name), HostCallKind::Launch);
    EXPECT_EQ(hostCallKind(run.hostCalls[1].name), HostCallKind::Other);
    EXPECT_EQ(hostCallKind(run.hostCalls[2].name), HostCallKind::Wait);
    EXPECT_EQ(hostCallKind("cudaGraphLaunch"), HostCallKind::GraphLaunch);
    EXPECT_EQ(hostCallKind(toString(HostCallKind::Wait)), HostCallKind::Wait);
    EXPECT_EQ(hostCallKind(toString(HostCallKind::Barrier)), HostCallKind::Barrier);
    EXPECT_EQ(hostCallKind(toString(HostCallKind::Other)), HostCallKind::Other);
}

} // namespace
} // namespace opsched
