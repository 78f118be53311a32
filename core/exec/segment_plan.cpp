#include "exec/segment_plan.h"

#include "util/error.h"

#include <algorithm>
#include <string>

namespace opsched::exec {

std::vector<Segment> cutSegments(const Graph& graph, const std::vector<std::uint32_t>& deviceOf,
    const std::vector<std::vector<std::uint32_t>>& order)
{
    const std::size_t n = graph.opCount();
    if (deviceOf.size() != n)
        throw Error(
            "segments: " + std::to_string(deviceOf.size()) + " devices given for " + std::to_string(n) + " ops");
    std::vector<char> listed(n, 0);
    for (std::size_t u = 0; u < order.size(); ++u)
        for (std::uint32_t op : order[u]) {
            if (op >= n)
                throw Error("segments: op id " + std::to_string(op) + " out of range");
            if (listed[op])
                throw Error("segments: op '" + graph.op(OpId(op)).name + "' is listed twice");
            if (deviceOf[op] != u)
                throw Error("segments: op '" + graph.op(OpId(op)).name + "' is in the order of device "
                    + std::to_string(u) + " but mapped to device " + std::to_string(deviceOf[op]));
            listed[op] = 1;
        }
    for (std::size_t op = 0; op < n; ++op)
        if (!listed[op])
            throw Error("segments: op '" + graph.op(OpId(op)).name + "' is in no device's order");

    // position[op]: its place in its device's order. A device that waited for the op at position
    // q of device w holds every value w made up to q (w runs its ops in order and a segment
    // publishes when it ends), so those need no further wait: done[w] = q + 1.
    std::vector<std::size_t> position(n);
    for (const auto& ops : order)
        for (std::size_t i = 0; i < ops.size(); ++i)
            position[ops[i]] = i;
    std::vector<Segment> segments;
    for (std::uint32_t u = 0; u < order.size(); ++u) {
        std::vector<std::size_t> done(order.size(), 0);
        for (std::uint32_t op : order[u]) {
            std::vector<std::size_t> need = done;
            for (TensorId t : graph.op(OpId(op)).inputTensors()) {
                const OpId producer = graph.tensor(t).producer;
                if (producer.valid() && deviceOf[producer.value()] != u)
                    need[deviceOf[producer.value()]]
                        = std::max(need[deviceOf[producer.value()]], position[producer.value()] + 1);
            }
            if (segments.empty() || segments.back().device != u || need != done)
                segments.push_back(Segment { u, {} });
            done = std::move(need); // waited for at this segment's start
            segments.back().ops.push_back(OpId(op));
        }
    }
    return segments;
}

} // namespace opsched::exec
