// The CUDA executor against the naive reference (tests/cpu/reference.h) on small graphs of every
// layer kind, at batch 1 (in-place concats and slices) and 2 (copies), with TF32 off: max relative
// error 1e-3. Skipped visibly without a device; the refusal without one is tested everywhere.
#include "cpu/reference.h"
#include "cuda_test_support.h"
#include "exec/cpu/cpu_executor.h"
#include "graph/graph_builder.h"
#include "model/model_ref.h"
#include "schedule/basic_schedulers.h"
#include "support/test_layers.h"
#include "util/error.h"
#include "zoo/net_builder.h"

#include <ostream>

using namespace opsched;

using opsched::test::conv;
using opsched::test::ConvCase;
using opsched::test::layer;
using opsched::test::PoolCase;

namespace {

const gpu::CudaOptions kNoTf32 { 0, false, {} };

void expectMatchesReference(const Graph& g, const Plan* plan = nullptr)
{
    const Plan sequential = compileSchedule(g, sequentialSchedule(g));
    const auto inputs = cpu::seededInputs(g, 5);
    gpu::CudaExecutor ex(g, plan ? *plan : sequential, kNoTf32);
    const auto got = ex.run(inputs);
    EXPECT_LE(test::maxRelativeError(got, test::referenceRun(g, inputs)), 1e-3) << g.name();
    EXPECT_EQ(ex.run(inputs), got) << g.name() << ": a second replay differs";
}

TEST(CudaExecutor, RefusesClearlyWithoutADevice)
{
    const Graph g = loadModel("zoo:squeezenet");
    const Plan plan = compileSchedule(g, sequentialSchedule(g));
    if (test::whyNoCuda().empty()) {
        // With a device: an index past the last one is refused by name.
        gpu::CudaOptions options;
        options.device = 99;
        try {
            gpu::CudaExecutor ex(g, plan, options);
            FAIL() << "cuda:99 was accepted";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("cuda:99"), std::string::npos) << e.what();
        }
        return;
    }
    try {
        gpu::CudaExecutor ex(g, plan);
        FAIL() << "the executor started without a device";
    } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_TRUE(
            what.find("no CUDA device") != std::string::npos || what.find("no CUDA backend") != std::string::npos)
            << what;
    }
}

class CudaConvLayers : public ::testing::TestWithParam<ConvCase> { };

TEST_P(CudaConvLayers, MatchReference)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    expectMatchesReference(opsched::test::graphOf(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Cuda, CudaConvLayers, ::testing::ValuesIn(opsched::test::convCases()),
    [](const auto& param) { return std::string(param.param.name); });

class CudaPoolLayers : public ::testing::TestWithParam<PoolCase> { };

TEST_P(CudaPoolLayers, MatchReference)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    expectMatchesReference(opsched::test::graphOf(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Cuda, CudaPoolLayers, ::testing::ValuesIn(opsched::test::poolCases()),
    [](const auto& param) { return std::string(param.param.name); });

TEST(CudaLayers, StandaloneEltwiseOfEveryKind)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    for (auto act : { Activation::relu(), Activation::relu6(), Activation { ActivationKind::Sigmoid },
             Activation { ActivationKind::HardSigmoid, 0.25F, 0.4F }, Activation { ActivationKind::HardSwish },
             Activation { ActivationKind::Tanh } }) {
        GraphBuilder b(std::string("eltwise_") + toString(act.kind), 3);
        const auto x = b.addInput("x", Shape { 2, 3, 4, 5 });
        const auto y
            = b.addOp({ "act", OpKind::Activation, { { x } }, { layer(Eltwise { act }, { ActivationKind::Tanh }) } });
        b.addOp({ "act2", OpKind::Activation, { { y } }, { layer(Eltwise { act }) } });
        expectMatchesReference(std::move(b).finish());
    }
}

TEST(CudaLayers, MultiplyBroadcasts)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    GraphBuilder b("multiply", 3);
    const auto x = b.addInput("x", Shape { 2, 4, 5, 5 });
    const auto s = b.addInput("s", Shape { 2, 4, 1, 1 });
    const auto r = b.addInput("r", Shape { 4, 1, 1 });
    const auto row = b.addInput("row", Shape { 2, 1, 5, 1 });
    const auto col = b.addInput("col", Shape { 2, 4, 1, 5 });
    b.addOp({ "se", OpKind::Multiply, { { s }, { x }, { r } }, { layer(Multiply {}, { ActivationKind::Sigmoid }) } });
    b.addOp({ "outer", OpKind::Multiply, { { row }, { col } }, { layer(Multiply {}) } });
    expectMatchesReference(std::move(b).finish());
}

