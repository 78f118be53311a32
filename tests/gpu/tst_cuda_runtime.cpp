// GPU tests: they run a real kernel where a CUDA device exists and skip visibly elsewhere.
#include "exec/cuda/cuda_runtime_info.h"

#include <gtest/gtest.h>

namespace {

TEST(CudaRuntime, ReportsItsStateWithoutThrowing)
{
    const auto status = opsched::queryCudaRuntime();
    if (!status.available)
        EXPECT_FALSE(status.reason.empty()) << "no device must come with a reason";
    else
        EXPECT_FALSE(status.devices.empty());
}

TEST(CudaRuntime, KernelProducesExpectedValues)
{
    const auto status = opsched::queryCudaRuntime();
    if (!status.available)
        GTEST_SKIP() << "skipped: no CUDA device (" << status.reason << ")";
    EXPECT_EQ(opsched::cudaSelfTest(0), "");
}

TEST(CudaRuntime, SelfTestOnMissingDeviceReportsAnError)
{
    const auto status = opsched::queryCudaRuntime();
    // A device index past the last one must fail with a message, never crash.
    EXPECT_NE(opsched::cudaSelfTest(static_cast<int>(status.devices.size()) + 7), "");
}

} // namespace
