// Builds small ONNX models in C++ for the importer tests: inputs, initializers, nodes with
// attributes, and saving to a temporary file.
#pragma once

#include "graph/graph.h"
#include "import/onnx_importer.h"
#include "util/error.h"

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace opsched::test {

class ModelMaker {
public:
    explicit ModelMaker(int opset = 13)
    {
        model_.set_ir_version(8);
        model_.set_producer_name("opsched-tests");
        auto* op = model_.add_opset_import();
        op->set_domain("");
        op->set_version(opset);
        model_.mutable_graph()->set_name("test");
    }

    onnx::ModelProto& model() { return model_; }
    onnx::GraphProto& graph() { return *model_.mutable_graph(); }

    // dims: -1 becomes a symbolic dimension named `symbol`.
    ModelMaker& input(const std::string& name, const std::vector<std::int64_t>& dims,
        int type = onnx::TensorProto::FLOAT, const std::string& symbol = "N")
    {
        auto* v = graph().add_input();
        v->set_name(name);
        auto* t = v->mutable_type()->mutable_tensor_type();
        t->set_elem_type(type);
        auto* shape = t->mutable_shape();
        for (auto d : dims) {
            auto* dim = shape->add_dim();
            if (d < 0)
                dim->set_dim_param(symbol);
            else
                dim->set_dim_value(d);
        }
        return *this;
    }

    // Without dims, save() fills in the shape ONNX infers (the checker wants output shapes).
    ModelMaker& output(const std::string& name, const std::vector<std::int64_t>& dims = {}, bool shaped = false)
    {
        auto* v = graph().add_output();
        v->set_name(name);
        auto* t = v->mutable_type()->mutable_tensor_type();
        t->set_elem_type(onnx::TensorProto::FLOAT);
        if (shaped || !dims.empty())
            for (auto d : dims)
                t->mutable_shape()->add_dim()->set_dim_value(d);
        return *this;
    }

    ModelMaker& weight(const std::string& name, const std::vector<std::int64_t>& dims, const std::vector<float>& values)
    {
        auto* t = graph().add_initializer();
        t->set_name(name);
        t->set_data_type(onnx::TensorProto::FLOAT);
        for (auto d : dims)
            t->add_dims(d);
        for (auto v : values)
            t->add_float_data(v);
        return *this;
    }

    // A weight of `dims` filled with 0.01, 0.02, ... (distinct values to check layouts).
    ModelMaker& ramp(const std::string& name, const std::vector<std::int64_t>& dims)
    {
        std::int64_t n = 1;
        for (auto d : dims)
            n *= d;
        std::vector<float> values(static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < values.size(); ++i)
            values[i] = 0.01F * static_cast<float>(i + 1);
        return weight(name, dims, values);
    }

    // An int64 initializer of any shape (indices, for gathers and scatters).
    ModelMaker& int64s(
        const std::string& name, const std::vector<std::int64_t>& dims, const std::vector<std::int64_t>& values)
    {
        auto* t = graph().add_initializer();
        t->set_name(name);
        t->set_data_type(onnx::TensorProto::INT64);
        for (auto d : dims)
            t->add_dims(d);
        for (auto v : values)
            t->add_int64_data(v);
        return *this;
    }

    ModelMaker& ints(const std::string& name, const std::vector<std::int64_t>& values)
    {
        auto* t = graph().add_initializer();
        t->set_name(name);
        t->set_data_type(onnx::TensorProto::INT64);
        t->add_dims(static_cast<std::int64_t>(values.size()));
        for (auto v : values)
            t->add_int64_data(v);
        return *this;
    }

    onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs,
        const std::vector<std::string>& outputs, const std::string& name = "")
    {
        auto* n = graph().add_node();
        n->set_op_type(op);
        n->set_name(name);
        for (const auto& i : inputs)
            n->add_input(i);
        for (const auto& o : outputs)
            n->add_output(o);
        return *n;
    }

    static void attr(onnx::NodeProto& n, const std::string& name, std::int64_t v)
    {
        auto* a = n.add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::INT);
        a->set_i(v);
    }
    static void attr(onnx::NodeProto& n, const std::string& name, float v)
    {
        auto* a = n.add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::FLOAT);
        a->set_f(v);
    }
    static void attr(onnx::NodeProto& n, const std::string& name, const std::string& v)
    {
        auto* a = n.add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::STRING);
        a->set_s(v);
    }
    static void attr(onnx::NodeProto& n, const std::string& name, const std::vector<std::int64_t>& v)
    {
        auto* a = n.add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::INTS);
        for (auto x : v)
            a->add_ints(x);
    }

    // Writes the model to a fresh file under the test temp directory and returns its path.
    std::string save(const std::string& stem = "model") const
    {
        onnx::ModelProto inferred = model_;
        try {
            onnx::shape_inference::InferShapes(inferred);
        } catch (const std::exception&) {
            inferred = model_; // broken on purpose: let the importer say so
        }
        return writeBytes(inferred.SerializeAsString(), stem);
    }

    static std::string writeBytes(const std::string& bytes, const std::string& stem)
    {
        static std::atomic<int> counter { 0 };
        const auto dir = tempDir();
        std::filesystem::create_directories(dir);
        const auto path = dir / (stem + "_" + std::to_string(counter++) + ".onnx");
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        return path.string();
    }

    // One folder per test process, removed when the process ends.
    static std::filesystem::path tempDir()
    {
        return std::filesystem::path(::testing::TempDir()) / ("opsched_import_tests_" + std::to_string(::getpid()));
    }

private:
    onnx::ModelProto model_;
};

// The message of the Error importing `path` throws (fails the test when it imports).
inline std::string importError(const std::string& path, std::int64_t batch = 0)
{
    try {
        importOnnx(path, batch);
    } catch (const Error& e) {
        return e.what();
    }
    ADD_FAILURE() << "'" << path << "' imported";
    return {};
}

// How many of the graph's ops are of `kind`.
inline std::size_t countOpsOfKind(const Graph& g, OpKind kind)
{
    std::size_t n = 0;
    for (const auto& op : g.ops())
        n += op.kind == kind ? 1 : 0;
    return n;
}

#define EXPECT_CONTAINS(text, fragment) EXPECT_NE((text).find(fragment), std::string::npos) << (text)

struct TempDirCleanup {
    ~TempDirCleanup()
    {
        std::error_code ec;
        std::filesystem::remove_all(ModelMaker::tempDir(), ec);
    }
};
inline TempDirCleanup tempDirCleanup;

} // namespace opsched::test