TEST(CudaLayers, SumsAndConcatsAtBatchOneAndTwo)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    for (std::int64_t batch : { 1, 2 }) {
        zoo::NetBuilder b("combine_b" + std::to_string(batch), 3);
        const auto x = b.input("x", Shape { batch, 3, 6, 6 });
        const auto a = b.conv("a", { { x } }, 4, 3, 1, 1);
        const auto c = b.conv("c", { { x } }, 4, 1);
        const auto d = b.conv("d", { { x } }, 5, 1);
        const auto sum = b.combine("sum", { { a, c } });
        const auto cat = b.combine("cat", { { a, c }, { x }, { d }, { sum } });
        const auto e = b.conv("e", { { cat }, { d } }, 3, 3, 1, 1);
        b.combine("cat2", { { e }, { d }, { b.conv("f", { { x } }, 2, 1) } });
        // Ten summed tensors: more than one kernel's worth of sources.
        InputTerm many;
        for (int k = 0; k < 10; ++k)
            many.push_back(k % 2 ? a : c);
        b.combine("sum10", { many });
        expectMatchesReference(std::move(b).finish());
    }
}

TEST(CudaLayers, GemmSoftmaxAndViews)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    for (std::int64_t batch : { 1, 2 }) {
        GraphBuilder b("gemm_b" + std::to_string(batch), 3);
        const auto x = b.addInput("x", Shape { batch, 3, 4, 4 });
        const auto c = b.addOp({ "conv", OpKind::Conv, { { x } }, { layer(conv(4, 3, 3, 1, 1), Activation::relu()) } });
        const auto flat = b.addOp({ "flatten", OpKind::Reshape, { { c } }, { layer(Flatten { 1 }) } });
        const auto fc = b.addOp({ "fc", OpKind::Gemm, { { flat } }, { layer(Gemm { 10, true }, Activation::relu()) } });
        const auto fc2 = b.addOp({ "fc2", OpKind::Gemm, { { c } }, { layer(Gemm { 6, false }) } });
        b.addOp({ "softmax", OpKind::Softmax, { { fc } }, { layer(Softmax { 1 }) } });
        const auto r = b.addOp({ "reshape", OpKind::Reshape, { { fc2 } }, { layer(Reshape { { 0, 6, 1, 1 } }) } });
        const auto id = b.addOp({ "identity", OpKind::Identity, { { r } }, { layer(Identity {}) } });
        b.addOp({ "softmax4d", OpKind::Softmax, { { id } }, { layer(Softmax { 1 }) } });
        b.addOp({ "identity_act", OpKind::Identity, { { r } }, { layer(Identity {}, { ActivationKind::Tanh }) } });
        b.addOp({ "gemm_reshape", OpKind::Gemm, { { c } },
            { layer(Gemm { 8, true }), layer(Reshape { { 0, 2, 2, 2 } }) } });
        b.addOp({ "flatten_gemm", OpKind::Gemm, { { c } },
            { layer(Flatten { 1 }), layer(Gemm { 3, true }, Activation::relu6()) } });
        b.addOp({ "cat_views", OpKind::Concat, { { flat }, { fc2 } }, { layer(Identity {}) } });
        expectMatchesReference(std::move(b).finish());
    }
}

TEST(CudaLayers, CompoundsOverSumsAndConcats)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    for (std::int64_t batch : { 1, 2 }) {
        zoo::NetBuilder b("compounds_b" + std::to_string(batch), 3);
        const auto x = b.input("x", Shape { batch, 4, 7, 7 });
        const auto rc = b.reluConv("relu_conv", { { x } }, 6, 3, 2, 1);
        const auto sep = b.reluSepConv("relu_sep_conv", { { x }, { x } }, 6, 3, 2, 1);
        const auto pooled = b.avgPool("avg", { { rc, sep } }, 3, 1, 1);
        b.fullyConnected("fc", { { pooled } }, 5);
        b.globalAvgPool("gap", { { b.relu("relu", { { sep } }) }, { pooled } });
        expectMatchesReference(std::move(b).finish());
    }
}

TEST(CudaLayers, ConcurrentStreamsWithBarriersAndWaits)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    // Two branches on two streams, joined by an event, then a barrier: the stream program and the
    // concurrency-safe arena under a hand-made plan.
    zoo::NetBuilder b("two_streams", 3);
    const auto x = b.input("x", Shape { 1, 8, 16, 16 });
    TensorId p = x, q = x;
    for (int i = 1; i <= 3; ++i) {
        p = b.conv("a" + std::to_string(i), { { p } }, 8, 3, 1, 1);
        q = b.conv("b" + std::to_string(i), { { q } }, 8, 3, 1, 1);
    }
    const auto j = b.combine("join", { { p }, { q } });
    b.conv("tail", { { j } }, 4, 1);
    const Graph g = std::move(b).finish();
    auto id = [&](const char* n) { return *g.findOp(n); };
    Plan plan;
    plan.streams = 2;
    plan.launches = { { { id("a1") }, StreamId(0U), {} }, { { id("b1") }, StreamId(1U), {} },
        { { id("a2") }, StreamId(0U), {} }, { { id("b2") }, StreamId(1U), {} }, { { id("a3") }, StreamId(0U), {} },
        { { id("b3") }, StreamId(1U), {} }, { { id("join") }, StreamId(0U), { 5 } },
        { { id("tail") }, StreamId(1U), {} } };
    plan.barriers = { 7 };
    expectMatchesReference(g, &plan);
}

} // namespace
