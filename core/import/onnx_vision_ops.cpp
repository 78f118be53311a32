// Node mappings for the layers of segmentation, super-resolution and generative vision models:
// ConvTranspose, Resize and Upsample, DepthToSpace and SpaceToDepth (pixel shuffle),
// InstanceNormalization (also how PyTorch exports GroupNorm), GroupNormalization and LRN.
#include "import/import_error.h"
#include "import/onnx_mapping_support.h"
#include "import/onnx_op_mapping.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace opsched::onnx_import {
namespace {

std::int64_t floorDiv(std::int64_t a, std::int64_t b)
{
    return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);
}

ResizeCoordinates coordinatesNamed(const std::string& name)
{
    static const std::pair<const char*, ResizeCoordinates> kModes[] = {
        { "half_pixel", ResizeCoordinates::HalfPixel },
        { "half_pixel_symmetric", ResizeCoordinates::HalfPixelSymmetric },
        { "pytorch_half_pixel", ResizeCoordinates::PytorchHalfPixel },
        { "align_corners", ResizeCoordinates::AlignCorners },
        { "asymmetric", ResizeCoordinates::Asymmetric },
        { "tf_half_pixel_for_nn", ResizeCoordinates::TfHalfPixelForNn },
        { "tf_crop_and_resize", ResizeCoordinates::TfCropAndResize },
    };
    for (const auto& [n, mode] : kModes)
        if (name == n)
            return mode;
    throw NodeError("unknown coordinate_transformation_mode '" + name + "'");
}

NearestRounding roundingNamed(const std::string& name)
{
    if (name == "round_prefer_floor")
        return NearestRounding::RoundPreferFloor;
    if (name == "round_prefer_ceil")
        return NearestRounding::RoundPreferCeil;
    if (name == "floor")
        return NearestRounding::Floor;
    if (name == "ceil")
        return NearestRounding::Ceil;
    throw NodeError("unknown nearest_mode '" + name + "'");
}

ResizeMode resizeModeNamed(const std::string& name, bool cubicAllowed)
{
    if (name == "nearest")
        return ResizeMode::Nearest;
    if (name == "linear" || name == "bilinear" || name == "trilinear")
        return ResizeMode::Linear;
    if (cubicAllowed && (name == "cubic" || name == "bicubic"))
        return ResizeMode::Cubic;
    throw NodeError("unknown resize mode '" + name + "'");
}

// A constant input of floats or ints, empty when the input is absent or an empty tensor.
ConstPtr optionalConstant(ImportContext& ctx, const NodeRef& node, int index, const char* role)
{
    const std::string& name = inputName(node, index);
    if (name.empty())
        return nullptr;
    if (ctx.isActivation(name))
        throw NodeError(std::string(role) + " computed from activation values at run time is not supported; "
            + "they must fold to constants at import (shapes are static; give free input dimensions with --shape)");
    auto value = ctx.constant(name, role);
    return value->size() == 0 ? nullptr : value;
}

} // namespace

namespace {

// A transposed convolution's per-axis geometry over its n spatial axes (depth, height, width as
// the input has them).
struct TransposedWindow {
    std::vector<std::int64_t> kernel, stride, dilation, padBegin, padEnd, outputPadding;
};

// Padding from explicit pads, or from output_shape or SAME (the output size fixes the padding);
// an end padding below zero (an output_shape beyond the natural size) becomes output padding.
TransposedWindow transposedWindow(
    const Attributes& attrs, const std::vector<std::int64_t>& size, std::vector<std::int64_t> kernel)
{
    const std::size_t n = size.size();
    TransposedWindow t { std::move(kernel), windowValues(attrs, "strides", 1, 1, n),
        windowValues(attrs, "dilations", 1, 1, n), {}, {}, windowValues(attrs, "output_padding", 0, 0, n) };
    const std::string autoPad = attrs.getString("auto_pad", "NOTSET");
    auto outputShape = attrs.getInts("output_shape");
    if (outputShape.size() == n + 2)
        outputShape.erase(outputShape.begin(), outputShape.begin() + 2);
    const bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
    if (!outputShape.empty() || same) {
        if (!outputShape.empty() && outputShape.size() != n)
            throw NodeError("output_shape has " + std::to_string(outputShape.size()) + " values for a "
                + std::to_string(n) + "-D transposed convolution");
        for (std::size_t d = 0; d < n; ++d) {
            const std::int64_t target = outputShape.empty() ? size[d] * t.stride[d] : outputShape[d];
            const std::int64_t total
                = t.stride[d] * (size[d] - 1) + t.outputPadding[d] + (t.kernel[d] - 1) * t.dilation[d] + 1 - target;
            const bool upper = autoPad == "SAME_UPPER";
            t.padBegin.push_back(upper ? floorDiv(total, 2) : total - floorDiv(total, 2));
            t.padEnd.push_back(upper ? total - floorDiv(total, 2) : floorDiv(total, 2));
        }
    } else if (autoPad == "NOTSET" || autoPad.empty() || autoPad == "VALID") {
        explicitPads(attrs, n, autoPad == "VALID", t.padBegin, t.padEnd);
    } else {
        throw NodeError("unknown auto_pad '" + autoPad + "'");
    }
    for (std::size_t d = 0; d < n; ++d) {
        if (t.padEnd[d] < 0) {
            t.outputPadding[d] -= t.padEnd[d];
            t.padEnd[d] = 0;
        }
        if (t.padBegin[d] < 0)
            throw NodeError("output_shape asks for more output than the input gives at the start");
    }
    return t;
}

} // namespace

