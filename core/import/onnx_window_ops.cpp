// Node mappings for the windowed layers: convolution (1-D, 2-D and 3-D; with a folded
// BatchNormalization and a fused activation; taps that only read padding dropped) and pooling (1-D
// and 2-D; global pooling over volumes), and the window geometry they and ConvTranspose share.
#include "graph/shape_inference.h"
#include "import/import_error.h"
#include "import/onnx_attributes.h"
#include "import/onnx_mapping_support.h"
#include "import/onnx_op_mapping.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace opsched::onnx_import {
namespace {

// Attribute values beyond this are absurd for kernels, strides, dilations and pads, and would
// overflow the shape arithmetic.
constexpr std::int64_t kMaxWindowValue = std::int64_t { 1 } << 20;

std::int64_t checkedWindowValue(std::int64_t v, std::int64_t min, const char* what)
{
    if (v < min || v > kMaxWindowValue)
        throw NodeError(std::string(what) + " " + std::to_string(v) + " is out of range");
    return v;
}

} // namespace

int spatialRankOf(const Shape& in, const char* what, bool volumes)
{
    if (volumes && in.rank() == 5)
        return 3;
    if (in.rank() != 3 && in.rank() != 4)
        throw NodeError(std::string("only 1-D and 2-D ") + what + " (NCW and NCHW inputs) is supported"
            + (volumes ? "; 3-D on NCDHW too" : "") + "; the input is " + in.toString());
    return in.rank() - 2;
}

std::vector<std::int64_t> windowValues(
    const Attributes& attrs, const char* name, std::int64_t fallback, std::int64_t min, std::size_t n)
{
    auto v = attrs.getInts(name);
    if (v.empty())
        v.assign(n, fallback);
    if (v.size() != n)
        throw NodeError(std::string(name) + " has " + std::to_string(v.size()) + " values for a " + std::to_string(n)
            + "-D window");
    for (auto& x : v)
        x = checkedWindowValue(x, min, name);
    return v;
}

void explicitPads(const Attributes& attrs, std::size_t n, bool valid, std::vector<std::int64_t>& begin,
    std::vector<std::int64_t>& end)
{
    auto pads = valid ? std::vector<std::int64_t>() : attrs.getInts("pads");
    if (pads.empty())
        pads.assign(2 * n, 0);
    if (pads.size() != 2 * n)
        throw NodeError("pads has " + std::to_string(pads.size()) + " values for a " + std::to_string(n) + "-D window");
    for (std::size_t d = 0; d < n; ++d) {
        begin.push_back(checkedWindowValue(pads[d], 0, "pad"));
        end.push_back(checkedWindowValue(pads[d + n], 0, "pad"));
    }
}

namespace {

// Per spatial axis of an N-D window: strides, dilations and the padding before and after it,
// from the attributes (pads, or auto_pad against the input's spatial sizes).
struct WindowGeometry {
    std::vector<std::int64_t> stride, dilation, padBegin, padEnd;
};

WindowGeometry windowGeometry(
    const Attributes& attrs, const std::vector<std::int64_t>& size, const std::vector<std::int64_t>& kernel)
{
    const std::size_t n = size.size();
    WindowGeometry g { windowValues(attrs, "strides", 1, 1, n), windowValues(attrs, "dilations", 1, 1, n), {}, {} };
    const std::string autoPad = attrs.getString("auto_pad", "NOTSET");
    if (autoPad == "NOTSET" || autoPad.empty() || autoPad == "VALID") {
        explicitPads(attrs, n, autoPad == "VALID", g.padBegin, g.padEnd);
        return g;
    }
    if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
        throw NodeError("unknown auto_pad '" + autoPad + "'");
    for (std::size_t d = 0; d < n; ++d) {
        const std::int64_t outSize = (size[d] + g.stride[d] - 1) / g.stride[d];
        const std::int64_t total
            = std::max<std::int64_t>(0, (outSize - 1) * g.stride[d] + (kernel[d] - 1) * g.dilation[d] + 1 - size[d]);
        const std::int64_t small = total / 2, large = total - small;
        g.padBegin.push_back(autoPad == "SAME_UPPER" ? small : large);
        g.padEnd.push_back(autoPad == "SAME_UPPER" ? large : small);
    }
    return g;
}

} // namespace

Shape asTwoD(const Shape& in)
{
    return in.rank() == 3 ? Shape { in.dims[0], in.dims[1], 1, in.dims[2] } : in;
}

