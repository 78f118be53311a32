#include "map/problem/paper_devices.h"

#include "sim/simulator.h"
#include "util/error.h"

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
    };
    return list;
}

std::optional<DeviceCosts> paperDeviceCosts(const Graph& graph, const std::string& name)
{
    if (name.rfind("sim:paper-", 0) != 0)
        return std::nullopt;
    for (const PaperDevice& d : paperDevices()) {
        if ("sim:" + d.name != name)
            continue;
        auto seconds = simulatedOpSeconds(graph, findSimDevice("sim:a100"));
        for (double& s : seconds)
            s *= d.factor;
        return DeviceCosts { name, std::move(seconds), d.memoryBytes };
    }
    std::string known;
    for (const PaperDevice& d : paperDevices())
        known += (known.empty() ? "sim:" : ", sim:") + d.name;
    throw Error("unknown paper preset '" + name + "' (known: " + known + ")");
}

} // namespace opsched::map
