// Model references, the one way every command names a model: `zoo:NAME[?k=v&...]` or a file path.
#pragma once

#include "graph/graph.h"

#include <string>
#include <string_view>
#include <vector>

namespace opsched {

inline constexpr std::string_view kZooPrefix = "zoo:";

// Throws ModelRefError (or GraphError) with a message naming the problem. `shapes` sets an ONNX
// model's free input dimensions (importOnnx); built-in networks have none.
Graph loadModel(std::string_view ref, std::int64_t batch = 1, const InputShapes& shapes = {});

// The inputs of a model file with free dimensions besides the batch (dimension 0): what --shape
// must give, as the file declares them ("1x3xheightxwidth") and as a --shape value to fill in
// ("1x3xHEIGHTxWIDTH"). Empty for built-in networks and files without free dimensions.
struct FreeInput {
    std::string name;
    std::string declared;
    std::string example;
};
std::vector<FreeInput> freeInputs(std::string_view ref, std::int64_t batch = 1);

// "NAME=1x3x224x224" or "1x3x224x224" (the only input) into `shapes`; throws ModelRefError naming
// what is wrong with the text.
void addInputShape(InputShapes& shapes, const std::string& spec);
// The inverse, for messages and records: "x=1x3x224x224; y=1x128" (empty when there are none).
std::string inputShapesText(const InputShapes& shapes);

} // namespace opsched
