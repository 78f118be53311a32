// extractSubgraph: the inputs, outputs and weights of a set of ops, and a model split into
// subgraphs run one after another on the CPU executor gives the whole model's outputs.
#include "exec/cpu/cpu_executor.h"
#include "graph/subgraph.h"
#include "model/model_ref.h"
#include "plan/plan.h"
#include "schedule/basic_schedulers.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <unordered_map>

using namespace opsched;

namespace {

const char* kRwnn = "zoo:rwnn?gen=er&n=8&modules=2&channels=2&seed=3&res=32&width=8";

std::vector<std::vector<float>> runWhole(const Graph& g, const std::vector<std::vector<float>>& inputs)
{
    cpu::CpuExecutor ex(g, compileSchedule(g, sequentialSchedule(g)));
    return ex.run(inputs);
}

// Runs `parts` (each a set of ops, the sets in an order that follows the graph) one after another,
// passing values by original tensor id; returns the graph's outputs.
std::vector<std::vector<float>> runSplit(
    const Graph& g, const std::vector<std::vector<OpId>>& parts, const std::vector<std::vector<float>>& inputs)
{
    std::unordered_map<std::uint32_t, std::vector<float>> values;
    for (std::size_t k = 0; k < inputs.size(); ++k)
        values[g.inputs()[k].value()] = inputs[k];
    for (std::size_t p = 0; p < parts.size(); ++p) {
        const Subgraph sub = extractSubgraph(g, parts[p], "part" + std::to_string(p));
        std::vector<std::vector<float>> in;
        for (TensorId t : sub.inputs)
            in.push_back(values.at(t.value()));
        const Graph& sg = sub.graph;
        cpu::CpuExecutor ex(sg, compileSchedule(sg, sequentialSchedule(sg)));
        auto out = ex.run(in);
        EXPECT_EQ(out.size(), sub.outputs.size());
        for (std::size_t k = 0; k < out.size(); ++k)
            values[sub.outputs[k].value()] = std::move(out[k]);
    }
    std::vector<std::vector<float>> outs;
    for (TensorId t : g.outputs())
        outs.push_back(values.at(t.value()));
    return outs;
}

double relativeDiff(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b)
{
    if (a.size() != b.size())
        return INFINITY;
    double scale = 1.0, diff = 0.0;
    for (std::size_t k = 0; k < a.size(); ++k) {
        if (a[k].size() != b[k].size())
            return INFINITY;
        for (std::size_t i = 0; i < a[k].size(); ++i) {
            scale = std::max(scale, static_cast<double>(std::abs(b[k][i])));
            diff = std::max(diff, static_cast<double>(std::abs(a[k][i] - b[k][i])));
        }
    }
    return diff / scale;
}

// The ops (stored in topological order) cut at random into `count` contiguous runs: each run
// reads only graph inputs and earlier runs, so the runs can execute one after another.
std::vector<std::vector<OpId>> contiguousChunks(std::size_t n, std::size_t count, std::mt19937& rng)
{
    std::vector<std::size_t> cuts;
    for (std::size_t i = 1; i < n; ++i)
        cuts.push_back(i);
    std::shuffle(cuts.begin(), cuts.end(), rng);
    cuts.resize(std::min(cuts.size(), count - 1));
    std::sort(cuts.begin(), cuts.end());
    cuts.push_back(n);
    std::vector<std::vector<OpId>> parts;
    std::size_t begin = 0;
    for (std::size_t end : cuts) {
        auto& part = parts.emplace_back();
        for (std::size_t i = begin; i < end; ++i)
            part.emplace_back(i);
        begin = end;
    }
    return parts;
}

} // namespace

