// Inception V3 (Szegedy et al. 2016) as scheduled by IOS: every conv carries its ReLU, each module
// ends in a concat. Names follow torchvision's modules so results can be lined up with an export.
#include "zoo/net_builder.h"
#include "zoo/networks.h"

namespace opsched::zoo {
namespace {

TensorId moduleA(NetBuilder& b, const std::string& m, TensorId x, std::int64_t poolFeatures)
{
    const auto b1 = b.conv(m + ".branch1x1", { { x } }, 64, 1);
    auto b5 = b.conv(m + ".branch5x5_1", { { x } }, 48, 1);
    b5 = b.conv(m + ".branch5x5_2", { { b5 } }, 64, 5, 1, 2);
    auto b3 = b.conv(m + ".branch3x3dbl_1", { { x } }, 64, 1);
    b3 = b.conv(m + ".branch3x3dbl_2", { { b3 } }, 96, 3, 1, 1);
    b3 = b.conv(m + ".branch3x3dbl_3", { { b3 } }, 96, 3, 1, 1);
    auto bp = b.avgPool(m + ".avg_pool", { { x } }, 3, 1, 1);
    bp = b.conv(m + ".branch_pool", { { bp } }, poolFeatures, 1);
    return b.combine(m + ".concat", { { b1 }, { b5 }, { b3 }, { bp } });
}

TensorId moduleB(NetBuilder& b, const std::string& m, TensorId x)
{
    const auto b3 = b.conv(m + ".branch3x3", { { x } }, 384, 3, 2);
    auto bd = b.conv(m + ".branch3x3dbl_1", { { x } }, 64, 1);
    bd = b.conv(m + ".branch3x3dbl_2", { { bd } }, 96, 3, 1, 1);
    bd = b.conv(m + ".branch3x3dbl_3", { { bd } }, 96, 3, 2);
    const auto bp = b.maxPool(m + ".max_pool", { { x } }, 3, 2);
    return b.combine(m + ".concat", { { b3 }, { bd }, { bp } });
}

TensorId moduleC(NetBuilder& b, const std::string& m, TensorId x, std::int64_t c7)
{
    const auto b1 = b.conv(m + ".branch1x1", { { x } }, 192, 1);
    auto b7 = b.conv(m + ".branch7x7_1", { { x } }, c7, 1);
    b7 = b.conv(m + ".branch7x7_2", { { b7 } }, c7, { 1, 7 }, 1, { 0, 3 });
    b7 = b.conv(m + ".branch7x7_3", { { b7 } }, 192, { 7, 1 }, 1, { 3, 0 });
    auto bd = b.conv(m + ".branch7x7dbl_1", { { x } }, c7, 1);
    bd = b.conv(m + ".branch7x7dbl_2", { { bd } }, c7, { 7, 1 }, 1, { 3, 0 });
    bd = b.conv(m + ".branch7x7dbl_3", { { bd } }, c7, { 1, 7 }, 1, { 0, 3 });
    bd = b.conv(m + ".branch7x7dbl_4", { { bd } }, c7, { 7, 1 }, 1, { 3, 0 });
    bd = b.conv(m + ".branch7x7dbl_5", { { bd } }, 192, { 1, 7 }, 1, { 0, 3 });
    auto bp = b.avgPool(m + ".avg_pool", { { x } }, 3, 1, 1);
    bp = b.conv(m + ".branch_pool", { { bp } }, 192, 1);
    return b.combine(m + ".concat", { { b1 }, { b7 }, { bd }, { bp } });
}

TensorId moduleD(NetBuilder& b, const std::string& m, TensorId x)
{
    auto b3 = b.conv(m + ".branch3x3_1", { { x } }, 192, 1);
    b3 = b.conv(m + ".branch3x3_2", { { b3 } }, 320, 3, 2);
    auto b7 = b.conv(m + ".branch7x7x3_1", { { x } }, 192, 1);
    b7 = b.conv(m + ".branch7x7x3_2", { { b7 } }, 192, { 1, 7 }, 1, { 0, 3 });
    b7 = b.conv(m + ".branch7x7x3_3", { { b7 } }, 192, { 7, 1 }, 1, { 3, 0 });
    b7 = b.conv(m + ".branch7x7x3_4", { { b7 } }, 192, 3, 2);
    const auto bp = b.maxPool(m + ".max_pool", { { x } }, 3, 2);
    return b.combine(m + ".concat", { { b3 }, { b7 }, { bp } });
}

TensorId moduleE(NetBuilder& b, const std::string& m, TensorId x)
{
    const auto b1 = b.conv(m + ".branch1x1", { { x } }, 320, 1);
    const auto b3 = b.conv(m + ".branch3x3_1", { { x } }, 384, 1);
    const auto b3a = b.conv(m + ".branch3x3_2a", { { b3 } }, 384, { 1, 3 }, 1, { 0, 1 });
    const auto b3b = b.conv(m + ".branch3x3_2b", { { b3 } }, 384, { 3, 1 }, 1, { 1, 0 });
    auto bd = b.conv(m + ".branch3x3dbl_1", { { x } }, 448, 1);
    bd = b.conv(m + ".branch3x3dbl_2", { { bd } }, 384, 3, 1, 1);
    const auto bda = b.conv(m + ".branch3x3dbl_3a", { { bd } }, 384, { 1, 3 }, 1, { 0, 1 });
    const auto bdb = b.conv(m + ".branch3x3dbl_3b", { { bd } }, 384, { 3, 1 }, 1, { 1, 0 });
    auto bp = b.avgPool(m + ".avg_pool", { { x } }, 3, 1, 1);
    bp = b.conv(m + ".branch_pool", { { bp } }, 192, 1);
    return b.combine(m + ".concat", { { b1 }, { b3a }, { b3b }, { bda }, { bdb }, { bp } });
}

} // namespace

Graph inceptionV3(std::int64_t batch)
{
    NetBuilder b("inception_v3", kDefaultWeightSeed);
    auto x = b.input("input", Shape { batch, 3, 299, 299 });
    x = b.conv("Conv2d_1a_3x3", { { x } }, 32, 3, 2);
    x = b.conv("Conv2d_2a_3x3", { { x } }, 32, 3);
    x = b.conv("Conv2d_2b_3x3", { { x } }, 64, 3, 1, 1);
    x = b.maxPool("maxpool1", { { x } }, 3, 2);
    x = b.conv("Conv2d_3b_1x1", { { x } }, 80, 1);
    x = b.conv("Conv2d_4a_3x3", { { x } }, 192, 3);
    x = b.maxPool("maxpool2", { { x } }, 3, 2);
    x = moduleA(b, "Mixed_5b", x, 32);
    x = moduleA(b, "Mixed_5c", x, 64);
    x = moduleA(b, "Mixed_5d", x, 64);
    x = moduleB(b, "Mixed_6a", x);
    x = moduleC(b, "Mixed_6b", x, 128);
    x = moduleC(b, "Mixed_6c", x, 160);
    x = moduleC(b, "Mixed_6d", x, 160);
    x = moduleC(b, "Mixed_6e", x, 192);
    x = moduleD(b, "Mixed_7a", x);
    x = moduleE(b, "Mixed_7b", x);
    x = moduleE(b, "Mixed_7c", x);
    x = b.globalAvgPool("avgpool", { { x } });
    b.fullyConnected("fc", { { x } }, 1000);
    return std::move(b).finish();
}

} // namespace opsched::zoo
