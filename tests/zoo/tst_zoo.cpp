// Built-in networks through model references: sizes as in IOS Table 2, shapes, parameters, errors,
// and the `info` summary.
#include "support/dag_test_support.h"

#include "graph/reachability.h"
#include "graph/width.h"
#include "model/model_ref.h"
#include "report/model_summary.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include <unistd.h>

using namespace opsched;

namespace {

struct Expected {
    const char* ref;
    std::size_t ios; // IOS Table 2
    std::size_t ops; // what the zoo builds today
    Shape output;
};

const Expected kNetworks[] = {
    { "zoo:inception_v3", 119, 120, { 1, 1000 } },
    { "zoo:randwire", 120, 121, { 1, 1000 } },
    { "zoo:nasnet_a", 374, 375, { 1, 1000 } },
    { "zoo:squeezenet", 50, 50, { 1, 1000, 1, 1 } },
    { "zoo:googlenet", 81, 81, { 1, 1000 } },
};

std::map<OpKind, std::size_t> kindCounts(const Graph& g)
{
    std::map<OpKind, std::size_t> counts;
    for (const auto& op : g.ops())
        ++counts[op.kind];
    return counts;
}

Shape shapeOf(const Graph& g, const std::string& opName)
{
    const auto id = g.findOp(opName);
    if (!id)
        throw std::runtime_error("no op " + opName + " in " + g.name());
    return g.tensor(g.op(*id).output).shape;
}

// loadModel(ref, batch) must throw ModelRefError whose message contains every one of `parts`.
void expectRefError(const std::string& ref, std::vector<std::string> parts, std::int64_t batch = 1)
{
    try {
        loadModel(ref, batch);
        ADD_FAILURE() << "no ModelRefError for " << ref;
    } catch (const ModelRefError& e) {
        for (const auto& part : parts)
            EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
                << ref << ": message lacks '" << part << "': " << e.what();
    }
}

bool sameStructure(const Graph& a, const Graph& b)
{
    if (a.opCount() != b.opCount())
        return false;
    for (std::size_t i = 0; i < a.opCount(); ++i)
        if (a.ops()[i].name != b.ops()[i].name || a.ops()[i].inputs != b.ops()[i].inputs)
            return false;
    return a.dag().successors == b.dag().successors;
}

} // namespace

TEST(Zoo, OpCountsAndOutputs)
{
    for (const auto& n : kNetworks) {
        const Graph g = loadModel(n.ref);
        EXPECT_EQ(g.opCount(), n.ops) << n.ref;
        EXPECT_LE(
            std::abs(static_cast<double>(g.opCount()) - static_cast<double>(n.ios)), 0.05 * static_cast<double>(n.ios))
            << n.ref << " has " << g.opCount() << " ops, IOS counts " << n.ios;
        EXPECT_EQ(g.batch(), 1);
        ASSERT_EQ(g.outputs().size(), 1U) << n.ref;
        EXPECT_EQ(g.tensor(g.outputs()[0]).shape, n.output) << n.ref;
        EXPECT_GT(g.totalFlops(), 0.0) << n.ref;
        EXPECT_GT(g.weightCount(), 0) << n.ref;
    }
}

TEST(Zoo, OpKinds)
{
    const auto inception = kindCounts(loadModel("zoo:inception_v3"));
    EXPECT_GT(inception.at(OpKind::Conv), 60U);
    EXPECT_EQ(inception.count(OpKind::ReluSepConv), 0U);
    EXPECT_EQ(inception.at(OpKind::Gemm), 1U);
    EXPECT_EQ(inception.at(OpKind::Concat), 11U);

    for (const char* ref : { "zoo:randwire", "zoo:nasnet_a" }) {
        const Graph g = loadModel(ref);
        const auto kinds = kindCounts(g);
        const auto sep = kinds.at(OpKind::ReluSepConv);
        EXPECT_GT(2 * sep, g.opCount()) << ref << ": ReluSepConv is not the majority";
        for (const auto& [kind, count] : kinds)
            EXPECT_LE(count, sep) << ref << ": " << toString(kind) << " outnumbers ReluSepConv";
    }
    EXPECT_GT(kindCounts(loadModel("zoo:randwire")).at(OpKind::ReluSepConv), 100U);
}