// Two values of a per-spatial-axis attribute (default `fallback`); a 1-D window's one value is
// the width, its height `fallback`.
std::array<std::int64_t, 2> pairAttr(
    const Attributes& attrs, const char* name, std::int64_t fallback, std::int64_t min, int spatial)
{
    auto v = attrs.getInts(name);
    if (v.empty())
        return { fallback, fallback };
    if (v.size() != static_cast<std::size_t>(spatial))
        throw NodeError(std::string(name) + " has " + std::to_string(v.size()) + " values for a "
            + std::to_string(spatial) + "-D window");
    if (spatial == 1)
        return { fallback, checkedWindowValue(v[0], min, name) };
    return { checkedWindowValue(v[0], min, name), checkedWindowValue(v[1], min, name) };
}

// {top, left, bottom, right} from explicit pads or auto_pad (ONNX: SAME_UPPER puts the odd
// padding at the end, SAME_LOWER at the beginning). `in` is the input as 2-D (asTwoD).
std::array<std::int64_t, 4> windowPads(const Attributes& attrs, const Shape& in, std::array<std::int64_t, 2> kernel,
    std::array<std::int64_t, 2> stride, std::array<std::int64_t, 2> dilation, int spatial)
{
    const std::string autoPad = attrs.getString("auto_pad", "NOTSET");
    if (autoPad == "NOTSET" || autoPad.empty()) {
        const auto pads = attrs.getInts("pads");
        if (pads.empty())
            return { 0, 0, 0, 0 };
        if (pads.size() != static_cast<std::size_t>(2 * spatial))
            throw NodeError(
                "pads has " + std::to_string(pads.size()) + " values for a " + std::to_string(spatial) + "-D window");
        std::array<std::int64_t, 4> out {};
        if (spatial == 1)
            return { 0, checkedWindowValue(pads[0], 0, "pad"), 0, checkedWindowValue(pads[1], 0, "pad") };
        for (std::size_t i = 0; i < 4; ++i)
            out[i] = checkedWindowValue(pads[i], 0, "pad");
        return out;
    }
    if (autoPad == "VALID")
        return { 0, 0, 0, 0 };
    if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
        throw NodeError("unknown auto_pad '" + autoPad + "'");
    std::array<std::int64_t, 4> out {};
    for (std::size_t d = 0; d < 2; ++d) {
        const std::int64_t size = d == 0 ? in.height() : in.width();
        const std::int64_t outSize = (size + stride[d] - 1) / stride[d];
        const std::int64_t total
            = std::max<std::int64_t>(0, (outSize - 1) * stride[d] + (kernel[d] - 1) * dilation[d] + 1 - size);
        const std::int64_t small = total / 2, large = total - small;
        out[d] = autoPad == "SAME_UPPER" ? small : large;
        out[d + 2] = autoPad == "SAME_UPPER" ? large : small;
    }
    return out;
}

TensorId addWindowOp(
    ImportContext& ctx, const std::string& name, OpKind kind, TensorId x, Layer layer, std::int64_t outChannels)
{
    const Shape& in = ctx.shapeOf(x);
    if (in.rank() != 3)
        return addSimpleOp(ctx, name, kind, { { x } }, std::move(layer));
    // A 1-D window runs as a 2-D one of height 1 between views: [N, C, W] -> [N, C, 1, W] -> [N, C', W'].
    OpSpec spec;
    spec.name = name;
    spec.kind = kind;
    spec.inputs = { { x } };
    spec.layers.push_back(makeLayer(Reshape { { 0, in.dims[1], 1, in.dims[2] } }));
    spec.layers.push_back(std::move(layer));
    spec.layers.push_back(makeLayer(Reshape { { 0, outChannels, -1 } }));
    return ctx.addOp(std::move(spec));
}

