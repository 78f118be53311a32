#include "map/problem/paper_devices.h"

#include "sim/simulator.h"
#include "util/error.h"
#include "util/random.h"

#include <cmath>
#include <numbers>

namespace opsched::map {

const std::vector<PaperDevice>& paperDevices()
{
    constexpr double GB = 1024.0 * 1024 * 1024;
    static const std::vector<PaperDevice> list {
        { "paper-a100", 1.0, 40 * GB, "the reference: sim:a100's roofline, 40 GB (Table II: 1x)" },
        { "paper-t4", 1.26, 16 * GB, "1.26x paper-a100 per op, 16 GB (Table II, RWNNs: 32.58 / 25.84 ms)" },
        { "paper-xeon", 7.10, 192 * GB, "7.10x paper-a100 per op, 192 GB (Table II, RWNNs: 183.39 / 25.84 ms)" },
        { "paper-t4-torchvision", 1.6, 16 * GB, "1.6x paper-a100 per op (Table II, Torchvision: 12.16 / 7.80 ms)" },
        { "paper-xeon-torchvision", 29.0, 192 * GB, "29x paper-a100 per op (Table II, Torchvision: 223.10 / 7.80 ms)" },
        // The CPU's spread is the measured one (CPU over simulated A100, per op: log sd 0.61 on
        // inception_v3); GPUs of two generations differ less from each other, half of it assumed.
        { "mixed-a100", 1.0, 40 * GB, "sim:a100's roofline, 40 GB: the reference of the mixed presets" },
        { "mixed-t4", 1.26, 16 * GB, "1.26x mixed-a100 on average, each op log-normally apart (sd 0.3), 16 GB", 0.3 },
        { "mixed-xeon", 7.10, 192 * GB, "7.10x mixed-a100 on average, each op log-normally apart (sd 0.6), 192 GB",
            0.6 },
    };
    return list;
}

double mixedCostFactor(std::string_view opName, std::string_view deviceName, double spread)
{
    if (spread <= 0)
        return 1;
    SplitMix64 rng(hashString(opName, hashString(deviceName) ^ 0x3C0575EEDULL));
    // Box-Muller on two uniforms in (0, 1].
    const double u1 = 1.0 - rng.uniform(), u2 = rng.uniform();
    const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
    return std::exp(spread * z - spread * spread / 2);
}

std::optional<DeviceCosts> paperDeviceCosts(const Graph& graph, const std::string& name)
{
    if (name.rfind("sim:paper-", 0) != 0 && name.rfind("sim:mixed-", 0) != 0)
        return std::nullopt;
    for (const PaperDevice& d : paperDevices()) {
        if ("sim:" + d.name != name)
            continue;
        auto seconds = simulatedOpSeconds(graph, findSimDevice("sim:a100"));
        for (const Op& op : graph.ops())
            seconds[op.id.value()] *= d.factor * mixedCostFactor(op.name, name, d.spread);
        return DeviceCosts { name, std::move(seconds), d.memoryBytes };
    }
    std::string known;
    for (const PaperDevice& d : paperDevices())
        known += (known.empty() ? "sim:" : ", sim:") + d.name;
    throw Error("unknown preset '" + name + "' (known: " + known + ")");
}

} // namespace opsched::map
