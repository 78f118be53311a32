#include "exec/segment_plan.h"

#include "util/error.h"

#include <string>

namespace opsched::exec {

std::vector<Segment> cutSegments(const Graph& graph, const std::vector<std::uint32_t>& deviceOf,
                                 const std::vector<std::vector<std::uint32_t>>& order)
{
    const std::size_t n = graph.opCount();
    if (deviceOf.size() != n)
        throw Error("segments: " + std::to_string(deviceOf.size()) + " devices given for " + std::to_string(n) + " ops");
    std::vector<char> listed(n, 0);
    for (std::size_t u = 0; u < order.size(); ++u)
        for (std::uint32_t op : order[u]) {
            if (op >= n)
                throw Error("segments: op id " + std::to_string(op) + " out of range");
            if (listed[op])
                throw Error("segments: op '" + graph.op(OpId(op)).name + "' is listed twice");
            if (deviceOf[op] != u)
                throw Error("segments: op '" + graph.op(OpId(op)).name + "' is in the order of device " +
                            std::to_string(u) + " but mapped to device " + std::to_string(deviceOf[op]));
            listed[op] = 1;
        }
    for (std::size_t op = 0; op < n; ++op)
        if (!listed[op])
            throw Error("segments: op '" + graph.op(OpId(op)).name + "' is in no device's order");

    std::vector<Segment> segments;
    std::vector<char> received(graph.tensors().size(), 0); // per device, reset below
    for (std::uint32_t u = 0; u < order.size(); ++u) {
        std::fill(received.begin(), received.end(), 0);
        // Values from other devices that `op` needs and this device does not hold yet.
        auto missing = [&](std::uint32_t op) {
            std::vector<TensorId> out;
            for (TensorId t : graph.op(OpId(op)).inputTensors()) {
                const OpId producer = graph.tensor(t).producer;
                if (producer.valid() && deviceOf[producer.value()] != u && !received[t.value()])
                    out.push_back(t);
            }
            return out;
        };
        for (std::uint32_t op : order[u]) {
            const auto needs = missing(op);
            if (segments.empty() || segments.back().device != u || !needs.empty())
                segments.push_back(Segment{u, {}});
            for (TensorId t : needs)
                received[t.value()] = 1; // waited for at this segment's start
            segments.back().ops.push_back(OpId(op));
        }
    }
    return segments;
}

} // namespace opsched::exec
