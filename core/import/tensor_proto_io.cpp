#include "import/tensor_proto_io.h"

#include "import/import_error.h"

#include <filesystem>
#include <unordered_map>

#if OPSCHED_HAVE_ONNX
#include "import/onnx_loader.h"
#include "import/onnx_tensor.h"

#include <fstream>
#endif

namespace opsched {

#if OPSCHED_HAVE_ONNX

TensorData readTensorProto(const std::string& path)
{
    try {
        const std::string data = onnx_import::readFileLimited(path, onnx_import::kMaxModelBytes);
        onnx::TensorProto proto;
        if (!proto.ParseFromString(data))
            throw ImportError("not a TensorProto file (protobuf parsing failed)");
        auto t = onnx_import::decodeTensor(proto, "the tensor");
        TensorData out;
        out.name = proto.name();
        out.shape = Shape(t.dims);
        out.sourceType = t.integer ? DataType::Int64 : DataType::Float32;
        out.values = t.toFloats();
        return out;
    } catch (const Error& e) {
        throw ImportError("'" + path + "': " + e.what());
    }
}

void writeTensorProto(const std::string& path, const TensorData& tensor)
{
    onnx::TensorProto proto;
    proto.set_name(tensor.name);
    proto.set_data_type(onnx::TensorProto::FLOAT);
    for (auto d : tensor.shape.dims)
        proto.add_dims(d);
    proto.set_raw_data(
        std::string(reinterpret_cast<const char*>(tensor.values.data()), tensor.values.size() * sizeof(float)));
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out || !proto.SerializeToOstream(&out))
        throw ImportError("'" + path + "': cannot write the tensor file");
}

#else

TensorData readTensorProto(const std::string& path)
{
    throw ImportError("'" + path
        + "': this opsched was built without ONNX support (libonnx-dev), so it cannot read "
          "TensorProto files");
}

void writeTensorProto(const std::string& path, const TensorData&)
{
    throw ImportError("'" + path
        + "': this opsched was built without ONNX support (libonnx-dev), so it cannot write "
          "TensorProto files");
}

#endif

TestDataSet readTestDataSet(const std::string& dir)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw ImportError("'" + dir + "': no such test-data folder");
    TestDataSet set;
    for (int i = 0;; ++i) {
        const fs::path file = fs::path(dir) / ("input_" + std::to_string(i) + ".pb");
        if (!fs::exists(file, ec))
            break;
        set.inputs.push_back(readTensorProto(file.string()));
    }
    for (int i = 0;; ++i) {
        const fs::path file = fs::path(dir) / ("output_" + std::to_string(i) + ".pb");
        if (!fs::exists(file, ec))
            break;
        set.outputs.push_back(readTensorProto(file.string()));
    }
    if (set.inputs.empty() && set.outputs.empty())
        throw ImportError("'" + dir
            + "': holds neither input_0.pb nor output_0.pb (an ONNX test-data folder has "
              "input_N.pb and output_N.pb files)");
    return set;
}

std::vector<std::vector<float>> inputValuesFor(const Graph& graph, const TestDataSet& set)
{
    const auto& inputs = graph.inputs();
    if (set.inputs.size() != inputs.size())
        throw ImportError("the test data has " + std::to_string(set.inputs.size()) + " inputs, the model "
            + std::to_string(inputs.size()));
    std::unordered_map<std::string, const TensorData*> byName;
    for (const auto& t : set.inputs)
        byName.emplace(t.name, &t);
    bool named = byName.size() == inputs.size();
    for (auto id : inputs)
        named = named && byName.count(graph.tensor(id).name);

    std::vector<std::vector<float>> values;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const Tensor& expected = graph.tensor(inputs[i]);
        const TensorData& data = named ? *byName.at(expected.name) : set.inputs[i];
        if (data.shape != expected.shape)
            throw ImportError("test input " + std::to_string(i) + " ('" + data.name + "') has shape "
                + data.shape.toString() + ", the model's input '" + expected.name + "' " + expected.shape.toString());
        values.push_back(data.values);
    }
    return values;
}

} // namespace opsched