namespace {

struct ConvSetup {
    Conv2d conv;
    std::vector<std::int64_t> weightDims;
    ConstPtr bias; // may be null
};

ConvSetup withBias(ImportContext& ctx, const NodeRef& node, ConvSetup s)
{
    if (!inputName(node, 2).empty()) {
        s.bias = ctx.constant(inputName(node, 2), "bias");
        if (s.bias->size() != static_cast<std::size_t>(s.conv.outChannels))
            throw NodeError(
                "bias has shape " + dimsToString(s.bias->dims) + ", expected " + std::to_string(s.conv.outChannels));
    }
    s.conv.bias = s.bias != nullptr;
    return s;
}

// A 3-D convolution over NCDHW (video, volumes).
ConvSetup volumeConvSetup(ImportContext& ctx, const NodeRef& node, const Shape& in)
{
    const Attributes attrs(*node.proto);
    ConvSetup s;
    s.weightDims = ctx.constantDims(inputName(node, 1), "weight");
    const auto& w = s.weightDims;
    if (w.size() != 5)
        throw NodeError("weight has shape " + dimsToString(w) + " for a 3-D convolution");
    const std::vector<std::int64_t> kernel(w.begin() + 2, w.end());
    const auto kernelAttr = attrs.getInts("kernel_shape");
    if (!kernelAttr.empty() && kernelAttr != kernel)
        throw NodeError("kernel_shape does not match the weight shape " + dimsToString(w));
    for (auto k : kernel)
        checkedWindowValue(k, 1, "kernel");
    const WindowGeometry g = windowGeometry(attrs, { in.dims[2], in.dims[3], in.dims[4] }, kernel);
    auto& c = s.conv;
    c.outChannels = w[0];
    c.kernelD = kernel[0];
    c.kernelH = kernel[1];
    c.kernelW = kernel[2];
    c.strideD = g.stride[0];
    c.strideH = g.stride[1];
    c.strideW = g.stride[2];
    c.dilationD = g.dilation[0];
    c.dilationH = g.dilation[1];
    c.dilationW = g.dilation[2];
    c.padFront = g.padBegin[0];
    c.padTop = g.padBegin[1];
    c.padLeft = g.padBegin[2];
    c.padBack = g.padEnd[0];
    c.padBottom = g.padEnd[1];
    c.padRight = g.padEnd[2];
    c.groups = attrs.getInt("group", 1);
    if (c.groups < 1 || c.groups > in.channels() || w[1] * c.groups != in.channels())
        throw NodeError("weight " + dimsToString(w) + " with group " + std::to_string(c.groups) + " does not fit input "
            + in.toString());
    return withBias(ctx, node, std::move(s));
}

ConvSetup convSetup(ImportContext& ctx, const NodeRef& node, const Shape& original)
{
    const Attributes attrs(*node.proto);
    const int spatial = spatialRankOf(original, "convolution", true);
    if (spatial == 3)
        return volumeConvSetup(ctx, node, original);
    const Shape in = asTwoD(original);
    ConvSetup s;
    s.weightDims = ctx.constantDims(inputName(node, 1), "weight");
    auto& w = s.weightDims;
    if (w.size() != static_cast<std::size_t>(spatial + 2))
        throw NodeError("weight has shape " + dimsToString(w) + " for a " + std::to_string(spatial) + "-D convolution");
    const auto kernelAttr = attrs.getInts("kernel_shape");
    if (!kernelAttr.empty()
        && (kernelAttr.size() != static_cast<std::size_t>(spatial)
            || !std::equal(kernelAttr.begin(), kernelAttr.end(), w.begin() + 2)))
        throw NodeError("kernel_shape does not match the weight shape " + dimsToString(w));
    if (spatial == 1)
        w.insert(w.begin() + 2, 1); // [O, I, k] -> [O, I, 1, k]
    const std::array<std::int64_t, 2> kernel { checkedWindowValue(w[2], 1, "kernel"),
        checkedWindowValue(w[3], 1, "kernel") };
    const auto stride = pairAttr(attrs, "strides", 1, 1, spatial);
    const auto dilation = pairAttr(attrs, "dilations", 1, 1, spatial);
    const auto pads = windowPads(attrs, in, kernel, stride, dilation, spatial);
    auto& c = s.conv;
    c.outChannels = w[0];
    setWindow(c, kernel, stride, dilation);
    const auto folded = ctx.foldedPads(node.name);
    c.padTop = pads[0] + folded[0];
    c.padLeft = pads[1] + folded[1];
    c.padBottom = pads[2] + folded[2];
    c.padRight = pads[3] + folded[3];
    c.groups = attrs.getInt("group", 1);
    if (c.groups < 1 || c.groups > in.channels() || w[1] * c.groups != in.channels())
        throw NodeError("weight " + dimsToString(w) + " with group " + std::to_string(c.groups) + " does not fit input "
            + in.toString());
    return withBias(ctx, node, std::move(s));
}

// Max or average pooling over a volume (NCDHW), separably. The window is a box, so its maximum, or
// its average (over the whole window, or over the positions inside the input: a count that is the
// product of the per-axis counts), is the same taken over depth of the same taken over each
// frame's (H, W) window. One op of views and two 2-D pools: [N, C*D, H, W] over (H, W), then
// [N, C, D, H'*W'] over (D, 1).
void mapPoolOverVolume(ImportContext& ctx, const NodeRef& node, TensorId x)
{
    const Attributes attrs(*node.proto);
    const Shape in = ctx.shapeOf(x);
    auto kernel = attrs.getInts("kernel_shape");
    if (kernel.size() != 3)
        throw NodeError("kernel_shape has " + std::to_string(kernel.size()) + " values for a 3-D window");
    for (auto& k : kernel)
        k = checkedWindowValue(k, 1, "kernel");
    const auto g = windowGeometry(attrs, { in.dims[2], in.dims[3], in.dims[4] }, kernel);
    if (std::any_of(g.dilation.begin(), g.dilation.end(), [](std::int64_t d) { return d != 1; }))
        throw NodeError("pooling with dilations is not supported");
    if (node.proto->output_size() > 1 && ctx.isUsed(node.proto->output(1)))
        throw NodeError("the Indices output of MaxPool is not supported");
    Pool2d frame;
    frame.kind = node.opType() == "MaxPool" ? PoolKind::Max : PoolKind::Average;
    frame.ceilMode = attrs.getInt("ceil_mode", 0) != 0;
    frame.countIncludePad = attrs.getInt("count_include_pad", 0) != 0;
    Pool2d depth = frame;
    frame.kernelH = kernel[1], frame.kernelW = kernel[2];
    frame.strideH = g.stride[1], frame.strideW = g.stride[2];
    frame.padTop = g.padBegin[1], frame.padLeft = g.padBegin[2];
    frame.padBottom = g.padEnd[1], frame.padRight = g.padEnd[2];
    depth.kernelH = kernel[0], depth.strideH = g.stride[0];
    depth.padTop = g.padBegin[0], depth.padBottom = g.padEnd[0];
    std::array<std::int64_t, 3> out {};
    for (std::size_t a = 0; a < 3; ++a) {
        out[a]
            = windowOutputSize(in.dims[a + 2], g.padBegin[a], g.padEnd[a], kernel[a], g.stride[a], 1, frame.ceilMode);
        if (out[a] < 1)
            throw NodeError("the window does not fit the input " + in.toString());
    }
    const std::int64_t channels = in.dims[1];
    OpSpec spec;
    spec.name = node.name;
    spec.kind = OpKind::Pool;
    spec.inputs = { { x } };
    spec.layers.push_back(makeLayer(Reshape { { 0, channels * in.dims[2], in.dims[3], in.dims[4] } }));
    spec.layers.push_back(makeLayer(frame));
    spec.layers.push_back(makeLayer(Reshape { { 0, channels, in.dims[2], out[1] * out[2] } }));
    spec.layers.push_back(makeLayer(depth));
    spec.layers.push_back(makeLayer(Reshape { { 0, channels, out[0], out[1], out[2] } }));
    ctx.setActivation(node.proto->output(0), ctx.addOp(std::move(spec)));
}

} // namespace

