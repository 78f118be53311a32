// ONNX models -> IR graphs. loadModel calls this for .onnx files; it is also usable directly.
#pragma once

#include "graph/graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace opsched {

// Imports the model at `path`. `batch` 0 keeps the model's own batch size (1 when it is symbolic);
// another value replaces dimension 0 of the graph inputs. Conv -> BatchNormalization ->
// activation chains become one op; Identity and Dropout disappear; constant and shape
// computations are folded. Throws ImportError (an opsched::Error) naming the file and the
// problem: unreadable files, checker and shape-inference failures, cycles, missing values, and
// every unsupported node at once. `shapes` gives symbolic (free) input dimensions; a dimension
// still symbolic, a name that is no input, or a value that contradicts a fixed dimension is an
// ImportError naming the input, the dimension and the --shape flag that sets it.
Graph importOnnx(const std::string& path, std::int64_t batch = 0, const InputShapes& shapes = {});

// A graph input as the file declares it: per dimension its value, or 0 and its symbolic name
// ("" when it has none).
struct DeclaredInput {
    std::string name;
    std::vector<std::int64_t> dims;
    std::vector<std::string> symbols;
};
// The model's graph inputs (initializers listed as inputs left out). Throws ImportError.
std::vector<DeclaredInput> declaredInputs(const std::string& path);
// "1x3xheightxwidth"; and what --shape would give, free dimensions in capitals: "1x3xHEIGHTxWIDTH".
std::string declaredText(const DeclaredInput& in);
std::string exampleText(const DeclaredInput& in, std::int64_t batch);

} // namespace opsched
