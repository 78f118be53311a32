// Built-in networks through model references: sizes as in IOS Table 2, shapes, parameters, errors,
// and the `info` summary.
#include "dag_test_support.h"

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
    std::size_t ios;   // IOS Table 2
    std::size_t ops;   // what the zoo builds today
    Shape output;
};

const Expected kNetworks[] = {
    {"zoo:inception_v3", 119, 120, {1, 1000}},
    {"zoo:randwire", 120, 121, {1, 1000}},
    {"zoo:nasnet_a", 374, 375, {1, 1000}},
    {"zoo:squeezenet", 50, 50, {1, 1000, 1, 1}},
    {"zoo:googlenet", 81, 81, {1, 1000}},
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
        EXPECT_LE(std::abs(static_cast<double>(g.opCount()) - static_cast<double>(n.ios)), 0.05 * static_cast<double>(n.ios))
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

    for (const char* ref : {"zoo:randwire", "zoo:nasnet_a"}) {
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
    EXPECT_EQ(shapeOf(inception, "Mixed_5b.concat"), (Shape{1, 256, 35, 35}));
    EXPECT_EQ(shapeOf(inception, "Mixed_6a.concat"), (Shape{1, 768, 17, 17}));
    EXPECT_EQ(shapeOf(inception, "Mixed_7c.concat"), (Shape{1, 2048, 8, 8}));

    const Graph nasnet = loadModel("zoo:nasnet_a");
    EXPECT_EQ(shapeOf(nasnet, "cell_0.concat"), (Shape{1, 1008, 42, 42}));
    EXPECT_EQ(shapeOf(nasnet, "cell_6.concat"), (Shape{1, 2016, 21, 21}));
    EXPECT_EQ(shapeOf(nasnet, "cell_12.concat"), (Shape{1, 4032, 11, 11}));
    EXPECT_EQ(shapeOf(nasnet, "cell_17.concat"), (Shape{1, 4032, 11, 11}));
}

TEST(Zoo, BatchChangesShapes)
{
    const Graph one = loadModel("zoo:inception_v3");
    const Graph four = loadModel("zoo:inception_v3", 4);
    EXPECT_EQ(four.batch(), 4);
    EXPECT_EQ(four.opCount(), one.opCount());
    EXPECT_EQ(four.tensor(four.outputs()[0]).shape, (Shape{4, 1000}));
    EXPECT_EQ(shapeOf(four, "Mixed_5b.concat"), (Shape{4, 256, 35, 35}));
    EXPECT_EQ(four.weightCount(), one.weightCount());
    EXPECT_NEAR(four.totalFlops(), 4.0 * one.totalFlops(), 1e-9 * four.totalFlops());
    EXPECT_EQ(loadModel("zoo:squeezenet", 4).tensor(loadModel("zoo:squeezenet", 4).outputs()[0]).shape,
              (Shape{4, 1000, 1, 1}));
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
    for (int ops : {1, 2, 7, 50, 333})
        for (int width : {1, 3, 16}) {
            const std::string ref = "zoo:random?ops=" + std::to_string(ops) + "&width=" + std::to_string(width) +
                                    "&seed=" + std::to_string(ops + width);
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
    expectRefError("zoo:alexnet", {"alexnet", "inception_v3", "randwire"});
    expectRefError("zoo:randwire?depth=3", {"depth", "seed"});
    expectRefError("zoo:inception_v3?seed=3", {"seed", "takes none"});
    expectRefError("zoo:randwire?seed=abc", {"seed", "abc", "not an integer"});
    expectRefError("zoo:random?ops=12x", {"ops", "not an integer"});
    expectRefError("zoo:random?ops=", {"ops", "not an integer"});
    expectRefError("zoo:random?ops", {"key=value"});
    expectRefError("zoo:random?ops=0", {"ops", "0"});
    expectRefError("zoo:random?width=0", {"width", "0"});
    expectRefError("zoo:random?ops=-5", {"ops"});
    expectRefError("zoo:inception_v3", {"batch", "0"}, 0);
    expectRefError("zoo:googlenet", {"batch"}, -2);
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
    expectRefError(onnx.string(), {"ONNX", onnx.string()});
    expectRefError(other.string(), {"unknown model format"});
    expectRefError((dir / "missing.onnx").string(), {"missing.onnx", "neither"});
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
    for (const char* key : {"model", "batch", "ops", "width", "blocks", "critical_path_flops"})
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
