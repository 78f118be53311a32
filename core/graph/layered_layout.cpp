#include "graph/layered_layout.h"

#include "util/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace opsched {
namespace {

// The DAG with every long edge split into unit-length segments: items 0..n-1 are the DAG's nodes,
// the rest are virtual points. up/down hold each item's neighbours in the adjacent layers.
struct Proper {
    std::size_t realCount = 0;
    std::vector<std::uint32_t> layerOf;
    std::vector<std::vector<std::uint32_t>> up;
    std::vector<std::vector<std::uint32_t>> down;
    std::vector<std::vector<std::uint32_t>> chains; // per DAG edge (source-major): its virtual points

    std::size_t size() const { return layerOf.size(); }
    bool isVirtual(std::uint32_t item) const { return item >= realCount; }
};

std::vector<std::uint32_t> assignLayers(const Dag& dag)
{
    const auto order = topologicalOrder(dag);
    if (!order)
        throw std::invalid_argument("layeredLayout: the graph has a cycle");
    std::vector<std::uint32_t> layer(dag.size(), 0);
    for (auto v : *order)
        for (auto p : dag.predecessors[v])
            layer[v] = std::max(layer[v], layer[p] + 1);
    // Sources move down to just above their first successor (longest path puts them all at the top).
    for (std::uint32_t v = 0; v < dag.size(); ++v) {
        if (!dag.predecessors[v].empty() || dag.successors[v].empty())
            continue;
        std::uint32_t first = UINT32_MAX;
        for (auto s : dag.successors[v])
            first = std::min(first, layer[s]);
        layer[v] = first - 1;
    }
    return layer;
}

Proper makeProper(const Dag& dag, std::vector<std::uint32_t> layer)
{
    Proper g;
    g.realCount = dag.size();
    g.layerOf = std::move(layer);
    g.up.resize(g.realCount);
    g.down.resize(g.realCount);
    for (std::uint32_t u = 0; u < dag.size(); ++u) {
        for (auto v : dag.successors[u]) {
            std::vector<std::uint32_t> chain;
            std::uint32_t previous = u;
            for (std::uint32_t l = g.layerOf[u] + 1; l < g.layerOf[v]; ++l) {
                const auto item = static_cast<std::uint32_t>(g.size());
                g.layerOf.push_back(l);
                g.up.push_back({ previous });
                g.down.emplace_back();
                g.down[previous].push_back(item);
                chain.push_back(item);
                previous = item;
            }
            g.down[previous].push_back(v);
            g.up[v].push_back(previous);
            g.chains.push_back(std::move(chain));
        }
    }
    return g;
}

using Layers = std::vector<std::vector<std::uint32_t>>;

// Depth-first order from the sources: the initial order of every layer.
Layers initialOrder(const Proper& g, std::size_t layerCount)
{
    Layers layers(layerCount);
    std::vector<char> seen(g.size(), 0);
    std::vector<std::uint32_t> stack;
    for (std::uint32_t root = 0; root < g.realCount; ++root) {
        if (!g.up[root].empty() || seen[root])
            continue;
        stack.push_back(root);
        while (!stack.empty()) {
            const auto item = stack.back();
            stack.pop_back();
            if (seen[item])
                continue;
            seen[item] = 1;
            layers[g.layerOf[item]].push_back(item);
            const auto& next = g.down[item];
            for (auto it = next.rbegin(); it != next.rend(); ++it) // first successor is visited first
                if (!seen[*it])
                    stack.push_back(*it);
        }
    }
    return layers;
}

void updatePositions(const Layers& layers, std::vector<std::uint32_t>& pos)
{
    for (const auto& layer : layers)
        for (std::size_t i = 0; i < layer.size(); ++i)
            pos[layer[i]] = static_cast<std::uint32_t>(i);
}

// Crossings between layer l and l + 1: inversions among the segments sorted by their upper end
// (Barth, Juenger and Mutzel's accumulation with a Fenwick tree).
std::size_t crossingsBetween(const Proper& g, const std::vector<std::uint32_t>& upper, std::size_t lowerSize,
    const std::vector<std::uint32_t>& pos, std::vector<std::uint32_t>& scratch, std::vector<std::uint32_t>& tree)
{
    scratch.clear();
    for (auto a : upper) {
        const std::size_t first = scratch.size();
        for (auto b : g.down[a])
            scratch.push_back(pos[b]);
        std::sort(scratch.begin() + static_cast<std::ptrdiff_t>(first), scratch.end());
    }
    tree.assign(lowerSize + 1, 0);
    std::size_t crossings = 0;
    std::size_t inserted = 0;
    for (auto p : scratch) {
        // Count earlier segments whose lower end lies strictly right of p.
        std::size_t notGreater = 0;
        for (std::size_t i = p + 1; i > 0; i -= i & (~i + 1))
            notGreater += tree[i];
        crossings += inserted - notGreater;
        for (std::size_t i = p + 1; i <= lowerSize; i += i & (~i + 1))
            ++tree[i];
        ++inserted;
    }
    return crossings;
}

std::size_t totalCrossings(const Proper& g, const Layers& layers, const std::vector<std::uint32_t>& pos)
{
    std::vector<std::uint32_t> scratch, tree;
    std::size_t total = 0;
    for (std::size_t l = 0; l + 1 < layers.size(); ++l)
        total += crossingsBetween(g, layers[l], layers[l + 1].size(), pos, scratch, tree);
    return total;
}

// Reorders `layer` by the barycenter of each item's neighbours (`adjacent`) in the fixed layer;
// items without neighbours there keep their place.
void barycenterSort(std::vector<std::uint32_t>& layer, const std::vector<std::vector<std::uint32_t>>& adjacent,
    const std::vector<std::uint32_t>& pos)
{
    std::vector<std::pair<double, std::uint32_t>> keyed;
    keyed.reserve(layer.size());
    for (std::size_t i = 0; i < layer.size(); ++i) {
        const auto& nb = adjacent[layer[i]];
        double key = static_cast<double>(i);
        if (!nb.empty()) {
            double sum = 0;
            for (auto b : nb)
                sum += pos[b];
            key = sum / static_cast<double>(nb.size());
        }
        keyed.emplace_back(key, layer[i]);
    }
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t i = 0; i < layer.size(); ++i)
        layer[i] = keyed[i].second;
}