// MaxPool with dilations, which oneDNN's and cuDNN's pooling lack: the input padded with -inf,
// sliced once per kernel position (from position x dilation, the stride as the step), and the
// element-wise maximum of the slices. Output element o of a slice reads input o x stride +
// position x dilation - pad begin, so the maximum takes exactly the positions the dilated window
// reads; padding never wins a maximum. Kernel positions become ops, so large windows are refused.
void mapDilatedMaxPool(ImportContext& ctx, const NodeRef& node, TensorId x)
{
    constexpr std::int64_t kMaxPositions = 64;
    const Attributes attrs(*node.proto);
    const std::size_t inputRank = ctx.shapeOf(x).rank();
    if (inputRank < 3 || inputRank > 5)
        throw NodeError(
            "dilated pooling needs a 1-D, 2-D or 3-D window (a 3-D to 5-D input), not " + ctx.shapeOf(x).toString());
    if (node.proto->output_size() > 1 && ctx.isUsed(node.proto->output(1)))
        throw NodeError("the Indices output of MaxPool is not supported");
    const std::size_t n = inputRank - 2, rank = inputRank;
    if (ctx.hasFoldedPads(node.name)) {
        // A Pad of zeros before it was folded into this node (foldPadInto): zeros can be a
        // window's maximum, so they are put back as a real Pad.
        const auto folded = ctx.foldedPads(node.name);
        Pad zeros;
        zeros.pads = { 0, 0, folded[0], folded[1], 0, 0, folded[2], folded[3] };
        x = addSimpleOp(ctx, ctx.derivedOpName(node.name + ":zero_pad"), OpKind::Pad, { { x } }, makeLayer(zeros));
    }
    const Shape in = ctx.shapeOf(x);
    const std::vector<std::int64_t> size(in.dims.begin() + 2, in.dims.end());
    const auto kernel = windowValues(attrs, "kernel_shape", 0, 1, n);
    const auto g = windowGeometry(attrs, size, kernel);
    const bool ceil = attrs.getInt("ceil_mode", 0) != 0;
    // Where every stride is a multiple of its dilation (stride = dilation is the usual case), the
    // windows read only every dilation-th element: those, taken by a strided slice, pooled by an
    // undilated window (stride / dilation) give the same maximum in three ops, whatever the window.
    bool strided = n <= 2;
    for (std::size_t d = 0; d < n; ++d)
        strided = strided && g.stride[d] % g.dilation[d] == 0;
    std::vector<std::int64_t> out(n), padEnd(n);
    std::int64_t positions = 1;
    bool padded = false;
    for (std::size_t d = 0; d < n; ++d) {
        out[d] = windowOutputSize(size[d], g.padBegin[d], g.padEnd[d], kernel[d], g.stride[d], g.dilation[d], ceil);
        if (out[d] < 1)
            throw NodeError("the dilated window (" + std::to_string(g.dilation[d] * (kernel[d] - 1) + 1)
                + " wide) does not fit the padded input " + in.toString());
        // Room for every slice (the last window of ceil mode included), and for each slice's
        // count x step: a strided view longer than its axis is refused by oneDNN, even where its
        // last element is inside.
        const std::int64_t length = strided
            ? (out[d] - 1) * g.stride[d] + kernel[d] * g.dilation[d]
            : (out[d] - 1) * g.stride[d] + g.dilation[d] * (kernel[d] - 1) + std::max<std::int64_t>(g.stride[d], 1);
        padEnd[d] = std::max<std::int64_t>(0, length - size[d] - g.padBegin[d]);
        padded = padded || g.padBegin[d] > 0 || padEnd[d] > 0;
        positions *= kernel[d];
    }
    if (!strided && positions > kMaxPositions)
        throw NodeError("dilated pooling over " + std::to_string(positions) + " window positions (at most "
            + std::to_string(kMaxPositions)
            + ", or any window where each stride is a multiple of its dilation) "
              "is not supported");
    TensorId source = x;
    if (padded) {
        Pad pad;
        pad.pads.assign(2 * rank, 0);
        for (std::size_t d = 0; d < n; ++d) {
            pad.pads[2 + d] = g.padBegin[d];
            pad.pads[rank + 2 + d] = padEnd[d];
        }
        pad.value = -std::numeric_limits<float>::infinity();
        source = addSimpleOp(ctx, ctx.derivedOpName(node.name + ":pad"), OpKind::Pad, { { x } }, makeLayer(pad));
    }
    if (strided) {
        Slice every;
        Pool2d pool;
        pool.kind = PoolKind::Max;
        for (std::size_t d = 0; d < n; ++d) {
            every.starts.push_back(0);
            every.ends.push_back((out[d] - 1) * g.stride[d] + g.dilation[d] * (kernel[d] - 1) + 1);
            every.axes.push_back(static_cast<std::int64_t>(2 + d));
            every.steps.push_back(g.dilation[d]);
        }
        pool.kernelW = kernel[n - 1];
        pool.strideW = g.stride[n - 1] / g.dilation[n - 1];
        if (n == 2) {
            pool.kernelH = kernel[0];
            pool.strideH = g.stride[0] / g.dilation[0];
        }
        const TensorId taken = addSimpleOp(
            ctx, ctx.derivedOpName(node.name + ":every_dilation"), OpKind::Slice, { { source } }, makeLayer(every));
        ctx.setActivation(node.proto->output(0),
            addWindowOp(ctx, node.name, OpKind::Pool, taken, makeLayer(pool), ctx.shapeOf(taken).dims[1]));
        return;
    }
    std::vector<InputTerm> windows;
    for (std::int64_t position = 0; position < positions; ++position) {
        Slice slice;
        std::int64_t rest = position;
        for (std::size_t d = n; d-- > 0;) {
            const std::int64_t start = (rest % kernel[d]) * g.dilation[d];
            rest /= kernel[d];
            slice.starts.insert(slice.starts.begin(), start);
            slice.ends.insert(slice.ends.begin(), start + (out[d] - 1) * g.stride[d] + 1);
            slice.axes.insert(slice.axes.begin(), static_cast<std::int64_t>(2 + d));
            slice.steps.insert(slice.steps.begin(), g.stride[d]);
        }
        const std::string name
            = positions == 1 ? node.name : ctx.derivedOpName(node.name + ":window" + std::to_string(position));
        windows.push_back({ addSimpleOp(ctx, name, OpKind::Slice, { { source } }, makeLayer(slice)) });
    }
    const TensorId result = positions == 1
        ? windows.front().front()
        : addSimpleOp(ctx, node.name, OpKind::Math, windows, makeLayer(Binary { BinaryKind::Max, false }));
    ctx.setActivation(node.proto->output(0), result);
}

