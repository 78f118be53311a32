// RandWire (Xie et al. 2019), the regular-regime network IOS benchmarks: a stride-2 conv, four
// random stages of WS(4, 0.75) graphs (16, 32, 32, 32 nodes; C = 154 doubling per stage), then a
// 1x1 conv to 1280 and the classifier. Every node sums its inputs and runs ReLU-SepConv 3x3;
// nodes without predecessors read the stage input with stride 2, and the stage output sums the
// nodes without successors.
#include "zoo/net_builder.h"
#include "zoo/networks.h"
#include "zoo/watts_strogatz.h"

#include "util/random.h"

namespace opsched::zoo {
namespace {

TensorId stage(NetBuilder& b, const std::string& s, TensorId x, std::int64_t channels, int nodes, std::uint64_t seed)
{
    const auto g = wattsStrogatz(nodes, 4, 0.75, seed);
    std::vector<std::vector<int>> preds(static_cast<std::size_t>(nodes));
    std::vector<bool> hasSucc(static_cast<std::size_t>(nodes), false);
    for (auto [u, v] : g.edges) {
        preds[static_cast<std::size_t>(v)].push_back(u);
        hasSucc[static_cast<std::size_t>(u)] = true;
    }
    // Edges point from lower to higher index, so index order is topological.
    std::vector<TensorId> out(static_cast<std::size_t>(nodes));
    InputTerm sinks;
    for (int v = 0; v < nodes; ++v) {
        const auto& p = preds[static_cast<std::size_t>(v)];
        const std::string name = s + ".node" + std::to_string(v);
        if (p.empty()) {
            out[static_cast<std::size_t>(v)] = b.reluSepConv(name, { { x } }, channels, 3, 2, 1);
        } else {
            InputTerm sum;
            for (int u : p)
                sum.push_back(out[static_cast<std::size_t>(u)]);
            out[static_cast<std::size_t>(v)] = b.reluSepConv(name, { sum }, channels, 3, 1, 1);
        }
        if (!hasSucc[static_cast<std::size_t>(v)])
            sinks.push_back(out[static_cast<std::size_t>(v)]);
    }
    return b.combine(s + ".output", { sinks });
}

} // namespace

Graph randWire(std::int64_t batch, std::uint64_t seed)
{
    constexpr std::int64_t c = 154;
    NetBuilder b("randwire", hashString("randwire-weights", seed));
    auto x = b.input("input", Shape { batch, 3, 224, 224 });
    x = b.conv("conv1", { { x } }, c / 2, 3, 2, 1, Activation::none());
    const int nodes[] = { 16, 32, 32, 32 };
    for (int i = 0; i < 4; ++i) {
        const std::string name = "stage" + std::to_string(i + 2);
        x = stage(b, name, x, c << i, nodes[i], hashString(name, seed));
    }
    x = b.relu("relu", { { x } });
    x = b.conv("conv_head", { { x } }, 1280, 1, 1, 0, Activation::none());
    x = b.globalAvgPool("avgpool", { { x } });
    b.fullyConnected("fc", { { x } }, 1000);
    return std::move(b).finish();
}

} // namespace opsched::zoo
