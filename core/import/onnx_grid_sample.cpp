// ONNX GridSample (spatial transformers, TPS rectification in text recognition, flow warping) on
// 4-D inputs, composed of ops every executor has: the input as a table [C, N * H * W], per output
// position the grid's x and y mapped to pixels (align_corners either way), then per corner of the
// bilinear cell (or the nearest pixel) a row number, a weight and a gather of every channel's value
// there; the weighted corners summed and put back as [N, C, Ho, Wo]. Padding: zeros (a corner
// outside weighs 0) or border (coordinates clamped). Reflection padding and cubic mode are refused
// by name.
#include "import/import_error.h"
#include "import/onnx_composer.h"
#include "import/onnx_mapping_support.h"

#include <array>

namespace opsched::onnx_import {
namespace {

// One axis' sample positions: integer pixel coordinates (clamped into the image) and their weights.
struct AxisTaps {
    std::vector<TensorId> index, weight; // one per tap: 2 (bilinear) or 1 (nearest); weight invalid: 1
};

AxisTaps axisTaps(
    Composer& c, const std::string& axis, TensorId g, std::int64_t len, bool alignCorners, bool border, bool nearest)
{
    const auto l = static_cast<float>(len);
    // Pixel coordinate: align_corners maps -1 and 1 to the corner pixels' centres, else to the
    // image's edges: x (L - 1) / 2 + (L - 1) / 2, or x L / 2 + (L - 1) / 2.
    const float scale = alignCorners ? (l - 1.0F) / 2.0F : l / 2.0F;
    const TensorId scaled = c.withConstant(axis + "_scaled", g, BinaryKind::Mul, { scale });
    const Activation clamp { ActivationKind::Clip, 0.0F, l - 1.0F };
    const TensorId at = c.withConstant(axis + "_pixel", scaled, BinaryKind::Add, { (l - 1.0F) / 2.0F }, Shape { 1 },
        false, border ? clamp : Activation {});
    std::vector<std::pair<TensorId, TensorId>> taps; // (unclamped index, weight)
    if (nearest) { // halves to even, as ONNX Runtime rounds
        taps.emplace_back(c.unary(axis + "_nearest", at, { ActivationKind::Round }), TensorId {});
    } else {
        const TensorId lo = c.unary(axis + "_floor", at, { ActivationKind::Floor });
        const TensorId frac = c.binary(axis + "_frac", at, lo, BinaryKind::Sub);
        const TensorId rest = c.withConstant(axis + "_rest", frac, BinaryKind::Sub, { 1.0F }, Shape { 1 }, true);
        taps.emplace_back(lo, rest);
        taps.emplace_back(c.withConstant(axis + "_next", lo, BinaryKind::Add, { 1.0F }), frac);
    }
    AxisTaps out;
    for (std::size_t k = 0; k < taps.size(); ++k) {
        const std::string tap = axis + std::to_string(k);
        const TensorId clamped = c.unary(tap + "_clamped", taps[k].first, clamp);
        TensorId weight = taps[k].second;
        if (!border) { // zeros padding: a tap outside the image weighs 0
            const TensorId inside = c.binary(tap + "_inside", clamped, taps[k].first, BinaryKind::Equal);
            weight = nearest ? inside : c.binary(tap + "_weight", weight, inside, BinaryKind::Mul);
        }
        out.index.push_back(clamped);
        out.weight.push_back(weight);
    }
    return out;
}

} // namespace

void mapGridSample(ImportContext& ctx, const NodeRef& node)
{
    const Attributes attrs(*node.proto);
    const TensorId x = ctx.activation(inputName(node, 0), "X");
    if (!ctx.isActivation(inputName(node, 1)))
        throw NodeError("has a constant grid; opsched samples by grids the model computes");
    const TensorId grid = ctx.activation(inputName(node, 1), "grid");
    const Shape in = ctx.shapeOf(x), gs = ctx.shapeOf(grid);
    if (in.rank() != 4)
        throw NodeError("samples a " + std::to_string(in.rank()) + "-D input " + in.toString()
            + "; opsched supports 4-D (N, C, H, W) inputs");
    const std::int64_t n = in.dims[0], channels = in.dims[1], h = in.dims[2], w = in.dims[3];
    if (gs.rank() != 4 || gs.dims[0] != n || gs.dims[3] != 2)
        throw NodeError(
            "grid " + gs.toString() + " does not fit input " + in.toString() + " (expected [N, Ho, Wo, 2])");
    const std::string mode = attrs.getString("mode", "bilinear");
    const bool nearest = mode == "nearest";
    if (!nearest && mode != "bilinear" && mode != "linear")
        throw NodeError("mode '" + mode + "' is not supported (bilinear and nearest are)");
    const std::string padding = attrs.getString("padding_mode", "zeros");
    if (padding != "zeros" && padding != "border")
        throw NodeError("padding_mode '" + padding + "' is not supported (zeros and border are)");
    const bool alignCorners = attrs.getInt("align_corners", 0) != 0;
    const bool border = padding == "border";
    Composer c(ctx, node.name);
    // The input as rows of pixels, one row per channel: [C, N * H * W].
    OpSpec table;
    table.name = c.name("table");
    table.kind = OpKind::Transpose;
    table.inputs = { { x } };
    table.layers.push_back(makeLayer(Transpose { { 1, 0, 2, 3 } }));
    table.layers.push_back(makeLayer(Reshape { { channels, n * h * w } }));
    const TensorId pixels = ctx.addOp(std::move(table));
    // The grid's x and y, [N, Ho, Wo, 1] each.
    auto coordinate = [&](std::int64_t k, const char* what) {
        return addSimpleOp(
            ctx, c.name(what), OpKind::Slice, { { grid } }, makeLayer(Slice { { k }, { k + 1 }, { 3 }, { 1 } }));
    };
    const AxisTaps xs = axisTaps(c, "x", coordinate(0, "grid_x"), w, alignCorners, border, nearest);
    const AxisTaps ys = axisTaps(c, "y", coordinate(1, "grid_y"), h, alignCorners, border, nearest);
    std::vector<float> firstRow(static_cast<std::size_t>(n)); // each batch's first pixel row
    for (std::int64_t b = 0; b < n; ++b)
        firstRow[static_cast<std::size_t>(b)] = static_cast<float>(b * h * w);
    InputTerm corners;
    for (std::size_t j = 0; j < ys.index.size(); ++j)
        for (std::size_t i = 0; i < xs.index.size(); ++i) {
            const std::string corner = "corner" + std::to_string(j) + std::to_string(i);
            // row = batch * H * W + y * W + x, an integer-valued float well inside float's range.
            const TensorId yRows
                = c.withConstant(corner + "_y_rows", ys.index[j], BinaryKind::Mul, { static_cast<float>(w) });
            const TensorId rowInImage = c.binary(corner + "_pixel", yRows, xs.index[i], BinaryKind::Add);
            const TensorId row
                = c.withConstant(corner + "_row", rowInImage, BinaryKind::Add, firstRow, Shape { n, 1, 1, 1 });
            Gather g;
            g.axis = 1;
            const TensorId values = addSimpleOp(ctx, c.name(corner + "_values"), OpKind::Gather,
                { { pixels }, { row } }, makeLayer(g)); // [C, N, Ho, Wo, 1]
            TensorId weight = ys.weight[j].valid() ? ys.weight[j] : xs.weight[i];
            if (ys.weight[j].valid() && xs.weight[i].valid())
                weight = c.binary(corner + "_weight", ys.weight[j], xs.weight[i], BinaryKind::Mul);
            corners.push_back(
                weight.valid() ? c.binary(corner + "_weighted", values, weight, BinaryKind::Mul) : values);
        }
    TensorId sum = corners.front();
    if (corners.size() > 1) // one op: the corners as one summed term
        sum = addSimpleOp(ctx, c.name("sum"), OpKind::Add, { corners }, makeLayer(Identity {}));
    // [C, N, Ho, Wo, 1] -> [N, C, Ho, Wo].
    OpSpec back;
    back.name = node.name;
    back.kind = OpKind::Transpose;
    back.inputs = { { sum } };
    back.layers.push_back(makeLayer(Transpose { { 1, 0, 2, 3, 4 } }));
    back.layers.push_back(makeLayer(Reshape { { n, channels, gs.dims[1], gs.dims[2] } }));
    ctx.setActivation(node.proto->output(0), ctx.addOp(std::move(back)));
}

} // namespace opsched::onnx_import