void mapPool(ImportContext& ctx, const NodeRef& node)
{
    const auto& op = node.opType();
    const Attributes attrs(*node.proto);
    const TensorId x = ctx.activation(inputName(node, 0), "data");
    const bool global = op == "GlobalAveragePool" || op == "GlobalMaxPool";
    if (global && ctx.shapeOf(x).rank() == 5) {
        // Over every position of a volume: a 2-D global pool of [N, C, 1, D*H*W], between views.
        const Shape in = ctx.shapeOf(x);
        OpSpec spec;
        spec.name = node.name;
        spec.kind = OpKind::Pool;
        spec.inputs = { { x } };
        spec.layers.push_back(makeLayer(Reshape { { 0, in.dims[1], 1, -1 } }));
        spec.layers.push_back(
            makeLayer(Pool2d { op == "GlobalAveragePool" ? PoolKind::GlobalAverage : PoolKind::GlobalMax }));
        spec.layers.push_back(makeLayer(Reshape { { 0, in.dims[1], 1, 1, 1 } }));
        ctx.setActivation(node.proto->output(0), ctx.addOp(std::move(spec)));
        return;
    }
    if (op == "MaxPool") {
        const std::size_t n = ctx.shapeOf(x).rank() > 2 ? ctx.shapeOf(x).rank() - 2 : 1;
        const auto dilation = windowValues(attrs, "dilations", 1, 1, n);
        if (std::any_of(dilation.begin(), dilation.end(), [](std::int64_t d) { return d != 1; })) {
            mapDilatedMaxPool(ctx, node, x);
            return;
        }
    }
    if (!global && ctx.shapeOf(x).rank() == 5) {
        mapPoolOverVolume(ctx, node, x);
        return;
    }
    // 5-D inputs went above: the message for other ranks names every kind that is supported.
    const int spatial = spatialRankOf(ctx.shapeOf(x), global ? "global pooling" : "pooling", true);
    const Shape in = asTwoD(ctx.shapeOf(x));
    Pool2d p;
    if (op == "GlobalAveragePool" || op == "GlobalMaxPool") {
        p.kind = op == "GlobalAveragePool" ? PoolKind::GlobalAverage : PoolKind::GlobalMax;
    } else {
        p.kind = op == "MaxPool" ? PoolKind::Max : PoolKind::Average;
        if (node.proto->output_size() > 1 && ctx.isUsed(node.proto->output(1)))
            throw NodeError("the Indices output of MaxPool is not supported");
        auto kernel = pairAttr(attrs, "kernel_shape", 0, 1, spatial);
        if (kernel[1] == 0)
            throw NodeError("has no kernel_shape");
        if (spatial == 1)
            kernel[0] = 1;
        const auto dilation = pairAttr(attrs, "dilations", 1, 1, spatial);
        if (dilation[0] != 1 || dilation[1] != 1)
            throw NodeError("pooling with dilations is not supported");
        const auto stride = pairAttr(attrs, "strides", 1, 1, spatial);
        const auto pads = windowPads(attrs, in, kernel, stride, dilation, spatial);
        p.kernelH = kernel[0];
        p.kernelW = kernel[1];
        p.strideH = stride[0];
        p.strideW = stride[1];
        const auto folded = ctx.foldedPads(node.name);
        p.padTop = pads[0] + folded[0];
        p.padLeft = pads[1] + folded[1];
        p.padBottom = pads[2] + folded[2];
        p.padRight = pads[3] + folded[3];
        p.ceilMode = attrs.getInt("ceil_mode", 0) != 0;
        // Padding that was a Pad of zeros counts in the average, as the Pad's zeros did.
        p.countIncludePad = attrs.getInt("count_include_pad", 0) != 0 || ctx.hasFoldedPads(node.name);
    }
    ctx.setActivation(node.proto->output(0), addWindowOp(ctx, node.name, OpKind::Pool, x, makeLayer(p), in.channels()));
}

