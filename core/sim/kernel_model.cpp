#include "sim/kernel_model.h"

#include <algorithm>
#include <cmath>

namespace opsched {
namespace {

double ceilDiv(double a, double b)
{
    return std::ceil(a / b);
}

// A (batched) GEMM: `batch` independent [m x k] x [k x n] products.
struct GemmShape {
    double batch = 1, m = 1, n = 1, k = 1;
};

// 64x64 output tiles of 4 warps, per batch entry; a long reduction is split across blocks (up to
// 8, one per 256 of k) when tiles are few, as library kernels do. FP32 without tensor cores: the
// device's peakFlops is what a tile computes at.
double gemmWarps(const GemmShape& g)
{
    const double tiles = g.batch * ceilDiv(g.m, 64.0) * ceilDiv(g.n, 64.0);
    const double splitK = std::clamp(std::floor(g.k / 256.0), 1.0, 8.0);
    return 4.0 * tiles * (tiles < 64.0 ? splitK : 1.0);
}

// Implicit-GEMM convolution: M = N*Ho*Wo rows, Cout columns, K = Cin/g*kh*kw.
double convWarps(const Shape& out, double reduction)
{
    const double m = static_cast<double>(out.batch() * out.height() * out.width());
    return gemmWarps({ 1.0, m, static_cast<double>(out.channels()), reduction });
}

// Element-wise style kernels: 4 elements per thread.
double elementWarps(const Shape& out)
{
    return std::max(1.0, ceilDiv(static_cast<double>(out.elements()), 4.0 * 32.0));
}

// Row-wise kernels (softmax, layer norm): a warp per row of up to 1024 elements, longer rows a
// block of one warp per 1024 elements (up to 32).
double rowWarps(const Shape& out, std::int64_t rowLength)
{
    const double length = static_cast<double>(std::max<std::int64_t>(rowLength, 1));
    const double rows = static_cast<double>(out.elements()) / length;
    return std::max(1.0, rows * std::clamp(ceilDiv(length, 1024.0), 1.0, 32.0));
}

// GEMMs with a few rows (a fully connected layer at small batch) run as GEMV-like kernels: a warp
// per 4 outputs.
double matrixWarps(const GemmShape& g)
{
    if (g.batch * g.m <= 8.0)
        return std::max(1.0, ceilDiv(g.batch * g.m * g.n, 4.0));
    return gemmWarps(g);
}

// MatMul operands: the op's terms, then the layer's weights (an operand layer is an op's first);
// a bias, the third, is added in the GEMM's epilogue.
GemmShape matMulShape(const Graph& graph, const Op& op, const Layer& layer)
{
    std::vector<Shape> operands;
    for (const auto& term : op.inputs)
        operands.push_back(graph.tensor(term.front()).shape);
    for (auto w : layer.weights)
        operands.push_back(graph.tensor(w).shape);
    GemmShape g;
    if (operands.size() < 2)
        return g;
    const Shape& a = operands[0];
    const Shape& b = operands[1];
    g.k = static_cast<double>(a.rank() > 0 ? a.dims.back() : 1);
    g.m = static_cast<double>(a.rank() > 1 ? a[a.rank() - 2] : 1);
    g.n = static_cast<double>(b.rank() > 1 ? b.dims.back() : 1);
    g.batch = std::max(1.0, static_cast<double>(layer.output.elements()) / (g.m * g.n));
    // A matrix (a weight) on the right: the left operand's leading dimensions are more rows of
    // one GEMM, not a batch.
    if (b.rank() <= 2) {
        g.m *= g.batch;
        g.batch = 1;
    }
    return g;
}

// Fully connected: [rows, K] x [K, outFeatures], K read off the weight [outFeatures, K].
GemmShape fullyConnectedShape(const Graph& graph, const Layer& layer, const Gemm& gemm)
{
    GemmShape g;
    g.m = static_cast<double>(layer.output.batch());
    g.n = static_cast<double>(gemm.outFeatures);
    if (!layer.weights.empty() && gemm.outFeatures > 0)
        g.k = static_cast<double>(graph.tensor(layer.weights.front()).shape.elements() / gemm.outFeatures);
    return g;
}

KernelDesc layerKernel(const Graph& graph, const Op& op, const Layer& layer)
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
    } else if (std::holds_alternative<ConvTranspose2d>(layer.params)) {
        // A convolution's work (cuDNN runs it as one: backward data).
        const double reduction = layer.output.elements() > 0
            ? layer.cost.flops / (2.0 * static_cast<double>(layer.output.elements()))
            : 1.0;
        k.warps = convWarps(layer.output, reduction);
    } else if (const auto* g = std::get_if<Gemm>(&layer.params)) {
        k.warps = matrixWarps(fullyConnectedShape(graph, layer, *g));
    } else if (std::holds_alternative<MatMul>(layer.params)) {
        k.warps = matrixWarps(matMulShape(graph, op, layer));
    } else if (const auto* s = std::get_if<Softmax>(&layer.params)) {
        const int axis = std::clamp(s->axis, 0, std::max(0, layer.output.rank() - 1));
        k.warps = rowWarps(layer.output, layer.output.rank() > 0 ? layer.output[axis] : 1);
    } else if (const auto* n = std::get_if<LayerNorm>(&layer.params)) {
        const int rank = layer.output.rank();
        const int axis = std::clamp(n->axis < 0 ? n->axis + rank : n->axis, 0, std::max(0, rank));
        std::int64_t length = 1;
        for (int i = axis; i < rank; ++i)
            length *= layer.output[i];
        k.warps = rowWarps(layer.output, length);
    } else {
        // Element-wise and data movement: activations, binary ops, GELU, Where, Gather, Expand,
        // transposes, pads, pools.
        k.warps = elementWarps(layer.output);
    }
    k.memoryBound = k.flops < 8.0 * k.bytes; // arithmetic intensity below ~8 FLOP/byte
    return k;
}

