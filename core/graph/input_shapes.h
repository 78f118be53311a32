// The input shapes a graph was made with, as files record them (schedule and mapping files, stored
// runs): a model with free input dimensions fits one set of them, and a file made for another set
// is refused with both named.
#pragma once

#include "graph/graph.h"
#include "graph/shape.h"

#include <nlohmann/json.hpp>

#include <string>

namespace opsched {

// Every graph input's full shape, by name.
InputShapes inputShapesOf(const Graph& graph);

// A file's "input_shapes": {"x": [1, 3, 48, 48]}; entries that are not lists are left out (the
// fingerprint check still refuses a file for another model). Empty when the field is missing.
InputShapes recordedInputShapes(const nlohmann::json& file);

// Empty when `recorded` (inputs a file names; others are not compared) matches the graph's inputs
// apart from the batch; else "it was made for inputs x=1x3x48x48; the model's inputs here are
// x=1x3x64x64 (free input dimensions are set with --shape)".
std::string inputShapesMismatch(const Graph& graph, const InputShapes& recorded);

} // namespace opsched
