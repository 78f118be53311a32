// GoogLeNet / Inception v1 (Szegedy et al. 2015), 224x224, without the auxiliary classifiers and
// local response normalisation.
#include "zoo/net_builder.h"
#include "zoo/networks.h"

namespace opsched::zoo {
namespace {

struct InceptionWidths {
    std::int64_t c1, r3, c3, r5, c5, pool;
};

TensorId inception(NetBuilder& b, const std::string& m, TensorId x, InceptionWidths w)
{
    const auto b1 = b.conv(m + ".branch1", { { x } }, w.c1, 1);
    auto b2 = b.conv(m + ".branch2_reduce", { { x } }, w.r3, 1);
    b2 = b.conv(m + ".branch2", { { b2 } }, w.c3, 3, 1, 1);
    auto b3 = b.conv(m + ".branch3_reduce", { { x } }, w.r5, 1);
    b3 = b.conv(m + ".branch3", { { b3 } }, w.c5, 5, 1, 2);
    auto b4 = b.maxPool(m + ".branch4_pool", { { x } }, 3, 1, 1);
    b4 = b.conv(m + ".branch4", { { b4 } }, w.pool, 1);
    return b.combine(m + ".concat", { { b1 }, { b2 }, { b3 }, { b4 } });
}

} // namespace

Graph googLeNet(std::int64_t batch)
{
    NetBuilder b("googlenet", kDefaultWeightSeed);
    auto x = b.input("input", Shape { batch, 3, 224, 224 });
    x = b.conv("conv1", { { x } }, 64, 7, 2, 3);
    x = b.maxPool("maxpool1", { { x } }, 3, 2, 0, true);
    x = b.conv("conv2", { { x } }, 64, 1);
    x = b.conv("conv3", { { x } }, 192, 3, 1, 1);
    x = b.maxPool("maxpool2", { { x } }, 3, 2, 0, true);
    x = inception(b, "inception3a", x, { 64, 96, 128, 16, 32, 32 });
    x = inception(b, "inception3b", x, { 128, 128, 192, 32, 96, 64 });
    x = b.maxPool("maxpool3", { { x } }, 3, 2, 0, true);
    x = inception(b, "inception4a", x, { 192, 96, 208, 16, 48, 64 });
    x = inception(b, "inception4b", x, { 160, 112, 224, 24, 64, 64 });
    x = inception(b, "inception4c", x, { 128, 128, 256, 24, 64, 64 });
    x = inception(b, "inception4d", x, { 112, 144, 288, 32, 64, 64 });
    x = inception(b, "inception4e", x, { 256, 160, 320, 32, 128, 128 });
    x = b.maxPool("maxpool4", { { x } }, 2, 2, 0, true);
    x = inception(b, "inception5a", x, { 256, 160, 320, 32, 128, 128 });
    x = inception(b, "inception5b", x, { 384, 192, 384, 48, 128, 128 });
    x = b.globalAvgPool("avgpool", { { x } });
    b.fullyConnected("fc", { { x } }, 1000);
    return std::move(b).finish();
}

} // namespace opsched::zoo