TEST(Subgraph, InputsOutputsAndWeightsOfASet)
{
    const Graph g = loadModel(kRwnn);
    std::mt19937 rng(7);
    for (int trial = 0; trial < 20; ++trial) {
        std::vector<OpId> set;
        for (std::size_t i = 0; i < g.opCount(); ++i)
            if (rng() % 3 == 0)
                set.emplace_back(i);
        if (set.empty())
            continue;
        const Subgraph sub = extractSubgraph(g, set, "s");
        std::vector<char> in(g.opCount(), 0);
        for (OpId op : set)
            in[op.value()] = 1;
        // Inputs: exactly the activations the set reads and does not produce.
        std::vector<std::uint32_t> want;
        for (OpId op : set)
            for (TensorId t : g.op(op).inputTensors())
                if (!g.tensor(t).producer.valid() || !in[g.tensor(t).producer.value()])
                    want.push_back(t.value());
        std::sort(want.begin(), want.end());
        want.erase(std::unique(want.begin(), want.end()), want.end());
        std::vector<std::uint32_t> got;
        for (TensorId t : sub.inputs)
            got.push_back(t.value());
        std::sort(got.begin(), got.end());
        EXPECT_EQ(got, want);
        ASSERT_EQ(sub.graph.inputs().size(), sub.inputs.size());
        for (std::size_t k = 0; k < sub.inputs.size(); ++k) {
            EXPECT_EQ(sub.graph.tensor(sub.graph.inputs()[k]).name, g.tensor(sub.inputs[k]).name);
            EXPECT_EQ(sub.graph.tensor(sub.graph.inputs()[k]).shape, g.tensor(sub.inputs[k]).shape);
        }
        // Outputs: produced in the set and read outside it or a graph output.
        for (OpId op : set) {
            const TensorId t = g.op(op).output;
            bool needed = std::find(g.outputs().begin(), g.outputs().end(), t) != g.outputs().end();
            for (OpId r : g.consumers(t))
                needed = needed || !in[r.value()];
            EXPECT_EQ(needed, std::find(sub.outputs.begin(), sub.outputs.end(), t) != sub.outputs.end())
                << g.op(op).name;
        }
        ASSERT_EQ(sub.graph.outputs().size(), sub.outputs.size());
        for (std::size_t k = 0; k < sub.outputs.size(); ++k)
            EXPECT_EQ(sub.graph.tensor(sub.graph.outputs()[k]).shape, g.tensor(sub.outputs[k]).shape);
        // Same ops, same weights (shared data), same costs.
        ASSERT_EQ(sub.graph.opCount(), set.size());
        for (std::size_t i = 0; i < set.size(); ++i) {
            const Op& a = sub.graph.ops()[i];
            const Op& b = g.op(set[i]);
            EXPECT_EQ(a.name, b.name);
            EXPECT_DOUBLE_EQ(a.cost.flops, b.cost.flops);
            ASSERT_EQ(a.layers.size(), b.layers.size());
            for (std::size_t l = 0; l < a.layers.size(); ++l) {
                ASSERT_EQ(a.layers[l].weights.size(), b.layers[l].weights.size());
                for (std::size_t w = 0; w < a.layers[l].weights.size(); ++w)
                    EXPECT_EQ(sub.graph.tensor(a.layers[l].weights[w]).weight, g.tensor(b.layers[l].weights[w]).weight);
            }
        }
    }
}

TEST(Subgraph, RefusesBadSets)
{
    const Graph g = loadModel(kRwnn);
    EXPECT_THROW(extractSubgraph(g, {}, "empty"), GraphError);
    EXPECT_THROW(extractSubgraph(g, { OpId(0), OpId(0) }, "twice"), GraphError);
    EXPECT_THROW(extractSubgraph(g, { OpId(g.opCount()) }, "range"), GraphError);
    // Op 1 reads op 0's output (the stem): listing 1 before 0 reads a value before its producer.
    ASSERT_FALSE(g.predecessors(OpId(1)).empty());
    const OpId pred(g.predecessors(OpId(1)).front());
    try {
        extractSubgraph(g, { OpId(1), pred }, "backwards");
        FAIL() << "a set listed against the graph's order was accepted";
    } catch (const GraphError& e) {
        EXPECT_NE(std::string(e.what()).find("before op"), std::string::npos) << e.what();
    }
}

TEST(Subgraph, SplitRunEqualsWholeRun)
{
    if (!cpu::cpuBackendAvailable())
        GTEST_SKIP() << "skipped: no CPU backend (oneDNN) in this build";
    std::mt19937 rng(11);
    for (const char* model : { kRwnn, "zoo:squeezenet", "zoo:random?ops=14&width=8&seed=5" }) {
        const Graph g = loadModel(model);
        const auto inputs = cpu::seededInputs(g, 3);
        const auto whole = runWhole(g, inputs);
        for (std::size_t count : { std::size_t { 1 }, std::size_t { 2 }, std::size_t { 5 }, g.opCount() }) {
            const auto parts = contiguousChunks(g.opCount(), count, rng);
            const auto split = runSplit(g, parts, inputs);
            // Not bit-equal: fused epilogues and layouts differ at the cuts (summation order).
            EXPECT_LT(relativeDiff(split, whole), 1e-5) << model << " in " << parts.size() << " parts";
        }
    }
}