// ConvTranspose over NCW (as NCHW of height 1), NCHW or NCDHW.
void mapConvTranspose(ImportContext& ctx, const NodeRef& node)
{
    const Attributes attrs(*node.proto);
    const TensorId x = ctx.activation(inputName(node, 0), "data");
    const Shape xs = ctx.shapeOf(x);
    const int spatial = spatialRankOf(xs, "transposed convolution", true);
    const auto w = ctx.constantDims(inputName(node, 1), "weight");
    if (w.size() != static_cast<std::size_t>(spatial + 2))
        throw NodeError(
            "weight has shape " + dimsToString(w) + " for a " + std::to_string(spatial) + "-D transposed convolution");
    ConvTranspose2d c;
    c.groups = attrs.getInt("group", 1);
    if (c.groups < 1 || w[0] != xs.channels() || xs.channels() % c.groups != 0)
        throw NodeError("weight " + dimsToString(w) + " with group " + std::to_string(c.groups) + " does not fit input "
            + xs.toString());
    c.outChannels = w[1] * c.groups;
    const auto kernelAttr = attrs.getInts("kernel_shape");
    if (!kernelAttr.empty()
        && (kernelAttr.size() != static_cast<std::size_t>(spatial)
            || !std::equal(kernelAttr.begin(), kernelAttr.end(), w.end() - spatial)))
        throw NodeError("kernel_shape does not match the weight shape " + dimsToString(w));
    const TransposedWindow t
        = transposedWindow(attrs, { xs.dims.begin() + 2, xs.dims.end() }, { w.begin() + 2, w.end() });
    // The last two axes are height and width (a 1-D one is the width); a third is depth.
    const std::size_t n = t.kernel.size(), wAxis = n - 1;
    c.kernelW = t.kernel[wAxis], c.strideW = t.stride[wAxis], c.dilationW = t.dilation[wAxis];
    c.padLeft = t.padBegin[wAxis], c.padRight = t.padEnd[wAxis], c.outputPaddingW = t.outputPadding[wAxis];
    if (n >= 2) {
        const std::size_t h = n - 2;
        c.kernelH = t.kernel[h], c.strideH = t.stride[h], c.dilationH = t.dilation[h];
        c.padTop = t.padBegin[h], c.padBottom = t.padEnd[h], c.outputPaddingH = t.outputPadding[h];
    }
    if (n == 3) {
        c.kernelD = t.kernel[0], c.strideD = t.stride[0], c.dilationD = t.dilation[0];
        c.padFront = t.padBegin[0], c.padBack = t.padEnd[0], c.outputPaddingD = t.outputPadding[0];
    }
    std::vector<TensorId> weights { ctx.weightOf(inputName(node, 1)) };
    if (!inputName(node, 2).empty()) {
        const auto bias = ctx.constant(inputName(node, 2), "bias");
        if (bias->size() != static_cast<std::size_t>(c.outChannels))
            throw NodeError(
                "bias has shape " + dimsToString(bias->dims) + ", expected " + std::to_string(c.outChannels));
        weights.push_back(ctx.weightOf(inputName(node, 2)));
    }
    c.bias = weights.size() > 1;
    const auto outChannels = c.outChannels;
    ctx.setActivation(node.proto->output(0),
        addWindowOp(ctx, node.name, OpKind::ConvTranspose, x, makeLayer(c, std::move(weights)), outChannels));
}