void reduceCrossings(const Proper& g, Layers& layers, std::vector<std::uint32_t>& pos, int sweeps, std::size_t& initial,
    std::size_t& best)
{
    initial = best = totalCrossings(g, layers, pos);
    Layers bestLayers = layers;
    int stale = 0;
    for (int s = 0; s < sweeps && best > 0 && stale < 2; ++s) {
        const std::size_t before = best;
        for (int direction = 0; direction < 2; ++direction) {
            if (direction == 0) {
                for (std::size_t l = 1; l < layers.size(); ++l) {
                    barycenterSort(layers[l], g.up, pos);
                    for (std::size_t i = 0; i < layers[l].size(); ++i)
                        pos[layers[l][i]] = static_cast<std::uint32_t>(i);
                }
            } else {
                for (std::size_t l = layers.size() - 1; l-- > 0;) {
                    barycenterSort(layers[l], g.down, pos);
                    for (std::size_t i = 0; i < layers[l].size(); ++i)
                        pos[layers[l][i]] = static_cast<std::uint32_t>(i);
                }
            }
            const std::size_t c = totalCrossings(g, layers, pos);
            if (c < best) {
                best = c;
                bestLayers = layers;
            }
        }
        stale = best < before ? 0 : stale + 1;
    }
    layers = std::move(bestLayers);
    updatePositions(layers, pos);
}

// Minimises sum w_i (x_i - target_i)^2 subject to x_{i+1} - x_i >= sep_i (pool adjacent violators
// on x_i - offset_i, which must be non-decreasing).
void placeLayer(const std::vector<double>& target, const std::vector<double>& weight, const std::vector<double>& sep,
    std::vector<double>& x)
{
    const std::size_t m = target.size();
    std::vector<double> offset(m, 0.0);
    for (std::size_t i = 1; i < m; ++i)
        offset[i] = offset[i - 1] + sep[i - 1];
    struct Block {
        double weight;
        double sum; // sum of w * t
        std::size_t count;
        double value() const { return sum / weight; }
    };
    std::vector<Block> blocks;
    blocks.reserve(m);
    for (std::size_t i = 0; i < m; ++i) {
        blocks.push_back({ weight[i], weight[i] * (target[i] - offset[i]), 1 });
        while (blocks.size() > 1 && blocks[blocks.size() - 2].value() > blocks.back().value()) {
            const Block last = blocks.back();
            blocks.pop_back();
            blocks.back().weight += last.weight;
            blocks.back().sum += last.sum;
            blocks.back().count += last.count;
        }
    }
    x.resize(m);
    std::size_t i = 0;
    for (const Block& b : blocks) {
        const double v = b.value();
        for (std::size_t k = 0; k < b.count; ++k, ++i)
            x[i] = v + offset[i];
    }
}

