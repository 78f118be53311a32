#include "graph/fingerprint.h"

#include "util/sha256.h"

namespace opsched {

std::string modelFingerprint(const Graph& graph)
{
    Sha256 hash;
    auto put = [&hash](const std::string& s) {
        hash.update(s);
        hash.update(std::string_view("\n", 1));
    };
    auto dimsWithoutBatch = [](const Shape& s) { return s.withBatch(1).toString(); };
    for (auto in : graph.inputs())
        put("input " + graph.tensor(in).name + " " + dimsWithoutBatch(graph.tensor(in).shape));
    for (const auto& op : graph.ops()) {
        put("op " + op.name + " " + toString(op.kind));
        for (const auto& term : op.inputs) {
            std::string line = "term";
            for (auto t : term)
                line += " " + graph.tensor(t).name;
            put(line);
        }
        for (const auto& layer : op.layers) {
            std::string line = std::string("layer ") + layer.kindName() + " " + toString(layer.activation.kind) + " "
                + dimsWithoutBatch(layer.output);
            for (auto w : layer.weights)
                line += " w" + graph.tensor(w).shape.toString();
            put(line);
        }
    }
    return hash.hexDigest();
}

} // namespace opsched