namespace {

// tf_crop_and_resize's roi: the listed axes' starts, then their ends, as fractions of the input.
void readCropRoi(
    ImportContext& ctx, const NodeRef& node, const std::vector<std::int64_t>& axes, std::size_t rank, Resize& r)
{
    const auto roi = optionalConstant(ctx, node, 1, "roi");
    const auto values = roi ? roi->toFloats() : std::vector<float> {};
    if (values.size() != 2 * axes.size())
        throw NodeError("tf_crop_and_resize needs a constant roi of " + std::to_string(2 * axes.size())
            + " values (a start and an end per axis), not " + std::to_string(values.size()));
    r.roiStart.assign(rank, 0.0F);
    r.roiEnd.assign(rank, 1.0F);
    for (std::size_t k = 0; k < axes.size(); ++k) {
        r.roiStart[static_cast<std::size_t>(axes[k])] = values[k];
        r.roiEnd[static_cast<std::size_t>(axes[k])] = values[axes.size() + k];
    }
}

// The Resize op; a crop that reaches outside the input with a nonzero extrapolation value gets
// v + resize(x - v): positions outside have no weight, so they are v, and the weights of a
// position inside sum to 1, so it is resize(x).
void addResizeOp(ImportContext& ctx, const NodeRef& node, const Resize& r, float extrapolation)
{
    bool outside = false;
    for (std::size_t d = 0; d < r.roiStart.size(); ++d)
        outside = outside || r.roiStart[d] < 0.0F || r.roiEnd[d] > 1.0F;
    if (!outside || extrapolation == 0.0F) {
        addUnaryOp(ctx, node, OpKind::Resize, makeLayer(r));
        return;
    }
    const TensorId x = ctx.activation(inputName(node, 0), "data");
    const auto minusV = ctx.newWeight(node.name + ".minus_extrapolation", Shape { 1 }, { -extrapolation });
    const auto plusV = ctx.newWeight(node.name + ".extrapolation", Shape { 1 }, { extrapolation });
    const TensorId shifted = addSimpleOp(ctx, ctx.derivedOpName(node.name + ":shifted"), OpKind::Add, { { x } },
        makeLayer(Binary { BinaryKind::Add }, { minusV }));
    const TensorId resized
        = addSimpleOp(ctx, ctx.derivedOpName(node.name + ":resized"), OpKind::Resize, { { shifted } }, makeLayer(r));
    ctx.setActivation(node.proto->output(0),
        addSimpleOp(ctx, node.name, OpKind::Add, { { resized } }, makeLayer(Binary { BinaryKind::Add }, { plusV })));
}

} // namespace