TEST(Zoo, Widths)
{
    EXPECT_EQ(computeWidth(loadModel("zoo:inception_v3").dag()).width, 6U);
    EXPECT_EQ(computeWidth(loadModel("zoo:squeezenet").dag()).width, 3U);
    EXPECT_EQ(computeWidth(loadModel("zoo:googlenet").dag()).width, 4U);
}

TEST(Zoo, IntermediateShapes)
{
    const Graph inception = loadModel("zoo:inception_v3");
    EXPECT_EQ(shapeOf(inception, "Mixed_5b.concat"), (Shape { 1, 256, 35, 35 }));
    EXPECT_EQ(shapeOf(inception, "Mixed_6a.concat"), (Shape { 1, 768, 17, 17 }));
    EXPECT_EQ(shapeOf(inception, "Mixed_7c.concat"), (Shape { 1, 2048, 8, 8 }));

    const Graph nasnet = loadModel("zoo:nasnet_a");
    EXPECT_EQ(shapeOf(nasnet, "cell_0.concat"), (Shape { 1, 1008, 42, 42 }));
    EXPECT_EQ(shapeOf(nasnet, "cell_6.concat"), (Shape { 1, 2016, 21, 21 }));
    EXPECT_EQ(shapeOf(nasnet, "cell_12.concat"), (Shape { 1, 4032, 11, 11 }));
    EXPECT_EQ(shapeOf(nasnet, "cell_17.concat"), (Shape { 1, 4032, 11, 11 }));
}

TEST(Zoo, BatchChangesShapes)
{
    const Graph one = loadModel("zoo:inception_v3");
    const Graph four = loadModel("zoo:inception_v3", 4);
    EXPECT_EQ(four.batch(), 4);
    EXPECT_EQ(four.opCount(), one.opCount());
    EXPECT_EQ(four.tensor(four.outputs()[0]).shape, (Shape { 4, 1000 }));
    EXPECT_EQ(shapeOf(four, "Mixed_5b.concat"), (Shape { 4, 256, 35, 35 }));
    EXPECT_EQ(four.weightCount(), one.weightCount());
    EXPECT_NEAR(four.totalFlops(), 4.0 * one.totalFlops(), 1e-9 * four.totalFlops());
    EXPECT_EQ(loadModel("zoo:squeezenet", 4).tensor(loadModel("zoo:squeezenet", 4).outputs()[0]).shape,
        (Shape { 4, 1000, 1, 1 }));
}

TEST(Zoo, RandWireSeeds)
{
    const Graph s1 = loadModel("zoo:randwire?seed=1");
    const Graph s1again = loadModel("zoo:randwire?seed=1");
    const Graph s2 = loadModel("zoo:randwire?seed=2");
    EXPECT_TRUE(sameStructure(s1, s1again));
    EXPECT_TRUE(sameStructure(s1, loadModel("zoo:randwire"))); // seed 1 is the default
    EXPECT_FALSE(sameStructure(s1, s2));
    EXPECT_DOUBLE_EQ(s1.totalFlops(), s1again.totalFlops());
}

TEST(Zoo, RandomDagHasExactlyTheRequestedOps)
{
    for (int ops : { 1, 2, 7, 50, 333 })
        for (int width : { 1, 3, 16 }) {
            const std::string ref = "zoo:random?ops=" + std::to_string(ops) + "&width=" + std::to_string(width)
                + "&seed=" + std::to_string(ops + width);
            const Graph g = loadModel(ref);
            EXPECT_EQ(g.opCount(), static_cast<std::size_t>(ops)) << ref;
            if (width == 1) {
                EXPECT_EQ(computeWidth(g.dag()).width, 1U) << ref;
            }
        }
    EXPECT_TRUE(sameStructure(loadModel("zoo:random?ops=40&seed=5"), loadModel("zoo:random?seed=5&ops=40")));
    EXPECT_FALSE(sameStructure(loadModel("zoo:random?ops=40&seed=5"), loadModel("zoo:random?ops=40&seed=6")));
}

TEST(Zoo, BadReferencesThrowHelpfulErrors)
{
    expectRefError("zoo:alexnet", { "alexnet", "inception_v3", "randwire" });
    expectRefError("zoo:randwire?depth=3", { "depth", "seed" });
    expectRefError("zoo:inception_v3?seed=3", { "seed", "takes none" });
    expectRefError("zoo:randwire?seed=abc", { "seed", "abc", "not an integer" });
    expectRefError("zoo:random?ops=12x", { "ops", "not an integer" });
    expectRefError("zoo:random?ops=", { "ops", "not an integer" });
    expectRefError("zoo:random?ops", { "key=value" });
    expectRefError("zoo:random?ops=0", { "ops", "0" });
    expectRefError("zoo:random?width=0", { "width", "0" });
    expectRefError("zoo:random?ops=-5", { "ops" });
    expectRefError("zoo:inception_v3", { "batch", "0" }, 0);
    expectRefError("zoo:googlenet", { "batch" }, -2);
}