bool foldPadInto(ImportContext& ctx, const NodeRef& pad, const NodeRef& consumer)
{
    const Attributes attrs(*pad.proto);
    if (!ctx.isActivation(inputName(pad, 0)) || ctx.shapeOf(ctx.activation(inputName(pad, 0), "data")).rank() != 4)
        return false;
    std::vector<std::int64_t> pads;
    float value = 0.0F;
    if (ctx.opset < 11) {
        pads = attrs.getInts("pads");
        value = attrs.getFloat("value", 0.0F);
    } else {
        if (!ctx.isConstant(inputName(pad, 1)))
            return false;
        pads = ctx.constant(inputName(pad, 1), "pads")->toInts();
        if (!inputName(pad, 2).empty()) {
            const auto v = ctx.constant(inputName(pad, 2), "constant_value");
            if (v->size() != 1)
                return false;
            value = static_cast<float>(v->at(0));
        }
    }
    if (value != 0.0F || pads.size() != 8 || pads[0] != 0 || pads[1] != 0 || pads[4] != 0 || pads[5] != 0)
        return false;
    for (auto p : pads)
        if (p < 0 || p > kMaxWindowValue)
            return false;
    ctx.setFoldedPads(consumer.name, { pads[2], pads[3], pads[6], pads[7] });
    ctx.setActivation(pad.proto->output(0), ctx.activation(inputName(pad, 0), "data"));
    return true;
}