void mapResize(ImportContext& ctx, const NodeRef& node)
{
    const Attributes attrs(*node.proto);
    const TensorId x = ctx.activation(inputName(node, 0), "data");
    const Shape in = ctx.shapeOf(x); // a copy: new weights move the builder's tensors
    const auto rank = static_cast<std::size_t>(in.rank());
    const bool upsample = node.opType() == "Upsample";
    // Upsample and Resize before opset 11: scales only, asymmetric coordinates (output x reads
    // input x / scale), nearest rounding down (ONNX Runtime's reading of those versions).
    const bool legacy = upsample || ctx.opset < 11;
    Resize r;
    r.mode = resizeModeNamed(attrs.getString("mode", "nearest"), !legacy);
    std::vector<float> scales;
    std::vector<std::int64_t> sizes;
    std::vector<std::int64_t> axes;
    if (legacy) {
        r.coordinates = ResizeCoordinates::Asymmetric;
        r.rounding = NearestRounding::Floor;
        if (upsample && ctx.opset < 9)
            scales = attrs.getFloats("scales");
        else if (auto s = optionalConstant(ctx, node, 1, "scales"))
            scales = s->toFloats();
        if (scales.empty())
            throw NodeError("has no scales");
    } else {
        r.coordinates = coordinatesNamed(attrs.getString("coordinate_transformation_mode", "half_pixel"));
        r.rounding = roundingNamed(attrs.getString("nearest_mode", "round_prefer_floor"));
        r.cubicA = attrs.getFloat("cubic_coeff_a", -0.75F);
        r.excludeOutside = attrs.getInt("exclude_outside", 0) != 0;
        if (auto s = optionalConstant(ctx, node, 2, "scales"))
            scales = s->toFloats();
        if (auto s = optionalConstant(ctx, node, 3, "sizes"))
            sizes = s->toInts();
        if (scales.empty() == sizes.empty())
            throw NodeError("needs exactly one of scales and sizes");
        axes = attrs.getInts("axes");
    }
    if (axes.empty())
        for (std::size_t d = 0; d < rank; ++d)
            axes.push_back(static_cast<std::int64_t>(d));
    std::vector<bool> listed(rank, false);
    for (auto& a : axes) { // normalised and checked before anything indexes by them
        const std::int64_t given = a;
        a = a < 0 ? a + in.rank() : a;
        if (a < 0 || a >= in.rank() || listed[static_cast<std::size_t>(a)])
            throw NodeError(
                "axis " + std::to_string(given) + " is out of range or repeated for input " + in.toString());
        listed[static_cast<std::size_t>(a)] = true;
    }
    const std::size_t given = scales.empty() ? sizes.size() : scales.size();
    if (given != axes.size())
        throw NodeError("has " + std::to_string(given) + (scales.empty() ? " sizes" : " scales") + " for "
            + std::to_string(axes.size()) + " axes of input " + in.toString());
    r.sizes.assign(rank, 0);
    r.scales.assign(rank, 1.0F);
    r.sizesGiven = !sizes.empty();
    const bool crop = r.coordinates == ResizeCoordinates::TfCropAndResize;
    if (crop)
        readCropRoi(ctx, node, axes, rank, r);
    // keep_aspect_ratio_policy: one scale for every listed axis, the largest (not_larger) or
    // smallest (not_smaller) that keeps the output within the sizes.
    const std::string policy = attrs.getString("keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
        throw NodeError("unknown keep_aspect_ratio_policy '" + policy + "'");
    double common = policy == "not_larger" ? 1e300 : 0.0;
    if (!sizes.empty() && policy != "stretch")
        for (std::size_t k = 0; k < axes.size(); ++k) {
            const double ratio
                = static_cast<double>(sizes[k]) / static_cast<double>(in.dims[static_cast<std::size_t>(axes[k])]);
            common = policy == "not_larger" ? std::min(common, ratio) : std::max(common, ratio);
        }
    bool downsamples = false;
    for (std::size_t k = 0; k < axes.size(); ++k) {
        const auto d = static_cast<std::size_t>(axes[k]);
        std::int64_t out = 0;
        double scale = 1.0;
        if (!sizes.empty() && policy != "stretch") {
            scale = common;
            out = static_cast<std::int64_t>(std::round(common * static_cast<double>(in.dims[d])));
            r.sizesGiven = false;
        } else if (!sizes.empty()) {
            out = sizes[k];
            scale = static_cast<double>(out) / static_cast<double>(in.dims[d]);
        } else {
            scale = scales[k];
            if (!(scale > 0.0))
                throw NodeError(
                    "scale " + std::to_string(scale) + " on axis " + std::to_string(d) + " is not positive");
            // A crop scales its own span: floor(in * (end - start) * scale).
            const double span = crop ? static_cast<double>(r.roiEnd[d]) - static_cast<double>(r.roiStart[d]) : 1.0;
            out = static_cast<std::int64_t>(std::floor(static_cast<double>(in.dims[d]) * span * scale));
        }
        if (out < 1)
            throw NodeError("resizes axis " + std::to_string(d) + " of " + in.toString() + " to " + std::to_string(out)
                + " elements");
        downsamples = downsamples || out < in.dims[d];
        r.scales[d] = static_cast<float>(scale);
        const bool whole = !crop || (r.roiStart[d] == 0.0F && r.roiEnd[d] == 1.0F);
        r.sizes[d] = out == in.dims[d] && scale == 1.0 && whole ? 0 : out;
    }
    if (attrs.getInt("antialias", 0) != 0 && downsamples && r.mode != ResizeMode::Nearest)
        throw NodeError("antialias=1 (downsampling through an antialiasing filter) is not supported; without "
                        "antialias, or upsampling, it is");
    addResizeOp(ctx, node, r, attrs.getFloat("extrapolation_value", 0.0F));
}

void mapDepthToSpace(ImportContext& ctx, const NodeRef& node)
{
    const Attributes attrs(*node.proto);
    const TensorId x = ctx.activation(inputName(node, 0), "data");
    const Shape in = ctx.shapeOf(x); // a copy: new weights move the builder's tensors
    if (in.rank() != 4)
        throw NodeError("needs an NCHW input, not " + in.toString());
    const std::int64_t b = attrs.getInt("blocksize", 0);
    const std::int64_t n = in.dims[0], c = in.dims[1], h = in.dims[2], w = in.dims[3];
    std::vector<std::int64_t> split, perm, merged;
    if (node.opType() == "DepthToSpace") {
        if (b < 1 || c % (b * b) != 0)
            throw NodeError("blocksize " + std::to_string(b) + " does not divide the channels of " + in.toString());
        const std::string mode = attrs.getString("mode", "DCR");
        if (mode == "DCR") { // depth, column, row: [N, b, b, C/b^2, H, W]
            split = { n, b, b, c / (b * b), h, w };
            perm = { 0, 3, 4, 1, 5, 2 };
        } else if (mode == "CRD") { // column, row, depth: [N, C/b^2, b, b, H, W]
            split = { n, c / (b * b), b, b, h, w };
            perm = { 0, 1, 4, 2, 5, 3 };
        } else {
            throw NodeError("unknown mode '" + mode + "'");
        }
        merged = { n, c / (b * b), h * b, w * b };
    } else {
        if (b < 1 || h % b != 0 || w % b != 0)
            throw NodeError(
                "blocksize " + std::to_string(b) + " does not divide the height and width of " + in.toString());
        split = { n, c, h / b, b, w / b, b };
        perm = { 0, 3, 5, 1, 2, 4 };
        merged = { n, c * b * b, h / b, w / b };
    }
    // One op: the channel blocks as axes, moved next to the spatial ones, merged into them.
    OpSpec spec;
    spec.name = node.name;
    spec.kind = OpKind::Transpose;
    spec.inputs = { { x } };
    spec.layers.push_back(makeLayer(Reshape { ctx.batchAwareTarget(split, in) }));
    spec.layers.push_back(makeLayer(Transpose { perm }));
    spec.layers.push_back(makeLayer(Reshape { ctx.batchAwareTarget(merged, in) }));
    ctx.setActivation(node.proto->output(0), ctx.addOp(std::move(spec)));
}

namespace {

// Each (n, group) row normalised over its values: a layer norm over [N, groups, rest]'s last axis,
// scale 1, then the per-channel scale and bias (a batch norm with mean 0, variance 1). Instance
// normalisation is the case of one group per channel.
void addGroupNorm(ImportContext& ctx, const NodeRef& node, TensorId x, std::int64_t groups, float epsilon,
    std::array<TensorId, 2> affine)
{
    const Shape in = ctx.shapeOf(x);
    const std::int64_t channels = in.dims[1];
    const std::int64_t inner = in.elements() / (in.dims[0] * groups);
    LayerNorm norm;
    norm.axis = 2;
    norm.epsilon = epsilon;
    norm.bias = false;
    const auto ones = ctx.newWeight(node.name + ".unit_scale", Shape { inner }, std::vector<float>(inner, 1.0F));
    const auto zeros = ctx.newWeight(
        node.name + ".zero_mean", Shape { channels }, std::vector<float>(static_cast<std::size_t>(channels), 0.0F));
    const auto unit = ctx.newWeight(
        node.name + ".unit_variance", Shape { channels }, std::vector<float>(static_cast<std::size_t>(channels), 1.0F));
    OpSpec spec;
    spec.name = node.name;
    spec.kind = OpKind::LayerNorm;
    spec.inputs = { { x } };
    spec.layers.push_back(makeLayer(Reshape { { 0, groups, -1 } }));
    spec.layers.push_back(makeLayer(norm, { ones }));
    std::vector<std::int64_t> back = in.dims;
    back[0] = 0;
    spec.layers.push_back(makeLayer(Reshape { back }));
    spec.layers.push_back(makeLayer(BatchNorm { 0.0F }, { affine[0], affine[1], zeros, unit }));
    ctx.setActivation(node.proto->output(0), ctx.addOp(std::move(spec)));
}

Shape normalizedInput(ImportContext& ctx, TensorId x)
{
    const Shape in = ctx.shapeOf(x); // a copy: new weights move the builder's tensors
    if (in.rank() < 3)
        throw NodeError("needs an input with spatial dimensions, not " + in.toString());
    return in;
}

} // namespace

void mapInstanceNormalization(ImportContext& ctx, const NodeRef& node)
{
    const TensorId x = ctx.activation(inputName(node, 0), "data");
    const std::int64_t channels = normalizedInput(ctx, x).dims[1];
    const char* roles[] = { "scale", "bias" };
    std::array<TensorId, 2> affine {};
    for (int i = 1; i <= 2; ++i) {
        const auto v = ctx.constant(inputName(node, i), roles[i - 1]);
        if (v->size() != static_cast<std::size_t>(channels))
            throw NodeError(std::string(roles[i - 1]) + " has shape " + dimsToString(v->dims) + ", expected "
                + std::to_string(channels));
        affine[static_cast<std::size_t>(i - 1)] = ctx.weightOf(inputName(node, i));
    }
    addGroupNorm(ctx, node, x, channels, Attributes(*node.proto).getFloat("epsilon", 1e-5F), affine);
}

// GroupNormalization: opset 18 gives the scale and bias per group (repeated here over each group's
// channels), opset 21 per channel.
void mapGroupNormalization(ImportContext& ctx, const NodeRef& node)
{
    const Attributes attrs(*node.proto);
    const TensorId x = ctx.activation(inputName(node, 0), "X");
    const std::int64_t channels = normalizedInput(ctx, x).dims[1];
    const std::int64_t groups = attrs.getInt("num_groups", 0);
    if (groups < 1 || channels % groups != 0)
        throw NodeError("num_groups " + std::to_string(groups) + " does not divide the input's "
            + std::to_string(channels) + " channels");
    const bool perChannel = ctx.opset >= 21;
    const std::int64_t expected = perChannel ? channels : groups;
    const char* roles[] = { "scale", "bias" };
    std::array<TensorId, 2> affine {};
    for (int i = 1; i <= 2; ++i) {
        const auto v = ctx.constant(inputName(node, i), roles[i - 1]);
        if (v->size() != static_cast<std::size_t>(expected))
            throw NodeError(std::string(roles[i - 1]) + " has shape " + dimsToString(v->dims) + "; at opset "
                + std::to_string(ctx.opset) + " it holds one value per " + (perChannel ? "channel" : "group") + " ("
                + std::to_string(expected) + ")");
        if (perChannel) {
            affine[static_cast<std::size_t>(i - 1)] = ctx.weightOf(inputName(node, i));
            continue;
        }
        const auto perGroup = v->toFloats();
        std::vector<float> expanded(static_cast<std::size_t>(channels));
        for (std::size_t c = 0; c < expanded.size(); ++c)
            expanded[c] = perGroup[c / static_cast<std::size_t>(channels / groups)];
        affine[static_cast<std::size_t>(i - 1)]
            = ctx.newWeight(node.name + "." + roles[i - 1] + "_per_channel", Shape { channels }, std::move(expanded));
    }
    addGroupNorm(ctx, node, x, groups, attrs.getFloat("epsilon", 1e-5F), affine);
}

void mapLrn(ImportContext& ctx, const NodeRef& node)
{
    const Attributes attrs(*node.proto);
    const TensorId x = ctx.activation(inputName(node, 0), "X");
    if (ctx.shapeOf(x).rank() < 3)
        throw NodeError("needs an input with channels and spatial axes, not " + ctx.shapeOf(x).toString());
    Lrn l;
    l.size = attrs.getInt("size", 0);
    if (l.size < 1)
        throw NodeError("size " + std::to_string(l.size) + " must be at least 1");
    l.alpha = attrs.getFloat("alpha", 1e-4F);
    l.beta = attrs.getFloat("beta", 0.75F);
    l.bias = attrs.getFloat("bias", 1.0F);
    addUnaryOp(ctx, node, OpKind::Lrn, makeLayer(l));
}

} // namespace opsched::onnx_import
