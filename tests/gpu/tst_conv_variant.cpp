// How convolutions run on the GPU, chosen at run time (exec/cuda/conv_variant.h): the option's
// parsing everywhere; on a device, every variant gives the reference's outputs on every conv case
// and on squeezenet (skipped visibly without one).
#include "cpu/reference.h"
#include "cuda_test_support.h"
#include "exec/cpu/cpu_executor.h"
#include "exec/cuda/conv_variant.h"
#include "model/model_ref.h"
#include "schedule/basic_schedulers.h"
#include "support/test_layers.h"
#include "util/error.h"

#include <gtest/gtest.h>

using namespace opsched;
using gpu::ConvVariant;

namespace {

TEST(ConvVariant, ParsesEveryKeyAndKeepsDefaults)
{
    EXPECT_EQ(gpu::parseConvVariant(""), ConvVariant {});
    const ConvVariant v = gpu::parseConvVariant("epilogue=separate,algo=heuristic,workspace-mb=64");
    EXPECT_EQ(v.epilogue, ConvVariant::Epilogue::Separate);
    EXPECT_EQ(v.algo, ConvVariant::Algo::Heuristic);
    EXPECT_EQ(v.workspaceBytes, std::int64_t { 64 } << 20);
    const ConvVariant only = gpu::parseConvVariant("algo=heuristic");
    EXPECT_EQ(only.epilogue, ConvVariant::Epilogue::Fused);
    EXPECT_EQ(only.workspaceBytes, std::int64_t { 256 } << 20);
    EXPECT_EQ(gpu::parseConvVariant("workspace-mb=0").workspaceBytes, 0);
    // The canonical form reads back.
    for (const ConvVariant& w : { ConvVariant {}, v, only })
        EXPECT_EQ(gpu::parseConvVariant(gpu::toString(w)), w) << gpu::toString(w);
    EXPECT_EQ(gpu::toString(ConvVariant {}), "epilogue=fused,algo=find,workspace-mb=256");
}

TEST(ConvVariant, RefusesWhatItDoesNotKnowByName)
{
    const std::pair<const char*, const char*> bad[] = {
        { "epilogue=fast", "epilogue is fused or separate" },
        { "algo=best", "algo is find or heuristic" },
        { "workspace-mb=-1", "workspace-mb" },
        { "workspace-mb=12x", "workspace-mb" },
        { "workspace-mb=99999999", "workspace-mb" },
        { "layout=nhwc", "unknown key 'layout'" },
        { "separate", "is not KEY=VALUE" },
    };
    for (const auto& [text, message] : bad) {
        try {
            gpu::parseConvVariant(text);
            ADD_FAILURE() << text << " was accepted";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << text << ": " << e.what();
        }
    }
}

std::vector<ConvVariant> everyVariant()
{
    std::vector<ConvVariant> all;
    for (auto epilogue : { ConvVariant::Epilogue::Fused, ConvVariant::Epilogue::Separate })
        for (auto algo : { ConvVariant::Algo::Find, ConvVariant::Algo::Heuristic }) {
            ConvVariant v;
            v.epilogue = epilogue;
            v.algo = algo;
            all.push_back(v);
        }
    ConvVariant small;
    small.workspaceBytes = 0; // only algorithms that need no workspace
    all.push_back(small);
    return all;
}

TEST(ConvVariant, EveryVariantMatchesTheReferenceOnAGpu)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    const Graph net = loadModel("zoo:squeezenet");
    const auto netInputs = cpu::seededInputs(net, 7);
    const auto netReference = test::referenceRun(net, netInputs); // once: the naive reference is slow
    const Plan netPlan = compileSchedule(net, sequentialSchedule(net));
    for (const ConvVariant& v : everyVariant()) {
        gpu::CudaOptions options;
        options.tf32 = false;
        options.conv = v;
        for (const auto& c : test::convCases()) {
            const Graph g = test::graphOf(c);
            const auto inputs = cpu::seededInputs(g, 5);
            gpu::CudaExecutor ex(g, compileSchedule(g, sequentialSchedule(g)), options);
            EXPECT_LE(test::maxRelativeError(ex.run(inputs), test::referenceRun(g, inputs)), 1e-3)
                << gpu::toString(v) << ", " << c.name;
        }
        gpu::CudaExecutor ex(net, netPlan, options);
        EXPECT_LE(test::maxRelativeError(ex.run(netInputs), netReference), 1e-3) << gpu::toString(v);
    }
}

} // namespace