namespace {

// Kernel rows and columns that only ever read padding: a dilated convolution on a map smaller
// than its dilation (DeepLab's ASPP, dilation 12-36 on a 10x10 map) reads real input with its
// centre tap alone. The taps [lo, hi] that reach the input, per axis; edge taps outside it are
// dropped exactly (they multiply zeros), with the padding shrunk to keep the output's size.
struct LiveTaps {
    std::array<std::int64_t, 2> lo {}, hi {};
    bool trimmed = false;
};

LiveTaps liveTaps(const Conv2d& c, const Shape& in2d)
{
    LiveTaps t;
    const std::int64_t n[2] = { in2d.height(), in2d.width() }, k[2] = { c.kernelH, c.kernelW };
    const std::int64_t s[2] = { c.strideH, c.strideW }, d[2] = { c.dilationH, c.dilationW };
    const std::int64_t pb[2] = { c.padTop, c.padLeft }, pe[2] = { c.padBottom, c.padRight };
    for (std::size_t a = 0; a < 2; ++a) {
        const std::int64_t span = n[a] + pb[a] + pe[a] - ((k[a] - 1) * d[a] + 1);
        if (span < 0)
            return {};
        const std::int64_t out = span / s[a] + 1;
        auto live = [&](std::int64_t j) { // some output reads input row o * s - pb + j * d in [0, n)
            const std::int64_t first = -pb[a] + j * d[a], last = (out - 1) * s[a] - pb[a] + j * d[a];
            if (last < 0 || first >= n[a])
                return false;
            const std::int64_t o = first >= 0 ? 0 : (-first + s[a] - 1) / s[a]; // first o reaching row 0
            return o < out && o * s[a] - pb[a] + j * d[a] < n[a];
        };
        std::int64_t lo = 0, hi = k[a] - 1;
        while (lo <= hi && !live(lo))
            ++lo;
        while (hi >= lo && !live(hi))
            --hi;
        if (lo > hi || pb[a] - lo * d[a] < 0 || pe[a] - (k[a] - 1 - hi) * d[a] < 0)
            return {};
        t.lo[a] = lo;
        t.hi[a] = hi;
        t.trimmed = t.trimmed || lo > 0 || hi < k[a] - 1;
    }
    return t;
}

// The convolution and its [O, I, kH, kW] weights with only the live taps.
void trimTaps(Conv2d& c, std::vector<std::int64_t>& dims, std::vector<float>& weight, const LiveTaps& t)
{
    const std::int64_t kh = t.hi[0] - t.lo[0] + 1, kw = t.hi[1] - t.lo[1] + 1;
    std::vector<float> kept;
    kept.reserve(static_cast<std::size_t>(dims[0] * dims[1] * kh * kw));
    for (std::int64_t oi = 0; oi < dims[0] * dims[1]; ++oi)
        for (std::int64_t y = t.lo[0]; y <= t.hi[0]; ++y)
            for (std::int64_t x = t.lo[1]; x <= t.hi[1]; ++x)
                kept.push_back(weight[static_cast<std::size_t>((oi * dims[2] + y) * dims[3] + x)]);
    c.padTop -= t.lo[0] * c.dilationH;
    c.padBottom -= (c.kernelH - 1 - t.hi[0]) * c.dilationH;
    c.padLeft -= t.lo[1] * c.dilationW;
    c.padRight -= (c.kernelW - 1 - t.hi[1]) * c.dilationW;
    c.kernelH = kh;
    c.kernelW = kw;
    if (kh == 1)
        c.dilationH = 1;
    if (kw == 1)
        c.dilationW = 1;
    dims[2] = kh;
    dims[3] = kw;
    weight = std::move(kept);
}

} // namespace

