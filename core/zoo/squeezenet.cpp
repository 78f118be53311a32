// SqueezeNet 1.0 (Iandola et al. 2016) with the paper's bypass connections: a plain sum where the
// fire module keeps its width, a 1x1 conv on the bypass where it grows.
#include "zoo/net_builder.h"
#include "zoo/networks.h"

namespace opsched::zoo {
namespace {

TensorId fire(NetBuilder& b, const std::string& m, TensorId x, std::int64_t squeeze, std::int64_t expand)
{
    const auto s = b.conv(m + ".squeeze", { { x } }, squeeze, 1);
    const auto e3 = b.conv(m + ".expand3x3", { { s } }, expand, 3, 1, 1);
    const auto e1 = b.conv(m + ".expand1x1", { { s } }, expand, 1);
    const auto cat = b.combine(m + ".concat", { { e3 }, { e1 } });
    TensorId bypass = x;
    if (b.channels(x) != 2 * expand)
        bypass = b.conv(m + ".bypass", { { x } }, 2 * expand, 1);
    return b.combine(m + ".add", { { cat, bypass } });
}

} // namespace

Graph squeezeNet(std::int64_t batch)
{
    NetBuilder b("squeezenet", kDefaultWeightSeed);
    auto x = b.input("input", Shape { batch, 3, 224, 224 });
    x = b.conv("conv1", { { x } }, 96, 7, 2, 3);
    x = b.maxPool("maxpool1", { { x } }, 3, 2);
    x = fire(b, "fire2", x, 16, 64);
    x = fire(b, "fire3", x, 16, 64);
    x = fire(b, "fire4", x, 32, 128);
    x = b.maxPool("maxpool4", { { x } }, 3, 2);
    x = fire(b, "fire5", x, 32, 128);
    x = fire(b, "fire6", x, 48, 192);
    x = fire(b, "fire7", x, 48, 192);
    x = fire(b, "fire8", x, 64, 256);
    x = b.maxPool("maxpool8", { { x } }, 3, 2);
    x = fire(b, "fire9", x, 64, 256);
    x = b.conv("conv10", { { x } }, 1000, 1);
    b.globalAvgPool("avgpool", { { x } });
    return std::move(b).finish();
}

} // namespace opsched::zoo
