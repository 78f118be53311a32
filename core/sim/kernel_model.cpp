#include "sim/kernel_model.h"

#include <algorithm>
#include <cmath>

namespace opsched {
namespace {

double ceilDiv(double a, double b)
{
    return std::ceil(a / b);
}

// Implicit-GEMM convolution: M = N*Ho*Wo rows, Cout columns, 64x64 tiles of 4 warps; a long
// reduction (K = Cin/g*kh*kw) is split across blocks, as library kernels do when tiles are few.
double convWarps(const Shape& out, double reduction)
{
    const double m = static_cast<double>(out.batch() * out.height() * out.width());
    const double tiles = ceilDiv(m, 64.0) * ceilDiv(static_cast<double>(out.channels()), 64.0);
    const double splitK = std::clamp(std::floor(reduction / 256.0), 1.0, 8.0);
    return 4.0 * tiles * (tiles < 64.0 ? splitK : 1.0);
}

// Element-wise style kernels: 4 elements per thread.
double elementWarps(const Shape& out)
{
    return std::max(1.0, ceilDiv(static_cast<double>(out.elements()), 4.0 * 32.0));
}

KernelDesc layerKernel(const Layer& layer)
{
    KernelDesc k;
    k.flops = layer.cost.flops;
    k.bytes = layer.cost.bytes();
    if (const auto* c = std::get_if<Conv2d>(&layer.params)) {
        const bool depthwise = c->groups > 1 && c->groups == c->outChannels;
        const double reduction = layer.output.elements() > 0
                                     ? layer.cost.flops / (2.0 * static_cast<double>(layer.output.elements()))
                                     : 1.0;
        k.warps = depthwise ? elementWarps(layer.output) : convWarps(layer.output, reduction);
    } else if (const auto* g = std::get_if<Gemm>(&layer.params)) {
        // GEMV-like at small batch: a warp per 4 outputs.
        k.warps = std::max(1.0, ceilDiv(static_cast<double>(layer.output.elements()), 4.0));
        (void)g;
    } else {
        k.warps = elementWarps(layer.output);
    }
    k.memoryBound = k.flops < 8.0 * k.bytes; // arithmetic intensity below ~8 FLOP/byte
    return k;
}

bool isViewLayer(const Layer& l)
{
    return std::holds_alternative<Flatten>(l.params) || std::holds_alternative<Reshape>(l.params);
}

KernelDesc mergedConvKernel(const Graph& graph, const std::vector<OpId>& ops)
{
    // Stacked weights: every kernel padded to the largest height and width.
    std::int64_t kh = 1, kw = 1, cout = 0;
    for (auto id : ops) {
        const auto& c = std::get<Conv2d>(graph.op(id).layers.front().params);
        kh = std::max(kh, c.kernelH);
        kw = std::max(kw, c.kernelW);
        cout += c.outChannels;
    }
    const Op& first = graph.op(ops.front());
    const Shape& out0 = graph.tensor(first.output).shape;
    // All merged convs read the same input (mergeProblem checks it): read it once.
    double inBytes = 0;
    for (auto t : first.inputTensors())
        inBytes += static_cast<double>(graph.tensor(t).bytes());
    const double inChannels = static_cast<double>(graph.tensor(first.layers.front().weights.front()).shape[1]);
    const double m = static_cast<double>(out0.batch() * out0.height() * out0.width());
    KernelDesc k;
    k.flops = 2.0 * m * static_cast<double>(cout) * inChannels * static_cast<double>(kh * kw) + m * static_cast<double>(cout);
    const double weights = static_cast<double>(cout) * inChannels * static_cast<double>(kh * kw) * 4.0;
    k.bytes = inBytes + weights + m * static_cast<double>(cout) * 4.0;
    Shape stacked = out0;
    stacked.dims[1] = cout;
    k.warps = convWarps(stacked, inChannels * static_cast<double>(kh * kw));
    k.memoryBound = k.flops < 8.0 * k.bytes;
    return k;
}

} // namespace

std::vector<KernelDesc> kernelsOf(const Graph& graph, const std::vector<OpId>& ops)
{
    if (ops.size() > 1)
        return {mergedConvKernel(graph, ops)};
    std::vector<KernelDesc> out;
    const Op& op = graph.op(ops.front());
    // A plain concatenation is a view: its producers write straight into slices of its output
    // (the executors' memory plan does the same), so it launches nothing.
    const bool plainConcat = op.kind == OpKind::Concat &&
                             std::all_of(op.inputs.begin(), op.inputs.end(), [](const auto& t) { return t.size() == 1; });
    if (plainConcat)
        return out;
    for (const auto& layer : op.layers)
        if (!isViewLayer(layer) || layer.cost.bytes() > 0)
            out.push_back(layerKernel(layer));
    return out;
}

double demandedLanes(const KernelDesc& k, const SimDevice& device)
{
    return std::clamp(k.warps, 1.0, device.lanes());
}

double soloSeconds(const KernelDesc& k, const SimDevice& device)
{
    const double share = demandedLanes(k, device) / device.lanes();
    // Memory traffic saturates with fewer warps in flight than arithmetic does.
    const double memShare = std::min(1.0, 2.0 * share);
    const double compute = k.flops / (device.peakFlops * device.computeEfficiency * share);
    const double memory = k.bytes / (device.memoryBandwidth * device.memoryEfficiency * memShare);
    return std::max(compute, memory);
}

} // namespace opsched
