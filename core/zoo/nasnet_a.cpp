// NASNet-A large (Zoph et al. 2018), 331x331, stem 96, filters 168, six normal cells per repeat:
// 374 schedulable units as in the IOS benchmark. Each separable branch is two Relu-SepConv units;
// the adapters on a cell's inputs are Relu-Conv 1x1 units.
#include "zoo/net_builder.h"
#include "zoo/networks.h"

namespace opsched::zoo {
namespace {

// relu-sep(k, stride) to the input's width, then relu-sep(k) to `out`.
TensorId separable(
    NetBuilder& b, const std::string& name, TensorId x, std::int64_t out, std::int64_t k, std::int64_t stride)
{
    const auto y = b.reluSepConv(name + "_1", { { x } }, b.channels(x), k, stride, k / 2);
    return b.reluSepConv(name + "_2", { { y } }, out, k, 1, k / 2);
}

// The stem's variant widens to `out` in its first unit.
TensorId separableStem(
    NetBuilder& b, const std::string& name, TensorId x, std::int64_t out, std::int64_t k, std::int64_t stride)
{
    const auto y = b.reluSepConv(name + "_1", { { x } }, out, k, stride, k / 2);
    return b.reluSepConv(name + "_2", { { y } }, out, k, 1, k / 2);
}

// Reduction-style cell body shared by both stems and the reduction cells. `pooled` feeds the
// pooling branches and the 5x5 branch of the first combination; `sepRight` builds the separable
// branches that read `other`.
template <typename SepFn>
TensorId reductionBody(
    NetBuilder& b, const std::string& c, TensorId pooled, TensorId other, SepFn sepRight, std::int64_t out)
{
    const TensorId left = pooled;
    const TensorId right = other;
    const auto c0l = separable(b, c + ".comb0_left", left, out, 5, 2);
    const auto c0r = sepRight(c + ".comb0_right", right, 7);
    const auto c0 = b.combine(c + ".comb0", { { c0l, c0r } });
    const auto c1l = b.maxPool(c + ".comb1_left", { { left } }, 3, 2, 1);
    const auto c1r = sepRight(c + ".comb1_right", right, 7);
    const auto c1 = b.combine(c + ".comb1", { { c1l, c1r } });
    const auto c2l = b.avgPool(c + ".comb2_left", { { left } }, 3, 2, 1);
    const auto c2r = sepRight(c + ".comb2_right", right, 5);
    const auto c3 = b.avgPool(c + ".comb3_right", { { c0 } }, 3, 1, 1);
    const auto c4l = separable(b, c + ".comb4_left", c0, out, 3, 1);
    const auto c4r = b.maxPool(c + ".comb4_right", { { left } }, 3, 2, 1);
    return b.combine(c + ".concat", { { c1 }, { c2l, c2r }, { c3, c1 }, { c4l, c4r } });
}

TensorId stem0(NetBuilder& b, TensorId x, std::int64_t f)
{
    const auto x1 = b.reluConv("cell_stem_0.conv_1x1", { { x } }, f, 1);
    auto sep
        = [&](const std::string& name, TensorId in, std::int64_t k) { return separableStem(b, name, in, f, k, 2); };
    return reductionBody(b, "cell_stem_0", x1, x, sep, f);
}

TensorId stem1(NetBuilder& b, TensorId hp, TensorId h, std::int64_t f)
{
    const auto left = b.reluConv("cell_stem_1.conv_1x1", { { hp } }, f, 1);
    const auto r1 = b.reluConv("cell_stem_1.path_1", { { h } }, f / 2, 1, 2);
    const auto r2 = b.reluConv("cell_stem_1.path_2", { { h } }, f / 2, 1, 2);
    const auto right = b.combine("cell_stem_1.path_concat", { { r1 }, { r2 } });
    auto sep = [&](const std::string& name, TensorId in, std::int64_t k) { return separable(b, name, in, f, k, 2); };
    return reductionBody(b, "cell_stem_1", left, right, sep, f);
}

TensorId reductionCell(NetBuilder& b, const std::string& c, TensorId x, TensorId prev, std::int64_t f)
{
    const auto left = b.reluConv(c + ".conv_prev_1x1", { { prev } }, f, 1);
    const auto right = b.reluConv(c + ".conv_1x1", { { x } }, f, 1);
    auto sep = [&](const std::string& name, TensorId in, std::int64_t k) { return separable(b, name, in, f, k, 2); };
    // Here the cell's own input (right) is the pooled one.
    return reductionBody(b, c, right, left, sep, f);
}

// Normal cell; `left` is already adapted to the cell's width. The first cell's 3x3 branch of the
// first combination reads the right input, a normal cell's the left one.
TensorId normalBody(
    NetBuilder& b, const std::string& c, TensorId left, TensorId right, TensorId comb0RightInput, std::int64_t f)
{
    const auto c0l = separable(b, c + ".comb0_left", right, f, 5, 1);
    const auto c0r = separable(b, c + ".comb0_right", comb0RightInput, f, 3, 1);
    const auto c1l = separable(b, c + ".comb1_left", left, f, 5, 1);
    const auto c1r = separable(b, c + ".comb1_right", left, f, 3, 1);
    const auto c2l = b.avgPool(c + ".comb2_left", { { right } }, 3, 1, 1);
    const auto c3l = b.avgPool(c + ".comb3_left", { { left } }, 3, 1, 1);
    const auto c3r = b.avgPool(c + ".comb3_right", { { left } }, 3, 1, 1);
    const auto c4l = separable(b, c + ".comb4_left", right, f, 3, 1);
    return b.combine(
        c + ".concat", { { left }, { c0l, c0r }, { c1l, c1r }, { c2l, left }, { c3l, c3r }, { c4l, right } });
}

TensorId firstCell(NetBuilder& b, const std::string& c, TensorId x, TensorId prev, std::int64_t f)
{
    // The previous cell has twice the resolution: two strided 1x1 paths, concatenated.
    const auto p1 = b.reluConv(c + ".path_1", { { prev } }, f / 2, 1, 2);
    const auto p2 = b.reluConv(c + ".path_2", { { prev } }, f / 2, 1, 2);
    const auto left = b.combine(c + ".path_concat", { { p1 }, { p2 } });
    const auto right = b.reluConv(c + ".conv_1x1", { { x } }, f, 1);
    return normalBody(b, c, left, right, right, f);
}

TensorId normalCell(NetBuilder& b, const std::string& c, TensorId x, TensorId prev, std::int64_t f)
{
    const auto left = b.reluConv(c + ".conv_prev_1x1", { { prev } }, f, 1);
    const auto right = b.reluConv(c + ".conv_1x1", { { x } }, f, 1);
    return normalBody(b, c, left, right, left, f);
}

} // namespace

Graph nasnetA(std::int64_t batch)
{
    constexpr std::int64_t stemFilters = 96;
    constexpr std::int64_t f = 168;
    NetBuilder b("nasnet_a", kDefaultWeightSeed);
    const auto in = b.input("input", Shape { batch, 3, 331, 331 });
    const auto v1 = b.conv("conv0", { { in } }, stemFilters, 3, 2, 0, Activation::none());
    const auto v2 = stem0(b, v1, f / 4);
    const auto v3 = stem1(b, v2, v1, f / 2);

    TensorId prev = v2, x = v3;
    auto step = [&](TensorId next) {
        prev = x;
        x = next;
    };
    int cell = 0;
    auto name = [&] { return "cell_" + std::to_string(cell++); };
    // Three repeats of (first cell, five normal cells), with a reduction cell between them.
    for (int repeat = 0; repeat < 3; ++repeat) {
        const std::int64_t width = f << repeat;
        if (repeat > 0) {
            const auto beforeReduction = prev;
            step(reductionCell(b, "reduction_cell_" + std::to_string(repeat - 1), x, prev, width));
            // The first cell after a reduction reads the cell before the reduction as its "prev".
            prev = beforeReduction;
        }
        step(firstCell(b, name(), x, prev, width));
        for (int i = 0; i < 5; ++i)
            step(normalCell(b, name(), x, prev, width));
    }
    const auto r = b.relu("relu", { { x } });
    const auto pooled = b.globalAvgPool("avgpool", { { r } });
    b.fullyConnected("fc", { { pooled } }, 1000);
    return std::move(b).finish();
}

} // namespace opsched::zoo
