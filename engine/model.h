// Opening a model, the first step of every user action: a model reference (`zoo:NAME[?k=v&...]` or a
// model file) at a batch, with an ONNX file's free input dimensions (--shape, the window's dialog),
// and what `info` and the window's model summary say about it.
#pragma once

#include "engine/requests.h"

#include "graph/graph.h"
#include "model/model_ref.h"
#include "report/model_summary.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace opsched::engine {

// Throws Error naming the problem: an unknown network, an unreadable or malformed file, an
// unsupported operator, a free dimension `shapes` leaves open (naming the flag that sets it).
Graph openModel(const ModelRequest& request);

// The inputs of a model file whose dimensions besides the batch are free: what `shapes` must give
// (`shapes` itself is not read). Empty for built-in networks and files without free dimensions.
std::vector<FreeInput> freeDimensions(const ModelRequest& request);

// "NAME=1x3x224x224" or "1x3x224x224" (a model's only input) into `shapes`; throws Error naming
// what is wrong with the text.
void addShapeSpec(InputShapes& shapes, const std::string& spec);
// The inverse, for messages, records and the window's memory: "x=1x3x224x224; y=1x128".
std::string shapesText(const InputShapes& shapes);

// `info`: sizes, work, width, blocks, critical path, as JSON (docs/cli.md) and as text.
struct ModelDescription {
    ModelSummary summary;
    nlohmann::ordered_json json;
    std::string text;
};
ModelDescription describeModel(const Graph& graph);

} // namespace opsched::engine
