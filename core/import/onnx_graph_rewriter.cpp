#include "import/onnx_graph_rewriter.h"

#include "import/onnx_attributes.h"
#include "import/onnx_constant_folding.h"

namespace opsched::onnx_import {
namespace {

struct Analysis {
    const std::vector<NodeRef>& nodes;
    FusionPlan& plan;
    std::unordered_map<std::string, std::vector<std::size_t>> readers; // value -> node positions

    bool isConst(const std::string& v) const { return v.empty() || plan.constants.count(v) > 0; }
    int uses(const std::string& v) const
    {
        auto it = plan.consumers.find(v);
        return it == plan.consumers.end() ? 0 : it->second;
    }
    // The one node reading `v` as its first input, when nothing else (and no graph output) reads it.
    std::optional<std::size_t> soleReader(const std::string& v) const
    {
        auto it = readers.find(v);
        if (uses(v) != 1 || it == readers.end() || it->second.size() != 1)
            return std::nullopt;
        const auto k = it->second.front();
        if (nodes[k].proto->input_size() == 0 || nodes[k].proto->input(0) != v)
            return std::nullopt;
        return k;
    }
    bool extraOutputsUnused(const onnx::NodeProto& node) const
    {
        for (int i = 1; i < node.output_size(); ++i)
            if (uses(node.output(i)) > 0)
                return false;
        return true;
    }
};

void findConstants(const onnx::GraphProto& graph, Analysis& a)
{
    // An initializer that is also a graph input is a weight with a default (IR version < 4).
    for (const auto& t : graph.initializer())
        a.plan.constants.insert(t.name());
    for (const auto& ref : a.nodes) {
        const auto& node = *ref.proto;
        const auto& op = node.op_type();
        bool constant = op == "Constant" || op == "Shape" || op == "Size"; // every shape is static
        if (!constant && isFoldableOpType(op) && node.input_size() > 0) {
            constant = true;
            for (const auto& in : node.input())
                constant = constant && a.isConst(in);
        }
        if (constant)
            for (const auto& out : node.output())
                a.plan.constants.insert(out);
    }
}

bool foldableBatchNorm(const Analysis& a, const onnx::NodeProto& bn, int opset)
{
    const Attributes attrs(bn);
    if (bn.input_size() < 5 || attrs.getInt("training_mode", 0) != 0 || !a.extraOutputsUnused(bn))
        return false;
    if (opset < 9 && attrs.getInt("spatial", 1) != 1)
        return false;
    for (int i = 1; i < 5; ++i)
        if (!a.isConst(bn.input(i)))
            return false;
    return true;
}

bool fusableActivation(const Analysis& a, const onnx::NodeProto& act)
{
    if (!isActivationOpType(act.op_type()))
        return false;
    for (int i = 1; i < act.input_size(); ++i) // Clip bounds
        if (!a.isConst(act.input(i)))
            return false;
    return true;
}

// The consumer's own padding adds up with the Pad's: no auto_pad, no ceil mode (which would
// treat the padded border differently), and an average that counts padding either way.
bool absorbsPad(const Analysis& a, const onnx::NodeProto& pad, const onnx::NodeProto& consumer, int opset)
{
    const Attributes padAttrs(pad), attrs(consumer);
    if (padAttrs.getString("mode", "constant") != "constant")
        return false;
    for (int i = 1; i < pad.input_size(); ++i)
        if (!a.isConst(pad.input(i)))
            return false;
    if (opset >= 11 && pad.input_size() < 2)
        return false;
    if (pad.input_size() > 3 && !pad.input(3).empty()) // pads over some axes only (opset 18)
        return false;
    const auto autoPad = attrs.getString("auto_pad", "NOTSET");
    if (autoPad != "NOTSET" && autoPad != "VALID" && !autoPad.empty())
        return false;
    if (consumer.op_type() == "Conv")
        return true;
    if (consumer.op_type() != "AveragePool" || attrs.getInt("ceil_mode", 0) != 0)
        return false;
    bool ownPads = false;
    for (auto p : attrs.getInts("pads"))
        ownPads = ownPads || p != 0;
    return !ownPads || attrs.getInt("count_include_pad", 0) != 0;
}

// Dropout only passes its input through at inference: without a training_mode input (or with
// one that is not set) and with its mask unread.
bool isPassThrough(const onnx::NodeProto& node, const std::unordered_map<std::string, int>& reads)
{
    if (node.op_type() == "Identity")
        return node.input_size() == 1 && node.output_size() == 1;
    if (node.op_type() != "Dropout" || node.input_size() == 0)
        return false;
    if (node.input_size() > 2 && !node.input(2).empty())
        return false;
    return node.output_size() < 2 || node.output(1).empty() || !reads.count(node.output(1));
}

std::vector<bool> bypassPassThroughs(onnx::GraphProto& graph, const std::vector<NodeRef>& nodes)
{
    std::unordered_map<std::string, int> reads;
    for (const auto& node : graph.node())
        for (const auto& in : node.input())
            ++reads[in];
    for (const auto& out : graph.output())
        ++reads[out.name()];
    std::unordered_set<std::string> outputs;
    for (const auto& out : graph.output())
        outputs.insert(out.name());
    // A value a subgraph reads by name keeps its producer (the bypass renames explicit inputs only).
    for (const auto& node : graph.node())
        for (auto& in : implicitInputs(node)) {
            ++reads[in];
            outputs.insert(std::move(in));
        }

    std::vector<bool> dropped(nodes.size(), false);
    std::unordered_map<std::string, std::string> alias; // output of a dropped node -> its source
    for (std::size_t k = 0; k < nodes.size(); ++k) {
        auto& node = *graph.mutable_node(static_cast<int>(k));
        for (auto& in : *node.mutable_input())
            if (auto it = alias.find(in); it != alias.end())
                in = it->second;
        // A graph output keeps its producer, so that it stays a distinct tensor.
        if (isPassThrough(node, reads) && !outputs.count(node.output(0))) {
            alias[node.output(0)] = node.input(0);
            dropped[k] = true;
        }
    }
    return dropped;
}

} // namespace

bool isActivationOpType(const std::string& opType)
{
    return opType == "Relu" || opType == "Clip" || opType == "Sigmoid" || opType == "HardSigmoid"
        || opType == "HardSwish" || opType == "Tanh" || opType == "LeakyRelu" || opType == "Elu" || opType == "Selu"
        || opType == "Celu" || opType == "Softplus" || opType == "Softsign" || opType == "Mish"
        || opType == "ThresholdedRelu";
}

FusionPlan planFusions(onnx::GraphProto& graph, const std::vector<NodeRef>& nodes, int opset)
{
    FusionPlan plan;
    plan.dropped = bypassPassThroughs(graph, nodes);
    plan.chainOf.assign(nodes.size(), -1);
    plan.padInto.assign(nodes.size(), -1);
    plan.padOf.assign(nodes.size(), -1);
    Analysis a { nodes, plan, {} };
    for (std::size_t k = 0; k < nodes.size(); ++k)
        for (const auto& in : nodes[k].proto->input())
            if (!in.empty() && !plan.dropped[k]) {
                ++plan.consumers[in];
                a.readers[in].push_back(k);
            }
    for (const auto& out : graph.output()) {
        ++plan.consumers[out.name()];
        plan.graphOutputs.insert(out.name());
    }
    for (const auto& node : nodes) // read inside a subgraph: a consumer no fusion may hide
        for (const auto& in : implicitInputs(*node.proto))
            ++plan.consumers[in];
    findConstants(graph, a);

    for (std::size_t k = 0; k < nodes.size(); ++k) {
        const auto& pad = *nodes[k].proto;
        if (pad.op_type() != "Pad" || pad.input_size() == 0 || a.isConst(pad.input(0)))
            continue;
        if (auto next = a.soleReader(pad.output(0)); next && absorbsPad(a, pad, *nodes[*next].proto, opset)) {
            plan.padInto[k] = static_cast<int>(*next);
            plan.padOf[*next] = static_cast<int>(k);
        }
    }

    for (std::size_t k = 0; k < nodes.size(); ++k) {
        const auto& conv = *nodes[k].proto;
        if (conv.op_type() != "Conv" || conv.input_size() < 2 || !a.isConst(conv.input(1))
            || (conv.input_size() > 2 && !a.isConst(conv.input(2))) || a.isConst(conv.input(0)))
            continue;
        ConvChain chain { k, std::nullopt, std::nullopt };
        std::string current = conv.output(0);
        if (auto next = a.soleReader(current);
            next && nodes[*next].opType() == "BatchNormalization" && foldableBatchNorm(a, *nodes[*next].proto, opset)) {
            chain.batchNorm = *next;
            current = nodes[*next].proto->output(0);
        }
        if (auto next = a.soleReader(current); next && fusableActivation(a, *nodes[*next].proto)) {
            chain.activation = *next;
        }
        if (!chain.batchNorm && !chain.activation)
            continue;
        const int index = static_cast<int>(plan.chains.size());
        plan.chainOf[chain.conv] = index;
        if (chain.batchNorm)
            plan.chainOf[*chain.batchNorm] = index;
        if (chain.activation)
            plan.chainOf[*chain.activation] = index;
        plan.chains.push_back(chain);
    }

    plan.patterns
        = findTransformerPatterns({ graph, nodes, plan.constants, plan.consumers, plan.chainOf, plan.dropped });
    plan.patternOf.assign(nodes.size(), -1);
    for (std::size_t i = 0; i < plan.patterns.size(); ++i)
        for (auto k : plan.patterns[i].members)
            plan.patternOf[k] = static_cast<int>(i);
    return plan;
}

} // namespace opsched::onnx_import
