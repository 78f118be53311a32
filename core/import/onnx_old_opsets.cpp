#include "import/onnx_old_opsets.h"

#include "import/import_error.h"
#include "import/onnx_loader.h"

#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include <algorithm>
#include <set>
#include <unordered_map>
#include <vector>

namespace opsched::onnx_import {
namespace {

// An opset-1 Unsqueeze (axes as an attribute, as the old opsets have it) appended to `nodes`.
void addUnsqueeze(google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes, const std::string& name,
    const std::string& input, const std::string& output, const std::vector<std::int64_t>& axes)
{
    onnx::NodeProto* unsqueeze = nodes.Add();
    unsqueeze->set_op_type("Unsqueeze");
    unsqueeze->set_name(name);
    unsqueeze->add_input(input);
    unsqueeze->add_output(output);
    auto* attribute = unsqueeze->add_attribute();
    attribute->set_name("axes");
    attribute->set_type(onnx::AttributeProto::INTS);
    for (std::int64_t a : axes)
        attribute->add_ints(a);
}

// Opset 6's PRelu takes a slope of shape [C] per channel (axis 1); opset 7 broadcasts it from the
// right like numpy. An Unsqueeze (axes 1..rank-2, opset 1's attribute form) keeps the meaning.
void pinPreluSlopesToChannels(onnx::ModelProto& model)
{
    auto& graph = *model.mutable_graph();
    const auto ranks = declaredRanks(graph); // with what shape inference added to value_info
    google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
    int made = 0;
    for (const auto& node : graph.node()) {
        if (node.op_type() == "PRelu" && node.input_size() == 2
            && (node.domain().empty() || node.domain() == "ai.onnx")) {
            const auto x = ranks.find(node.input(0)), slope = ranks.find(node.input(1));
            if (x != ranks.end() && slope != ranks.end() && slope->second == 1 && x->second >= 3) {
                std::vector<std::int64_t> axes;
                for (int a = 1; a + 1 < x->second; ++a)
                    axes.push_back(a);
                const std::string pinned = node.input(1) + "/per_channel_" + std::to_string(made++);
                addUnsqueeze(nodes, node.name() + "/slope_per_channel", node.input(1), pinned, axes);
                onnx::NodeProto* prelu = nodes.Add();
                *prelu = node;
                prelu->set_input(1, pinned);
                continue;
            }
        }
        *nodes.Add() = node;
    }
    graph.mutable_node()->Swap(&nodes);
}

std::int64_t intAttribute(const onnx::NodeProto& node, const std::string& name, std::int64_t fallback)
{
    for (const auto& a : node.attribute())
        if (a.name() == name)
            return a.i();
    return fallback;
}

// Before opset 7 a binary op broadcasts only with broadcast=1, B's dimensions matched to A's from
// `axis` on (default: A's last ones). Numpy rules match from the right, so where B ends before A's
// last dimension, an Unsqueeze gives it trailing 1s; the converter's own adapter misreads `axis`.
void alignLegacyBroadcasts(onnx::ModelProto& model)
{
    static const std::set<std::string> binary { "Add", "Sub", "Mul", "Div", "Pow", "And", "Or", "Xor", "Equal",
        "Greater", "Less" };
    auto& graph = *model.mutable_graph();
    const auto ranks = declaredRanks(graph); // with what shape inference added to value_info
    google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
    int made = 0;
    for (const auto& node : graph.node()) {
        onnx::NodeProto copy = node;
        if (binary.count(node.op_type()) && node.input_size() == 2 && intAttribute(node, "broadcast", 0) == 1) {
            const auto a = ranks.find(node.input(0)), b = ranks.find(node.input(1));
            if (a != ranks.end() && b != ranks.end()) {
                const std::int64_t axis = intAttribute(node, "axis", a->second - b->second);
                const std::int64_t trailing = a->second - axis - b->second;
                if (axis >= 0 && trailing > 0) {
                    std::vector<std::int64_t> axes;
                    for (std::int64_t k = 0; k < trailing; ++k)
                        axes.push_back(b->second + k);
                    const std::string aligned = node.input(1) + "/aligned_" + std::to_string(made++);
                    addUnsqueeze(nodes, node.name() + "/broadcast_from_axis", node.input(1), aligned, axes);
                    copy.set_input(1, aligned);
                }
            }
            // What is left is numpy broadcasting from the right: the axis has no more to say.
            auto* attributes = copy.mutable_attribute();
            for (int i = attributes->size(); i-- > 0;)
                if (attributes->Get(i).name() == "axis")
                    attributes->DeleteSubrange(i, 1);
        }
        *nodes.Add() = std::move(copy);
    }
    graph.mutable_node()->Swap(&nodes);
}

// The converter's Reshape adapter turns the shape attribute into a Constant whose tensor lists the
// values without its one dimension; an ONNX tensor without dims is a scalar, so the length is set.
void giveConverterConstantsTheirLength(onnx::ModelProto& model)
{
    for (auto& node : *model.mutable_graph()->mutable_node()) {
        if (node.op_type() != "Constant")
            continue;
        for (auto& a : *node.mutable_attribute()) {
            if (a.name() != "value" || !a.has_t() || a.t().dims_size() != 0)
                continue;
            onnx::TensorProto& t = *a.mutable_t();
            const int n
                = std::max({ t.int64_data_size(), t.float_data_size(), t.int32_data_size(), t.double_data_size() });
            if (n > 1)
                t.add_dims(n);
        }
    }
}

void inferShapes(onnx::ModelProto& model)
{
    try {
        onnx::shape_inference::InferShapes(model);
    } catch (const std::exception&) {
        // The declared shapes alone then; the converter says what it cannot do without.
    }
}

} // namespace

void upgradeToOpset7(onnx::ModelProto& model, int opset, const std::string& changedOps)
{
    const std::string what = "opset " + std::to_string(opset) + " is older than opsched reads (opsets "
        + std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset)
        + "), and these ops changed since: " + changedOps;
    try {
        // Shapes first: the rewrites below and the converter's adapters need the operands' ranks
        // and sizes, also those of the values the rewrites make.
        inferShapes(model);
        pinPreluSlopesToChannels(model);
        alignLegacyBroadcasts(model);
        inferShapes(model);
        onnx::ModelProto upgraded = onnx::version_conversion::ConvertVersion(model, kMinOpset);
        giveConverterConstantsTheirLength(upgraded);
        // The converter keeps only what it understood; the weights stay as they were read.
        model.Swap(&upgraded);
    } catch (const std::exception& e) {
        throw ImportError(what + "; ONNX's version converter could not bring it to opset 7: " + e.what());
    }
}

} // namespace opsched::onnx_import