std::vector<double> assignX(const Proper& g, const Layers& layers, const LayeredLayoutOptions& o)
{
    auto half = [&](std::uint32_t item) { return g.isVirtual(item) ? 0.0 : o.nodeWidth / 2; };
    auto separation = [&](std::uint32_t a, std::uint32_t b) {
        // A box keeps nodeGap / 2 to an edge beside it, so two boxes keep nodeGap even with edges between.
        const bool va = g.isVirtual(a), vb = g.isVirtual(b);
        const double gap = va && vb ? o.edgeGap : va || vb ? std::max(o.edgeGap, o.nodeGap / 2) : o.nodeGap;
        return half(a) + half(b) + gap;
    };

    // Start packed, every layer centred on 0.
    std::vector<double> x(g.size(), 0.0);
    for (const auto& layer : layers) {
        double at = 0;
        for (std::size_t i = 0; i < layer.size(); ++i) {
            if (i > 0)
                at += separation(layer[i - 1], layer[i]);
            x[layer[i]] = at;
        }
        for (auto item : layer)
            x[item] -= at / 2;
    }

    std::vector<double> target, weight, sep, placed, values;
    // mode 0: towards the neighbours above; 1: below; 2: both.
    auto placeOne = [&](const std::vector<std::uint32_t>& layer, int mode) {
        const std::size_t m = layer.size();
        target.assign(m, 0.0);
        weight.assign(m, 0.0);
        sep.assign(m > 0 ? m - 1 : 0, 0.0);
        for (std::size_t i = 0; i < m; ++i) {
            const auto item = layer[i];
            values.clear();
            if (mode != 1)
                for (auto b : g.up[item])
                    values.push_back(x[b]);
            if (mode != 0)
                for (auto b : g.down[item])
                    values.push_back(x[b]);
            if (values.empty()) {
                target[i] = x[item]; // nothing pulls it: stay, but give way easily
                weight[i] = 0.05;
            } else {
                target[i] = median(values);
                // Priorities: long edges straight first, then the best-connected nodes.
                weight[i] = g.isVirtual(item) ? 8.0 : static_cast<double>(values.size());
            }
            if (i + 1 < m)
                sep[i] = separation(item, layer[i + 1]);
        }
        placeLayer(target, weight, sep, placed);
        for (std::size_t i = 0; i < m; ++i)
            x[layer[i]] = placed[i];
    };

    for (int s = 0; s < o.placementSweeps; ++s) {
        for (std::size_t l = 1; l < layers.size(); ++l)
            placeOne(layers[l], 0);
        for (std::size_t l = layers.size() - 1; l-- > 0;)
            placeOne(layers[l], 1);
    }
    for (std::size_t l = 0; l < layers.size(); ++l)
        placeOne(layers[l], 2);
    return x;
}

// Port offsets on a box side for `k` edges, left to right.
double portOffset(std::size_t i, std::size_t k, double width)
{
    if (k <= 1)
        return 0.0;
    const double step = std::min(0.15 * width, 0.6 * width / static_cast<double>(k - 1));
    return (static_cast<double>(i) - static_cast<double>(k - 1) / 2) * step;
}

} // namespace