// A recurrence launches a kernel per step (two for a GRU whose reset gate multiplies the state
// before its product), each reading R whole and one step's slice of the projection: latency-bound
// chains of small kernels, whatever the device's width.
void recurrentKernels(const Layer& layer, const Recurrent& r, std::vector<KernelDesc>& out)
{
    const Shape& y = layer.output;
    const std::int64_t steps = std::max<std::int64_t>(1, r.batchFirst ? y.dims[1] : y.dims[0]);
    const std::int64_t perStep = r.cell == RecurrentCell::Gru && !r.linearBeforeReset ? 2 : 1;
    const double kernels = static_cast<double>(steps * perStep);
    KernelDesc k;
    k.flops = layer.cost.flops / kernels;
    k.bytes = layer.cost.bytes() / kernels;
    k.warps = elementWarps(Shape { y.elements() / steps });
    k.memoryBound = k.flops < 8.0 * k.bytes;
    out.insert(out.end(), static_cast<std::size_t>(kernels), k);
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
    k.flops = 2.0 * m * static_cast<double>(cout) * inChannels * static_cast<double>(kh * kw)
        + m * static_cast<double>(cout);
    const double weights = static_cast<double>(cout) * inChannels * static_cast<double>(kh * kw) * 4.0;
    k.bytes = inBytes + weights + m * static_cast<double>(cout) * 4.0;
    Shape stacked = out0;
    stacked.dims[1] = cout;
    k.warps = convWarps(stacked, inChannels * static_cast<double>(kh * kw));
    k.memoryBound = k.flops < 8.0 * k.bytes;
    return k;
}

// Linear layers that read the same input (Q, K and V projections), merged: one GEMM over their
// weights side by side, the input read once.
KernelDesc mergedGemmKernel(const Graph& graph, const std::vector<OpId>& ops)
{
    const Op& first = graph.op(ops.front());
    const Shape& in = graph.tensor(first.inputs.front().front()).shape;
    const double k = static_cast<double>(in.rank() > 0 ? in.dims.back() : 1);
    const double m = static_cast<double>(in.elements()) / std::max(k, 1.0);
    double n = 0, weightBytes = 0, biasColumns = 0;
    for (auto id : ops) {
        const Layer& layer = graph.op(id).layers.front();
        const double columns = static_cast<double>(graph.tensor(layer.weights.front()).shape.dims.back());
        n += columns;
        if (const auto* matmul = std::get_if<MatMul>(&layer.params); matmul && matmul->bias)
            biasColumns += columns;
        for (auto w : layer.weights) // the matrix, and a bias where there is one
            weightBytes += static_cast<double>(graph.tensor(w).bytes());
    }
    KernelDesc desc;
    const bool activation = first.layers.front().activation.kind != ActivationKind::None;
    desc.flops = 2.0 * m * n * k + m * biasColumns + (activation ? m * n : 0.0);
    desc.bytes = static_cast<double>(graph.tensor(first.inputs.front().front()).bytes()) + weightBytes + m * n * 4.0;
    desc.warps = matrixWarps({ 1.0, m, n, k });
    desc.memoryBound = desc.flops < 8.0 * desc.bytes;
    return desc;
}

} // namespace

std::vector<KernelDesc> kernelsOf(const Graph& graph, const std::vector<OpId>& ops)
{
    if (ops.size() > 1) {
        const bool gemms = std::holds_alternative<MatMul>(graph.op(ops.front()).layers.front().params);
        return { gemms ? mergedGemmKernel(graph, ops) : mergedConvKernel(graph, ops) };
    }
    std::vector<KernelDesc> out;
    const Op& op = graph.op(ops.front());
    // A plain concatenation is a view: its producers write straight into slices of its output
    // (the executors' memory plan does the same), so it launches nothing.
    const bool plainConcat = op.kind == OpKind::Concat
        && std::all_of(op.inputs.begin(), op.inputs.end(), [](const auto& t) { return t.size() == 1; });
    if (plainConcat)
        return out;
    for (const auto& layer : op.layers) {
        if (const auto* r = std::get_if<Recurrent>(&layer.params))
            recurrentKernels(layer, *r, out);
        else if (!isViewLayer(layer) || layer.cost.bytes() > 0)
            out.push_back(layerKernel(graph, op, layer));
    }
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
