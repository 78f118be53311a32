// No reference kernel in a plan the CPU executor builds: every oneDNN primitive of every zoo
// network and of every exported test model runs a JIT kernel (or the executor's own host code),
// never oneDNN's scalar reference loops, which are 10 to 1000 times slower (a first convolution
// of AlexNet on AVX2: 2.1 s instead of 1.3 ms). ctest runs this suite three times: on the machine's
// own ISA, and with ONEDNN_MAX_CPU_ISA=AVX2 and =SSE41, so an AVX-512 machine checks what an
// AVX2-only laptop or an older server would run.
#include "cpu_test_support.h"
#include "exec/cpu/kernel_names.h"
#include "model/model_ref.h"
#include "schedule/schedulers.h"
#include "sim/sim_device.h"
#include "zoo/zoo.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

using namespace opsched;

namespace {

// "launch 3 (/features/features.0/Conv): convolution ref:any", one line per reference step.
std::string referenceSteps(const cpu::CpuExecutor& ex)
{
    std::string lines;
    for (const auto& p : ex.primitives())
        if (cpu::isReferenceImplementation(p.implementation))
            lines += "  launch " + std::to_string(p.launch) + " (" + p.op + "): " + p.implementation + "\n";
    return lines;
}

cpu::CpuOptions oneThread(bool avoidReference = true)
{
    cpu::CpuOptions o = test::kOneThread;
    o.avoidReferenceKernels = avoidReference;
    return o;
}

void expectNoReferenceKernel(const Graph& g, const Plan& plan, const std::string& what)
{
    const cpu::CpuExecutor ex(g, plan, oneThread());
    ASSERT_GT(ex.primitives().size(), 0U) << what;
    const std::string refs = referenceSteps(ex);
    EXPECT_TRUE(refs.empty()) << what << " on " << cpu::effectiveCpuIsa() << " runs reference kernels:\n" << refs;
}

// The zoo's networks that run (zoo:gpt3 is built for costing only), with default parameters.
std::vector<std::string> runnableZooNetworks()
{
    std::vector<std::string> refs;
    for (const auto& entry : zoo::catalogue())
        if (entry.name != "gpt3")
            refs.push_back("zoo:" + entry.name);
    return refs;
}

// model.onnx files under the test command's export folders (empty where they were not made); the
// exports with free input dimensions are left out (their fixed-size twins are there).
std::vector<std::string> exportedModels()
{
    namespace fs = std::filesystem;
    std::vector<std::string> files;
    for (const char* dir : { OPSCHED_TORCHVISION_DATA, OPSCHED_TRANSFORMER_DATA, OPSCHED_USER_MODEL_DATA }) {
        std::error_code ec;
        for (const auto& entry : fs::directory_iterator(dir, ec))
            if (fs::exists(entry.path() / "model.onnx", ec) && !entry.path().filename().string().ends_with("_dynamic"))
                files.push_back((entry.path() / "model.onnx").string());
    }
    std::sort(files.begin(), files.end());
    return files;
}

TEST(CpuIsa, FollowsTheLimitSet)
{
    const char* limit = std::getenv("ONEDNN_MAX_CPU_ISA");
    const std::string isa = cpu::effectiveCpuIsa();
    ASSERT_FALSE(isa.empty());
    if (!limit || !*limit) { // the machine's own: JIT code of some x86 ISA
        EXPECT_NE(isa, "any (no JIT)");
        return;
    }
    std::string want(limit);
    std::transform(want.begin(), want.end(), want.begin(), [](unsigned char c) { return std::tolower(c); });
    // Never above the limit (a machine below it runs its own best).
    if (want == "avx2") {
        EXPECT_NE(isa.rfind("avx512", 0), 0U) << "ONEDNN_MAX_CPU_ISA=" << limit << " but oneDNN runs " << isa;
    }
    if (want == "sse41") {
        EXPECT_EQ(isa, "sse41");
    }
}

class ZooKernels : public ::testing::TestWithParam<std::string> { };

TEST_P(ZooKernels, NoReferenceKernel)
{
    const Graph g = loadModel(GetParam());
    expectNoReferenceKernel(g, test::sequentialPlan(g), GetParam() + " (sequential)");
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooKernels, ::testing::ValuesIn(runnableZooNetworks()), [](const auto& param) {
    std::string name = param.param.substr(4);
    name.erase(std::remove_if(name.begin(), name.end(), [](char c) { return !std::isalnum(c); }), name.end());
    return name;
});

// Merged launches build other convolutions (stacked weights, more output channels) and GEMMs.
TEST(MergedKernels, IosMergePlansOfSmallNetworks)
{
    SimulatedStageCost cost(findSimDevice("sim:v100"));
    for (const char* ref : { "zoo:squeezenet", "zoo:googlenet" }) {
        const Graph g = loadModel(ref);
        expectNoReferenceKernel(g, runScheduler("ios-merge", g, cost).plan, std::string(ref) + " (ios-merge)");
    }
}

TEST(ExportedKernels, NoReferenceKernel)
{
    const auto files = exportedModels();
    if (files.empty())
        GTEST_SKIP() << "skipped: no exported test models in " << OPSCHED_TORCHVISION_DATA << " or "
                     << OPSCHED_TRANSFORMER_DATA << " (the test command makes them)";
    for (const auto& file : files) {
        const Graph g = loadModel(file);
        expectNoReferenceKernel(g, test::sequentialPlan(g), file);
    }
}

// The audit can fail: with the replacement switched off, NASNet's sums into the channel slices of
// its cells' concatenations run oneDNN's reference sum on every ISA, and the audit names them.
TEST(KernelAudit, ReportsReferenceKernelsWhenTheyAreNotAvoided)
{
    const Graph g = loadModel("zoo:nasnet_a");
    const cpu::CpuExecutor plain(g, test::sequentialPlan(g), oneThread(false));
    const std::string refs = referenceSteps(plain);
    EXPECT_NE(refs.find("sum ref"), std::string::npos) << "expected reference sums, got:\n" << refs;
    const cpu::CpuExecutor avoided(g, test::sequentialPlan(g), oneThread(true));
    EXPECT_EQ(referenceSteps(avoided), "");
    // Both compute the same values.
    const auto inputs = cpu::seededInputs(g, 5);
    cpu::CpuExecutor a(g, test::sequentialPlan(g), oneThread(false)), b(g, test::sequentialPlan(g), oneThread(true));
    EXPECT_LE(test::planError(b.run(inputs), a.run(inputs)), test::kPlanTolerance);
}

TEST(KernelNames, ReferenceImplementationsAreRecognised)
{
    EXPECT_TRUE(cpu::isReferenceImplementation("ref:any"));
    EXPECT_TRUE(cpu::isReferenceImplementation("convolution ref:any"));
    EXPECT_TRUE(cpu::isReferenceImplementation("sum ref_fused_convolution:any"));
    EXPECT_TRUE(cpu::isReferenceImplementation("batch_normalization bnorm_ref:any"));
    EXPECT_FALSE(cpu::isReferenceImplementation("batch_normalization ncsp_bnorm:any"));
    EXPECT_FALSE(cpu::isReferenceImplementation("convolution jit:avx2"));
    EXPECT_FALSE(cpu::isReferenceImplementation("convolution brgconv_1x1:avx512_core"));
    EXPECT_FALSE(cpu::isReferenceImplementation("inner_product x64:gemm:jit"));
    EXPECT_FALSE(cpu::isReferenceImplementation("reorder simple:any"));
    EXPECT_FALSE(cpu::isReferenceImplementation("host"));
}

} // namespace
