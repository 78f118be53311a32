#include "sim/sim_cpu.h"

#include <algorithm>

namespace opsched {

const std::vector<SimCpu>& simCpus()
{
    static const std::vector<SimCpu> list { {
        "xeon",
        "Intel Xeon (Skylake) 2.0 GHz, 20 cores, AVX-512: 1.28 TFLOP/s FP32, 6-channel DDR4 (the DiviML paper's CPU)",
        1.28e12,
        100e9,
        0.35,
        30e-6,
        192.0 * 1024 * 1024 * 1024,
    } };
    return list;
}

std::vector<double> simulatedOpSeconds(const Graph& graph, const SimCpu& cpu)
{
    std::vector<double> out(graph.opCount());
    for (const Op& op : graph.ops()) {
        double t = cpu.dispatchSeconds;
        for (const Layer& layer : op.layers)
            t += std::max(layer.cost.flops / cpu.peakFlops, layer.cost.bytes() / cpu.memoryBandwidth) / cpu.efficiency;
        if (op.layers.empty())
            t += std::max(op.cost.flops / cpu.peakFlops, op.cost.bytes() / cpu.memoryBandwidth) / cpu.efficiency;
        out[op.id.value()] = t;
    }
    return out;
}

} // namespace opsched