LayeredLayout layeredLayout(const Dag& dag, const LayeredLayoutOptions& options)
{
    LayeredLayout out;
    out.options = options;
    const std::size_t n = dag.size();
    if (n == 0)
        return out;

    const Proper g = makeProper(dag, assignLayers(dag));
    std::size_t layerCount = 0;
    for (std::uint32_t v = 0; v < n; ++v)
        layerCount = std::max<std::size_t>(layerCount, g.layerOf[v] + 1);
    out.layerCount = layerCount;
    out.virtualPoints = g.size() - n;

    Layers layers = initialOrder(g, layerCount);
    std::vector<std::uint32_t> pos(g.size(), 0);
    updatePositions(layers, pos);
    reduceCrossings(g, layers, pos, options.crossingSweeps, out.initialCrossings, out.crossings);

    std::vector<double> x = assignX(g, layers, options);
    // Shift so that the leftmost box or edge starts at 0.
    double minX = 0, maxX = 0;
    bool first = true;
    for (std::uint32_t item = 0; item < g.size(); ++item) {
        const double h = g.isVirtual(item) ? 0.0 : options.nodeWidth / 2;
        minX = first ? x[item] - h : std::min(minX, x[item] - h);
        maxX = first ? x[item] + h : std::max(maxX, x[item] + h);
        first = false;
    }
    for (double& v : x)
        v -= minX;
    out.width = maxX - minX;
    const double pitch = options.nodeHeight + options.layerGap;
    out.height = static_cast<double>(layerCount) * pitch - options.layerGap;
    auto layerTop = [&](std::uint32_t l) { return static_cast<double>(l) * pitch; };

    out.nodes.resize(n);
    for (std::uint32_t v = 0; v < n; ++v)
        out.nodes[v] = { g.layerOf[v], pos[v], x[v], layerTop(g.layerOf[v]) + options.nodeHeight / 2 };

    // Ports: the edges leaving (entering) a node are spread along its bottom (top) side in the
    // order of their other ends, so they neither cross each other nor share an arrowhead.
    auto portIndex = [&](const std::vector<std::uint32_t>& adjacent, std::uint32_t other) {
        std::size_t left = 0;
        for (auto b : adjacent)
            left += pos[b] < pos[other];
        return left;
    };
    out.edges.reserve(g.chains.size());
    std::size_t e = 0;
    for (std::uint32_t u = 0; u < n; ++u) {
        for (auto v : dag.successors[u]) {
            const auto& chain = g.chains[e++];
            const std::uint32_t firstHop = chain.empty() ? v : chain.front();
            const std::uint32_t lastHop = chain.empty() ? u : chain.back();
            LayoutEdge edge;
            edge.from = u;
            edge.to = v;
            edge.points.reserve(2 + 2 * chain.size());
            edge.points.push_back(
                { x[u] + portOffset(portIndex(g.down[u], firstHop), g.down[u].size(), options.nodeWidth),
                    layerTop(g.layerOf[u]) + options.nodeHeight });
            for (auto item : chain) {
                edge.points.push_back({ x[item], layerTop(g.layerOf[item]) });
                edge.points.push_back({ x[item], layerTop(g.layerOf[item]) + options.nodeHeight });
            }
            edge.points.push_back({ x[v] + portOffset(portIndex(g.up[v], lastHop), g.up[v].size(), options.nodeWidth),
                layerTop(g.layerOf[v]) });
            out.edges.push_back(std::move(edge));
        }
    }
    return out;
}

std::size_t countCrossings(const LayeredLayout& layout)
{
    const double pitch = layout.options.nodeHeight + layout.options.layerGap;
    struct Segment {
        double top;
        double bottom;
    };
    std::vector<std::vector<Segment>> between(layout.layerCount);
    for (const LayoutEdge& edge : layout.edges)
        for (std::size_t i = 0; i + 1 < edge.points.size(); ++i) {
            const LayoutPoint& a = edge.points[i];
            const LayoutPoint& b = edge.points[i + 1];
            // Only the runs from one layer's bottom to the next layer's top (not the vertical
            // runs of long edges through a layer).
            const double l = std::round((a.y - layout.options.nodeHeight) / pitch);
            const bool fromBottom = std::abs(a.y - (l * pitch + layout.options.nodeHeight)) < 1e-6;
            const bool toNextTop = std::abs(b.y - (l + 1) * pitch) < 1e-6;
            if (fromBottom && toNextTop && l >= 0 && static_cast<std::size_t>(l) < between.size())
                between[static_cast<std::size_t>(l)].push_back({ a.x, b.x });
        }
    std::size_t crossings = 0;
    for (const auto& segments : between)
        for (std::size_t i = 0; i < segments.size(); ++i)
            for (std::size_t j = i + 1; j < segments.size(); ++j)
                if ((segments[i].top - segments[j].top) * (segments[i].bottom - segments[j].bottom) < 0)
                    ++crossings;
    return crossings;
}

} // namespace opsched