TEST(Zoo, FilePaths)
{
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("opsched_tst_zoo_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path onnx = dir / "model.onnx";
    const fs::path other = dir / "model.txt";
    std::ofstream(onnx) << "not really onnx";
    std::ofstream(other) << "hello";
    expectRefError(onnx.string(), { "ONNX", onnx.string() });
    expectRefError(other.string(), { "unknown model format" });
    expectRefError((dir / "missing.onnx").string(), { "missing.onnx", "neither" });
    fs::remove_all(dir);
}

TEST(Zoo, SummaryOfInception)
{
    const Graph g = loadModel("zoo:inception_v3");
    const ModelSummary s = summarize(g);
    EXPECT_EQ(s.width, 6U);
    EXPECT_EQ(s.antichain.size(), 6U);
    EXPECT_EQ(s.ops, g.opCount());
    double biggest = 0;
    for (const auto& op : g.ops())
        biggest = std::max(biggest, op.cost.flops);
    EXPECT_LE(s.criticalPathFlops, s.flops);
    EXPECT_GE(s.criticalPathFlops, biggest);
    EXPECT_DOUBLE_EQ(s.flops, g.totalFlops());
    // The critical path is a real path whose FLOPs add up.
    double sum = 0;
    for (std::size_t i = 0; i < s.criticalPath.size(); ++i) {
        sum += g.op(s.criticalPath[i]).cost.flops;
        if (i + 1 < s.criticalPath.size()) {
            const auto succ = g.successors(s.criticalPath[i]);
            EXPECT_NE(std::find(succ.begin(), succ.end(), s.criticalPath[i + 1].value()), succ.end());
        }
    }
    EXPECT_NEAR(sum, s.criticalPathFlops, 1e-6 * sum);

    const auto doc = modelInfoJson(g, s);
    for (const char* key : { "model", "batch", "ops", "width", "blocks", "critical_path_flops" })
        EXPECT_TRUE(doc.contains(key)) << key;
    EXPECT_EQ(doc["model"], "inception_v3");
    EXPECT_EQ(doc["batch"], 1);
    ASSERT_TRUE(doc["ops"].is_array());
    EXPECT_EQ(doc["ops"].size(), g.opCount());
    EXPECT_EQ(doc["width"], 6);
    EXPECT_EQ(doc["blocks"], s.blocks.blocks.size());
    EXPECT_EQ(doc["ops"][0]["name"], g.ops()[0].name);
    EXPECT_FALSE(modelInfoText(g, s).empty());
}

// --- Transformers -------------------------------------------------------------------------------

namespace {

struct TransformerExpected {
    const char* ref;
    std::size_t ops;
    std::vector<Shape> outputs;
    double minWeights, maxWeights; // parameters, as the published models (less unused positions)
};

const TransformerExpected kTransformers[] = {
    { "zoo:bert", 269, { { 1, 128, 768 }, { 1, 1, 768 } }, 105e6, 112e6 }, // BERT-base: 110M
    { "zoo:gpt2", 282, { { 1, 128, 50257 } }, 120e6, 126e6 }, // GPT-2 small: 124M
    { "zoo:t5", 373, { { 1, 128, 32128 } }, 58e6, 63e6 }, // T5-small: 60.5M
    { "zoo:vit", 272, { { 1, 1000 } }, 85e6, 88e6 }, // ViT-B/16: 86.6M
};

std::size_t countKind(const Graph& g, OpKind kind)
{
    const auto counts = kindCounts(g);
    const auto it = counts.find(kind);
    return it == counts.end() ? 0 : it->second;
}

} // namespace

TEST(ZooTransformers, OpCountsOutputsAndParameters)
{
    for (const auto& n : kTransformers) {
        const Graph g = loadModel(n.ref);
        EXPECT_EQ(g.opCount(), n.ops) << n.ref;
        ASSERT_EQ(g.outputs().size(), n.outputs.size()) << n.ref;
        for (std::size_t i = 0; i < n.outputs.size(); ++i)
            EXPECT_EQ(g.tensor(g.outputs()[i]).shape, n.outputs[i]) << n.ref << " output " << i;
        EXPECT_GE(static_cast<double>(g.weightCount()), n.minWeights) << n.ref;
        EXPECT_LE(static_cast<double>(g.weightCount()), n.maxWeights) << n.ref;
        EXPECT_GT(g.totalFlops(), 1e9) << n.ref;
    }
}

TEST(ZooTransformers, OneOpPerKernel)
{
    // BERT: 8 GEMMs per layer (Q, K, V, scores, context, output, two FFN) and the pooler; one
    // softmax per layer; the embedding LN and two per layer; no Conv.
    const Graph bert = loadModel("zoo:bert");
    EXPECT_EQ(countKind(bert, OpKind::MatMul), 12U * 8 + 1);
    EXPECT_EQ(countKind(bert, OpKind::Softmax), 12U);
    EXPECT_EQ(countKind(bert, OpKind::LayerNorm), 1U + 12 * 2);
    EXPECT_EQ(countKind(bert, OpKind::Gather), 1U);
    EXPECT_EQ(countKind(bert, OpKind::Transpose), 12U * 4);
    EXPECT_EQ(countKind(bert, OpKind::Conv), 0U);
    // GELU is the first FFN GEMM's fused activation, not an op.
    const Op& fc1 = bert.op(*bert.findOp("l0.ffn.fc1"));
    EXPECT_EQ(fc1.lastLayer().activation.kind, ActivationKind::Gelu);
    EXPECT_EQ(countKind(bert, OpKind::Gelu), 0U);

    // GPT-2: a causal mask added in every layer, tanh GELU, the head tied to the token table.
    const Graph gpt2 = loadModel("zoo:gpt2");
    EXPECT_EQ(gpt2.op(*gpt2.findOp("l0.ffn.fc1")).lastLayer().activation.kind, ActivationKind::GeluTanh);
    const Op& mask = gpt2.op(*gpt2.findOp("l11.attn.bias"));
    EXPECT_EQ(gpt2.tensor(mask.layers.front().weights.front()).shape, (Shape { 1, 1, 128, 128 }));
    const Op& head = gpt2.op(*gpt2.findOp("lm_head"));
    const Op& lookup = gpt2.op(*gpt2.findOp("embeddings.lookup"));
    EXPECT_EQ(head.layers.front().weights.front(), lookup.layers.front().weights.front());

    // T5: RMS norms, no score scaling, a relative position bias per stack, cross-attention.
    const Graph t5 = loadModel("zoo:t5");
    EXPECT_EQ(countKind(t5, OpKind::Softmax), 6U + 6 * 2);
    EXPECT_EQ(countKind(t5, OpKind::Multiply), 0U);
    EXPECT_TRUE(std::get<LayerNorm>(t5.op(*t5.findOp("encoder.l0.ln1")).layers.front().params).rms);
    EXPECT_EQ(shapeOf(t5, "decoder.l5.cross.scores"), (Shape { 1, 8, 128, 128 }));
    const Op& bias = t5.op(*t5.findOp("decoder.l3.attn.bias"));
    EXPECT_EQ(t5.tensor(bias.layers.front().weights.front()).shape, (Shape { 1, 8, 128, 128 }));
    EXPECT_EQ(t5.inputs().size(), 2U);

    // ViT: a 16x16 stride-16 patch conv, 196 patches and a class token.
    const Graph vit = loadModel("zoo:vit");
    EXPECT_EQ(countKind(vit, OpKind::Conv), 1U);
    EXPECT_EQ(shapeOf(vit, "patch_embed"), (Shape { 1, 768, 14, 14 }));
    EXPECT_EQ(shapeOf(vit, "embeddings.add"), (Shape { 1, 197, 768 }));
}

TEST(ZooTransformers, AttentionShapes)
{
    const Graph g = loadModel("zoo:bert");
    EXPECT_EQ(shapeOf(g, "l0.attn.q"), (Shape { 1, 128, 768 }));
    EXPECT_EQ(shapeOf(g, "l0.attn.q.t"), (Shape { 1, 12, 128, 64 }));
    EXPECT_EQ(shapeOf(g, "l0.attn.k.t"), (Shape { 1, 12, 64, 128 }));
    EXPECT_EQ(shapeOf(g, "l0.attn.scores"), (Shape { 1, 12, 128, 128 }));
    EXPECT_EQ(shapeOf(g, "l0.attn.context"), (Shape { 1, 12, 128, 64 }));
    EXPECT_EQ(shapeOf(g, "l0.attn.context.merge"), (Shape { 1, 128, 768 }));
    EXPECT_EQ(shapeOf(g, "l0.ffn.fc1"), (Shape { 1, 128, 3072 }));
    // Q, K and V are three ops side by side: no path joins them.
    const auto q = *g.findOp("l0.attn.q"), k = *g.findOp("l0.attn.k"), v = *g.findOp("l0.attn.v");
    EXPECT_EQ(g.predecessors(q).size(), 1U);
    EXPECT_EQ(g.predecessors(q)[0], g.predecessors(k)[0]);
    EXPECT_EQ(g.predecessors(q)[0], g.predecessors(v)[0]);
    EXPECT_GE(computeWidth(g.dag()).width, 3U);
}

TEST(ZooTransformers, SeqAndLayersParameters)
{
    const Graph short64 = loadModel("zoo:bert?seq=64&layers=2");
    EXPECT_EQ(short64.opCount(), 3U + 2 * 22 + 2);
    EXPECT_EQ(shapeOf(short64, "l1.attn.scores"), (Shape { 1, 12, 64, 64 }));
    EXPECT_FALSE(short64.findOp("l2.attn.q").has_value());
    EXPECT_EQ(short64.tensor(short64.outputs()[0]).shape, (Shape { 1, 64, 768 }));

    const Graph gpt = loadModel("zoo:gpt2?layers=3&seq=32");
    EXPECT_EQ(gpt.opCount(), 2U + 3 * 23 + 1 + 3);
    EXPECT_EQ(gpt.tensor(gpt.outputs()[0]).shape, (Shape { 1, 32, 50257 }));

    const Graph t5 = loadModel("zoo:t5?layers=1&seq=16");
    EXPECT_EQ(t5.opCount(), (1U + 22 + 1) + (1 + 39 + 1 + 3));
    EXPECT_EQ(shapeOf(t5, "encoder.l0.attn.bias"), (Shape { 1, 8, 16, 16 }));

    const Graph vit = loadModel("zoo:vit?layers=1");
    EXPECT_EQ(vit.opCount(), 5U + 22 + 3);
    EXPECT_EQ(
        loadModel("zoo:bert?seq=1").tensor(loadModel("zoo:bert?seq=1").outputs()[0]).shape, (Shape { 1, 1, 768 }));
}

TEST(ZooTransformers, Rebatching)
{
    for (const char* ref : { "zoo:bert?layers=2", "zoo:gpt2?layers=2", "zoo:t5?layers=2", "zoo:vit?layers=2" }) {
        const Graph one = loadModel(ref);
        const Graph four = loadModel(ref, 4);
        const Graph rebatched = one.withBatch(4);
        EXPECT_EQ(four.batch(), 4) << ref;
        EXPECT_EQ(rebatched.batch(), 4) << ref;
        ASSERT_EQ(rebatched.opCount(), four.opCount()) << ref;
        for (std::size_t i = 0; i < four.opCount(); ++i) {
            EXPECT_EQ(rebatched.tensor(rebatched.ops()[i].output).shape, four.tensor(four.ops()[i].output).shape)
                << ref << " " << four.ops()[i].name;
            EXPECT_DOUBLE_EQ(rebatched.ops()[i].cost.flops, four.ops()[i].cost.flops)
                << ref << " " << four.ops()[i].name;
        }
        EXPECT_EQ(four.weightCount(), one.weightCount()) << ref;
        EXPECT_NEAR(four.totalFlops(), 4.0 * one.totalFlops(), 1e-9 * four.totalFlops()) << ref;
        EXPECT_EQ(four.tensor(four.outputs()[0]).shape.batch(), 4) << ref;
    }
}

TEST(ZooTransformers, WeightsKeepActivationsAtUnitScale)
{
    const Graph g = loadModel("zoo:gpt2?layers=1");
    // The first `count` values (all when 0): the embedding table alone is 38.6M floats.
    auto values = [&](const std::string& op, std::size_t layer, std::size_t w, std::size_t count = 0) {
        const Tensor& t = g.tensor(g.op(*g.findOp(op)).layers[layer].weights[w]);
        return t.weight->values(count ? count : static_cast<std::size_t>(t.shape.elements()));
    };
    auto meanAndMax = [](const std::vector<float>& v) {
        double sum = 0, most = 0;
        for (float x : v) {
            sum += x;
            most = std::max(most, static_cast<double>(std::abs(x)));
        }
        return std::pair { sum / static_cast<double>(v.size()), most };
    };
    const auto [scaleMean, scaleMax] = meanAndMax(values("l0.ln1", 0, 0));
    EXPECT_NEAR(scaleMean, 1.0, 0.02);
    EXPECT_LE(scaleMax, 1.1 + 1e-6);
    const auto [biasMean, biasMax] = meanAndMax(values("l0.ln1", 0, 1));
    EXPECT_LE(biasMax, 0.1 + 1e-6);
    (void)biasMean;
    // Embedding rows have unit variance; a linear layer's weight is uniform in +-sqrt(3/K).
    const auto table = values("embeddings.lookup", 0, 0, 768 * 100);
    double square = 0;
    for (std::size_t i = 0; i < 768 * 100; ++i)
        square += static_cast<double>(table[i]) * table[i];
    EXPECT_NEAR(square / (768 * 100), 1.0, 0.05);
    EXPECT_NEAR(meanAndMax(values("l0.attn.q", 0, 0)).second, std::sqrt(3.0 / 768), 1e-3);
    // The causal mask blocks every later key and nothing else.
    const auto mask = values("l0.attn.bias", 0, 0);
    EXPECT_EQ(mask[0 * 128 + 0], 0.0F);
    EXPECT_LT(mask[0 * 128 + 1], -1000.0F);
    EXPECT_EQ(mask[127 * 128 + 126], 0.0F);
}

TEST(ZooTransformers, BadParametersAreRefused)
{
    expectRefError("zoo:bert?seq=0", { "zoo:bert", "seq", "between 1 and 512", "got 0" });
    expectRefError("zoo:bert?seq=513", { "seq", "512", "513" });
    expectRefError("zoo:gpt2?seq=1025", { "zoo:gpt2", "seq", "1024" });
    expectRefError("zoo:t5?layers=0", { "zoo:t5", "layers", "got 0" });
    expectRefError("zoo:bert?layers=-3", { "layers", "-3" });
    expectRefError("zoo:gpt2?layers=many", { "layers", "many", "not an integer" });
    expectRefError("zoo:vit?seq=128", { "zoo:vit", "seq", "layers" });
    expectRefError("zoo:bert?heads=16", { "heads", "seq, layers" });
    expectRefError("zoo:bert", { "batch" }, 0);
}

TEST(ZooGpt3, HalfPrecisionHalvesTheBytesAndKeepsTheWork)
{
    // One layer: 1.81 G parameters (4 d^2 + 2 d d_ff + biases and norms) in 4 or 2 bytes each.
    const Graph fp32 = loadModel("zoo:gpt3?layers=1&tokens=20");
    const Graph fp16 = loadModel("zoo:gpt3?layers=1&tokens=20&dtype=fp16");
    const auto weightBytes = [](const Graph& g) {
        double bytes = 0;
        for (const Tensor& t : g.tensors())
            if (t.role == TensorRole::Weight)
                bytes += static_cast<double>(t.bytes());
        return bytes;
    };
    EXPECT_NEAR(weightBytes(fp32) / 1073741824.0, 6.75, 0.01); // GiB: 648 for 96 layers
    EXPECT_DOUBLE_EQ(weightBytes(fp16), weightBytes(fp32) / 2);
    ASSERT_EQ(fp32.opCount(), fp16.opCount());
    for (std::uint32_t i = 0; i < fp32.opCount(); ++i) {
        const Op& a = fp32.op(OpId(i));
        const Op& b = fp16.op(OpId(i));
        EXPECT_DOUBLE_EQ(b.cost.flops, a.cost.flops) << a.name;
        EXPECT_DOUBLE_EQ(b.cost.bytes(), a.cost.bytes() / 2) << a.name;
    }
    // Rebatched (the throughput and batch objectives do), it stays in half precision.
    EXPECT_DOUBLE_EQ(weightBytes(fp16.withBatch(4)), weightBytes(fp16));
    EXPECT_THROW(loadModel("zoo:gpt3?layers=1&dtype=int8"), Error);
}
