// ONNX tensor files (a serialized TensorProto per .pb file) and ONNX test-data folders
// (input_0.pb, input_1.pb, ..., output_0.pb, ...): reference inputs and outputs for running a model.
#pragma once

#include "graph/graph.h"
#include "graph/shape.h"

#include <string>
#include <vector>

namespace opsched {

struct TensorData {
    std::string name; // the TensorProto's name (often the graph input or output it belongs to)
    Shape shape; // may hold 0 dimensions (empty tensors); rank 0 for scalars
    DataType sourceType = DataType::Float32; // Int64 for integer files (shape tensors)
    std::vector<float> values; // row-major; integers converted
};

// Reads one TensorProto file: float32 (also float64/float16) or int64 (also the narrower integers)
// data. Throws ImportError naming the file for anything else or a damaged file.
TensorData readTensorProto(const std::string& path);

// Writes `tensor` as a float32 TensorProto file (for tests and for saving run outputs).
void writeTensorProto(const std::string& path, const TensorData& tensor);

struct TestDataSet {
    std::vector<TensorData> inputs; // input_0.pb, input_1.pb, ... in order
    std::vector<TensorData> outputs; // output_0.pb, ...
};

// Reads a test_data_set_N folder. Throws ImportError when the folder is missing, holds neither
// input_0.pb nor output_0.pb, or a file cannot be read.
TestDataSet readTestDataSet(const std::string& dir);

// The set's input values in graph.inputs() order, ready for an executor: matched by name when
// every file names a graph input, by position otherwise. Throws ImportError when the count or a
// shape differs from the graph's (e.g. a graph imported at another batch).
std::vector<std::vector<float>> inputValuesFor(const Graph& graph, const TestDataSet& set);

} // namespace opsched
