// Randomly wired modules stacked into one network, as the DiviML paper evaluates its mappers:
// each module is a random graph (WS(4, 0.75), ER(0.2) or BA(5)) of Relu-SepConv 3x3 nodes, edges
// from lower to higher node index, and consecutive modules are joined by C channels (edges from C
// output nodes of one module to C input nodes of the next).
//
// sdep ("all paths stem from an input and converge to an output"): the inputs are nodes 0..C-1,
// the outputs the C last nodes; every other source reads input (v mod C) and every other sink
// feeds output n-C + (v mod C). wdep ("inputs and outputs sampled at random"): node 0 and C-1
// random nodes are the inputs, node n-1 and C-1 random nodes the outputs; every other source reads
// a random input of lower index, every other sink feeds a random output of higher index (node 0
// and node n-1 always qualify). With one channel both are the same: a module's single output is
// a bridge to the next module's single input, so MILP-SPLIT's separators fall between modules.
#include "zoo/net_builder.h"
#include "zoo/networks.h"
#include "zoo/random_graphs.h"

#include "util/error.h"
#include "util/random.h"

#include <algorithm>

namespace opsched::zoo {
namespace {

UndirectedGraph moduleGraph(const RwnnParams& p, std::uint64_t seed)
{
    switch (p.generator) {
    case RwnnParams::Generator::WattsStrogatz:
        return wattsStrogatz(p.nodes, 4, 0.75, seed);
    case RwnnParams::Generator::ErdosRenyi:
        return erdosRenyi(p.nodes, 0.2, seed);
    case RwnnParams::Generator::BarabasiAlbert:
        return barabasiAlbert(p.nodes, 5, seed);
    }
    return {};
}

// `count` distinct nodes: `fixed` and count-1 random others from [lo, hi), sorted.
std::vector<int> pickNodes(SplitMix64& rng, int count, int fixed, int lo, int hi)
{
    std::vector<int> out { fixed };
    while (static_cast<int>(out.size()) < count) {
        const int v = lo + static_cast<int>(rng.below(static_cast<std::uint64_t>(hi - lo)));
        if (std::find(out.begin(), out.end(), v) == out.end())
            out.push_back(v);
    }
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

Graph rwnn(std::int64_t batch, const RwnnParams& p)
{
    const int n = p.nodes, c = p.channels;
    if (p.modules < 1 || p.modules > 64)
        throw ModelRefError("zoo:rwnn: modules must be between 1 and 64, got " + std::to_string(p.modules));
    if (n < 2 || n > 256)
        throw ModelRefError("zoo:rwnn: n (nodes per module) must be between 2 and 256, got " + std::to_string(n));
    if (c < 1 || 2 * c > n)
        throw ModelRefError(
            "zoo:rwnn: channels must be between 1 and n/2 (" + std::to_string(n / 2) + "), got " + std::to_string(c));
    if (p.generator == RwnnParams::Generator::WattsStrogatz && n <= 4)
        throw ModelRefError("zoo:rwnn: gen=ws needs n > 4");
    if (p.generator == RwnnParams::Generator::BarabasiAlbert && n <= 5)
        throw ModelRefError("zoo:rwnn: gen=ba needs n > 5");
    if (p.width < 1 || p.width > 4096 || p.resolution < 8 || p.resolution > 1024)
        throw ModelRefError("zoo:rwnn: width must be 1-4096 and res 8-1024");

    NetBuilder b("rwnn", hashString("rwnn-weights", p.seed));
    auto x = b.input("input", Shape { batch, 3, p.resolution, p.resolution });
    x = b.conv("stem1", { { x } }, p.width / 2 > 0 ? p.width / 2 : 1, 3, 2, 1);
    x = b.conv("stem2", { { x } }, p.width, 3, 2, 1);

    std::vector<TensorId> previousOutputs(static_cast<std::size_t>(c), x);
    for (int m = 0; m < p.modules; ++m) {
        const std::string prefix = "m" + std::to_string(m);
        SplitMix64 rng(hashString(prefix, p.seed));
        const auto g = moduleGraph(p, rng.next());
        std::vector<std::vector<int>> preds(static_cast<std::size_t>(n));
        std::vector<bool> hasSucc(static_cast<std::size_t>(n), false);
        for (auto [u, v] : g.edges) {
            preds[static_cast<std::size_t>(v)].push_back(u);
            hasSucc[static_cast<std::size_t>(u)] = true;
        }
        std::vector<int> inputs, outputs;
        if (p.strongDependency) {
            for (int i = 0; i < c; ++i) {
                inputs.push_back(i);
                outputs.push_back(n - c + i);
            }
        } else {
            inputs = pickNodes(rng, c, 0, 1, n);
            outputs = pickNodes(rng, c, n - 1, 0, n - 1);
        }
        auto isIn
            = [](const std::vector<int>& set, int v) { return std::find(set.begin(), set.end(), v) != set.end(); };
        for (int v = 0; v < n; ++v) {
            if (!preds[static_cast<std::size_t>(v)].empty() || isIn(inputs, v))
                continue;
            int from = inputs[static_cast<std::size_t>(v % c)];
            if (!p.strongDependency) {
                std::vector<int> lower;
                for (int i : inputs)
                    if (i < v)
                        lower.push_back(i);
                from = lower[rng.below(lower.size())];
            }
            preds[static_cast<std::size_t>(v)].push_back(from);
            hasSucc[static_cast<std::size_t>(from)] = true;
        }
        std::vector<std::vector<int>> extraPreds(static_cast<std::size_t>(n));
        for (int v = 0; v < n; ++v) {
            if (hasSucc[static_cast<std::size_t>(v)] || isIn(outputs, v))
                continue;
            int to = outputs[static_cast<std::size_t>(v % c)];
            if (!p.strongDependency) {
                std::vector<int> higher;
                for (int o : outputs)
                    if (o > v)
                        higher.push_back(o);
                to = higher[rng.below(higher.size())];
            }
            extraPreds[static_cast<std::size_t>(to)].push_back(v);
        }
        std::vector<TensorId> out(static_cast<std::size_t>(n));
        for (int v = 0; v < n; ++v) {
            InputTerm sum;
            for (int u : preds[static_cast<std::size_t>(v)])
                sum.push_back(out[static_cast<std::size_t>(u)]);
            for (int u : extraPreds[static_cast<std::size_t>(v)])
                sum.push_back(out[static_cast<std::size_t>(u)]);
            const auto in = std::find(inputs.begin(), inputs.end(), v);
            if (in != inputs.end())
                sum.push_back(previousOutputs[static_cast<std::size_t>(in - inputs.begin())]);
            std::sort(sum.begin(), sum.end());
            sum.erase(std::unique(sum.begin(), sum.end()), sum.end());
            out[static_cast<std::size_t>(v)]
                = b.reluSepConv(prefix + ".n" + std::to_string(v), { sum }, p.width, 3, 1, 1);
        }
        for (int i = 0; i < c; ++i)
            previousOutputs[static_cast<std::size_t>(i)]
                = out[static_cast<std::size_t>(outputs[static_cast<std::size_t>(i)])];
    }
    InputTerm last(previousOutputs.begin(), previousOutputs.end());
    x = last.size() > 1 ? b.combine("head.sum", { last }) : last.front();
    x = b.globalAvgPool("head.avgpool", { { x } });
    b.fullyConnected("head.fc", { { x } }, 1000);
    return std::move(b).finish();
}

} // namespace opsched::zoo