void mapConvChain(ImportContext& ctx, const NodeRef& conv, const NodeRef* batchNorm, const NodeRef* activation)
{
    const TensorId x = ctx.activation(inputName(conv, 0), "data");
    ConvSetup s = convSetup(ctx, conv, ctx.shapeOf(x));
    const LiveTaps live = s.weightDims.size() == 4 ? liveTaps(s.conv, asTwoD(ctx.shapeOf(x))) : LiveTaps {};
    Layer layer = makeLayer(s.conv);
    if (batchNorm) {
        checkBatchNormMode(ctx, *batchNorm);
        // y = gamma * (conv(x) + b - mean) / sqrt(var + eps) + beta, per output channel.
        const float eps = Attributes(*batchNorm->proto).getFloat("epsilon", 1e-5F);
        const auto m = static_cast<std::size_t>(s.conv.outChannels);
        std::vector<std::vector<float>> p;
        const char* roles[] = { "scale", "bias", "mean", "variance" };
        for (int i = 1; i <= 4; ++i) {
            const auto value = ctx.constant(inputName(*batchNorm, i), roles[i - 1]);
            if (value->size() != m)
                throw NodeError(std::string("the folded BatchNormalization's ") + roles[i - 1] + " has shape "
                    + dimsToString(value->dims) + ", expected " + std::to_string(m));
            p.push_back(value->toFloats());
        }
        std::vector<float> weight = ctx.constant(inputName(conv, 1), "weight")->toFloats();
        std::vector<float> bias(m);
        const std::size_t perChannel = weight.size() / m;
        for (std::size_t o = 0; o < m; ++o) {
            const double factor = static_cast<double>(p[0][o]) / std::sqrt(static_cast<double>(p[3][o]) + eps);
            for (std::size_t k = 0; k < perChannel; ++k)
                weight[o * perChannel + k] = static_cast<float>(weight[o * perChannel + k] * factor);
            const double b = s.bias ? s.bias->at(o) : 0.0;
            bias[o] = static_cast<float>((b - p[2][o]) * factor + p[1][o]);
        }
        auto& c = std::get<Conv2d>(layer.params);
        c.bias = true;
        if (live.trimmed)
            trimTaps(c, s.weightDims, weight, live);
        layer.weights = { ctx.newWeight(conv.name + ".weight", Shape(s.weightDims), std::move(weight)),
            ctx.newWeight(conv.name + ".bias", Shape { s.conv.outChannels }, std::move(bias)) };
    } else if (live.trimmed) {
        std::vector<float> weight = ctx.constant(inputName(conv, 1), "weight")->toFloats();
        trimTaps(std::get<Conv2d>(layer.params), s.weightDims, weight, live);
        layer.weights.push_back(ctx.newWeight(conv.name + ".weight", Shape(s.weightDims), std::move(weight)));
        if (s.bias)
            layer.weights.push_back(ctx.weightOf(inputName(conv, 2)));
    } else {
        layer.weights.push_back(ctx.weightOf(inputName(conv, 1)));
        if (s.bias)
            layer.weights.push_back(ctx.weightOf(inputName(conv, 2)));
    }
    if (activation)
        layer.activation = activationOf(ctx, *activation);
    const NodeRef& last = activation ? *activation : batchNorm ? *batchNorm : conv;
    ctx.setActivation(
        last.proto->output(0), addWindowOp(ctx, conv.name, OpKind::Conv, x, std::move(layer), s.conv.outChannels));
}

} // namespace opsched::onnx_import
