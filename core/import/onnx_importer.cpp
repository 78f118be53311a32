#include "import/onnx_importer.h"

#include "graph/graph_builder.h"
#include "import/import_error.h"
#include "import/onnx_constant_folding.h"
#include "import/onnx_external_data.h"
#include "import/onnx_graph_rewriter.h"
#include "import/onnx_import_context.h"
#include "import/onnx_loader.h"
#include "import/onnx_mapping_support.h"
#include "import/onnx_op_mapping.h"
#include "import/onnx_structure.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <unordered_set>

namespace opsched {
namespace {

using namespace onnx_import;

// Inputs larger than the IR allows for any tensor are refused before anything is allocated.
constexpr std::int64_t kMaxInputElements = std::int64_t { 1 } << 32;

DeclaredInput declared(const std::string& name, const onnx::TensorShapeProto& shape)
{
    DeclaredInput in { name, {}, {} };
    for (int i = 0; i < shape.dim_size(); ++i) {
        const auto& d = shape.dim(i);
        in.dims.push_back(d.has_dim_value() ? d.dim_value() : 0);
        in.symbols.push_back(d.has_dim_value() ? std::string() : d.dim_param());
    }
    return in;
}

class ModelImporter {
public:
    ModelImporter(onnx::ModelProto& model, std::string name)
        : model_(model)
        , builder_(std::move(name))
    {
    }

    Graph run(std::int64_t batch, const InputShapes& shapes)
    {
        const int opset = checkOpset(model_); // may upgrade an old model: the graph is taken after it
        auto& graph = *model_.mutable_graph();
        nodes_ = sortNodes(graph);
        checkOpTypes(nodes_, opset);
        runOnnxChecks(model_, opset);
        plan_ = planFusions(graph, nodes_, opset);
        ImportContext ctx(builder_, graph, plan_, opset, nodes_);
        addInputs(ctx, graph, batch, shapes);
        for (std::size_t k = 0; k < nodes_.size(); ++k)
            importNode(ctx, k);
        markOutputs(ctx, graph);
        if (!problems_.empty()) {
            std::string message = std::to_string(problems_.size()) + (problems_.size() == 1 ? " problem" : " problems")
                + " importing the model:";
            for (const auto& p : problems_)
                message += "\n  " + p;
            throw ImportError(message);
        }
        return std::move(builder_).finish();
    }

private:
    // The input's dimensions: the batch for dimension 0 (symbolic or as stored), the given shape's
    // (--shape, or --input's data) where the model leaves one free. Returns what is wrong, or "".
    static std::string inputDims(const ImportContext& ctx, const onnx::ValueInfoProto& v,
        const std::vector<std::int64_t>* given, std::vector<std::int64_t>& dims)
    {
        const auto& type = v.type().tensor_type();
        std::string symbolic;
        const int rank = type.shape().dim_size();
        if (given && given->size() != static_cast<std::size_t>(rank))
            return "--shape gives " + std::to_string(given->size()) + " dimensions; the input has "
                + std::to_string(rank) + " (" + declaredText(declared(v.name(), type.shape())) + ")";
        for (int i = 0; i < rank; ++i) {
            const auto& d = type.shape().dim(i);
            const std::int64_t want = given ? (*given)[static_cast<std::size_t>(i)] : 0;
            if (d.has_dim_value() && d.dim_value() <= 0) {
                symbolic = "dimension " + std::to_string(i) + " is " + std::to_string(d.dim_value())
                    + "; opsched needs positive dimensions (no empty tensors)";
                break;
            }
            if (given && want < 1) {
                symbolic = "--shape gives dimension " + std::to_string(i) + " as " + std::to_string(want)
                    + "; dimensions are positive";
                break;
            }
            if (i == 0 && (!d.has_dim_value() || d.dim_value() == ctx.modelBatch)) {
                if (given && want != ctx.batch) {
                    symbolic = "the shape given (--shape) has dimension 0 (the batch) = " + std::to_string(want)
                        + ", the batch is " + std::to_string(ctx.batch) + "; set the batch with --batch";
                    break;
                }
                dims.push_back(ctx.batch); // the batch, symbolic or as stored
            } else if (d.has_dim_value()) {
                if (given && want != d.dim_value()) {
                    symbolic = "the shape given (--shape, or --input's data) has dimension " + std::to_string(i) + " = "
                        + std::to_string(want) + ", but the model fixes it at " + std::to_string(d.dim_value());
                    break;
                }
                dims.push_back(d.dim_value());
            } else if (given) {
                dims.push_back(want);
            } else if (symbolic.empty()) {
                symbolic = "dimension " + std::to_string(i) + " is free ('"
                    + (d.dim_param().empty() ? std::string("unnamed") : d.dim_param()) + "' in "
                    + declaredText(declared(v.name(), type.shape())) + "); give the input's shape with --shape "
                    + v.name() + "=" + exampleText(declared(v.name(), type.shape()), ctx.batch);
            }
        }
        return symbolic;
    }

    void addInputs(ImportContext& ctx, const onnx::GraphProto& graph, std::int64_t batch, const InputShapes& shapes)
    {
        std::unordered_set<std::string> initializers;
        for (const auto& t : graph.initializer())
            initializers.insert(t.name());
        std::vector<const onnx::ValueInfoProto*> inputs;
        for (const auto& v : graph.input())
            if (!initializers.count(v.name()))
                inputs.push_back(&v);
        // The model's batch: dimension 0 of the first input that states one.
        for (const auto* v : inputs) {
            const auto& shape = v->type().tensor_type().shape();
            if (shape.dim_size() > 0 && shape.dim(0).has_dim_value() && shape.dim(0).dim_value() > 0) {
                ctx.modelBatch = shape.dim(0).dim_value();
                break;
            }
        }
        ctx.batch = batch > 0 ? batch : ctx.modelBatch;
        std::string inputNames;
        for (const auto* v : inputs)
            inputNames += (inputNames.empty() ? "'" : ", '") + v->name() + "'";
        for (const auto& entry : shapes) {
            const std::string& name = entry.first; // not a structured binding: clang 14 cannot capture one
            if (name.empty() && inputs.size() != 1)
                throw ImportError("--shape without a name needs a model with one input; this one has "
                    + std::to_string(inputs.size()) + " (" + inputNames + "): give --shape NAME=DIMS");
            if (!name.empty()
                && std::none_of(inputs.begin(), inputs.end(), [&](const auto* v) { return v->name() == name; }))
                throw ImportError(
                    "--shape names '" + name + "', which is not an input of the model (inputs: " + inputNames + ")");
        }
        auto givenShape = [&](const std::string& name) -> const std::vector<std::int64_t>* {
            auto it = shapes.find(name);
            if (it == shapes.end() && inputs.size() == 1)
                it = shapes.find("");
            return it == shapes.end() ? nullptr : &it->second;
        };

        for (const auto* v : inputs) {
            const std::string what = "input '" + v->name() + "'";
            const auto fail = [&](const std::string& problem) {
                problems_.push_back(what + ": " + problem);
                ctx.setFailed(v->name());
            };
            if (!v->type().has_tensor_type()) {
                fail("is not a tensor (sequences, maps and optionals are not supported)");
                continue;
            }
            const auto& type = v->type().tensor_type();
            // Token ids and masks: integers the IR carries as exact float values (below 2^24).
            const auto elem = type.elem_type();
            const bool integer = elem == onnx::TensorProto::INT64 || elem == onnx::TensorProto::INT32
                || elem == onnx::TensorProto::BOOL;
            if (elem != onnx::TensorProto::FLOAT && !integer) {
                fail(std::string("has data type ") + dataTypeName(elem)
                    + "; opsched imports float32 activations and int64/int32/bool ids and masks");
                continue;
            }
            if (!type.has_shape()) {
                fail("has no shape; opsched needs static input shapes");
                continue;
            }
            std::vector<std::int64_t> dims;
            const std::string symbolic = inputDims(ctx, *v, givenShape(v->name()), dims);
            if (!symbolic.empty()) {
                fail(symbolic);
                continue;
            }
            try {
                checkedElements(dims, kMaxInputElements, "its shape");
                ctx.setGraphInput(v->name(), builder_.addInput(v->name(), Shape(dims)));
                if (integer)
                    ctx.markInteger(v->name());
            } catch (const Error& e) {
                fail(e.what());
            }
        }
    }

    void importNode(ImportContext& ctx, std::size_t k)
    {
        const NodeRef& node = nodes_[k];
        const int chain = plan_.chainOf[k];
        if (chain >= 0 && plan_.chains[static_cast<std::size_t>(chain)].tail() != k)
            return; // built with the chain's last node
        if (plan_.padInto[k] >= 0 || plan_.dropped[k])
            return; // built with its consumer (into whose padding it may fold), or bypassed
        const int pattern = plan_.patternOf[k];
        if (pattern >= 0) {
            importPattern(ctx, plan_.patterns[static_cast<std::size_t>(pattern)], k);
            return;
        }
        const ConvChain* fused = chain >= 0 ? &plan_.chains[static_cast<std::size_t>(chain)] : nullptr;
        const NodeRef& head = fused ? nodes_[fused->conv] : node;
        const std::size_t headPosition = fused ? fused->conv : k;
        if (const int pad = plan_.padOf[headPosition];
            pad >= 0 && !importPad(ctx, nodes_[static_cast<std::size_t>(pad)], head)) {
            failOutputs(ctx, node);
            return;
        }

        // Inputs from outside the node (or the fused chain): a failed one stops it silently, since
        // its producer's problem is reported already.
        const auto members = chainMembers(fused, node);
        std::unordered_set<std::string> internal;
        for (std::size_t i = 0; i + 1 < members.size(); ++i)
            internal.insert(members[i]->proto->output(0));
        bool allConstant = true;
        for (const auto* member : members)
            for (const auto& in : member->proto->input()) {
                if (in.empty() || internal.count(in))
                    continue;
                const auto kind = ctx.kindOf(in);
                if (!kind || *kind == Value::Kind::Failed) {
                    failOutputs(ctx, node);
                    return;
                }
                allConstant = allConstant && *kind == Value::Kind::Constant;
            }
        try {
            if (fused) {
                mapConvChain(ctx, head, fused->batchNorm ? &nodes_[*fused->batchNorm] : nullptr,
                    fused->activation ? &nodes_[*fused->activation] : nullptr);
            } else if (node.opType() == "Shape" || node.opType() == "Size") {
                foldShapeOf(ctx, node);
            } else if (node.opType() == "If") {
                mapIf(ctx, node);
            } else if (allConstant) {
                if (!isFoldableOpType(node.opType()))
                    throw NodeError("all its inputs are constants, and opsched does not evaluate " + node.opType()
                        + " at import time");
                foldToConstants(ctx, node);
            } else {
                mapNode(ctx, node);
            }
        } catch (const Error& e) {
            problems_.push_back(head.label() + ": " + withoutOpPrefix(e.what(), head.name));
            failOutputs(ctx, node);
        }
    }

    // A transformer block found before import, built at its last node from its inputs.
    void importPattern(ImportContext& ctx, const PatternMatch& match, std::size_t k)
    {
        if (match.tail() != k)
            return;
        const NodeRef& tail = nodes_[k];
        std::unordered_set<std::string> internal;
        for (auto m : match.members)
            if (m != k)
                for (const auto& out : nodes_[m].proto->output())
                    internal.insert(out);
        for (auto m : match.members)
            for (const auto& in : nodes_[m].proto->input()) {
                if (in.empty() || internal.count(in))
                    continue;
                const auto kind = ctx.kindOf(in);
                if (!kind || *kind == Value::Kind::Failed) {
                    failOutputs(ctx, tail);
                    return;
                }
            }
        try {
            mapPattern(ctx, match, nodes_);
        } catch (const Error& e) {
            const NodeRef& head = nodes_[match.members.front()];
            problems_.push_back(head.label() + " (" + std::to_string(match.members.size()) + " nodes up to "
                + tail.label() + "): " + withoutOpPrefix(e.what(), head.name));
            failOutputs(ctx, tail);
        }
    }

    // A Pad deferred to its consumer: folded into the consumer's padding, or built as its own op
    // when its values do not allow that. False when it failed (and is reported).
    bool importPad(ImportContext& ctx, const NodeRef& pad, const NodeRef& consumer)
    {
        for (const auto& in : pad.proto->input()) {
            const auto kind = ctx.kindOf(in);
            if (!in.empty() && (!kind || *kind == Value::Kind::Failed)) {
                failOutputs(ctx, pad);
                return false;
            }
        }
        try {
            if (!foldPadInto(ctx, pad, consumer))
                mapNode(ctx, pad);
            return true;
        } catch (const Error& e) {
            problems_.push_back(pad.label() + ": " + withoutOpPrefix(e.what(), pad.name));
            failOutputs(ctx, pad);
            return false;
        }
    }

    std::vector<const NodeRef*> chainMembers(const ConvChain* chain, const NodeRef& node) const
    {
        if (!chain)
            return { &node };
        std::vector<const NodeRef*> out { &nodes_[chain->conv] };
        if (chain->batchNorm)
            out.push_back(&nodes_[*chain->batchNorm]);
        if (chain->activation)
            out.push_back(&nodes_[*chain->activation]);
        return out;
    }

    static void failOutputs(ImportContext& ctx, const NodeRef& node)
    {
        for (const auto& out : node.proto->output())
            if (!out.empty())
                ctx.setFailed(out);
    }

    // GraphErrors name the op ("op 'x': ..."); the listing names the node already.
    static std::string withoutOpPrefix(const std::string& message, const std::string& name)
    {
        const std::string prefix = "op '" + name + "': ";
        return message.starts_with(prefix) ? message.substr(prefix.size()) : message;
    }

    void markOutputs(ImportContext& ctx, const onnx::GraphProto& graph)
    {
        for (const auto& out : graph.output()) {
            const Value* v = ctx.find(out.name());
            if (v && v->kind == Value::Kind::Activation)
                builder_.markOutput(v->tensor);
            else if (v && v->kind == Value::Kind::Constant)
                problems_.push_back(
                    "graph output '" + out.name() + "' is a constant: no op computes it from the inputs");
            else if (problems_.empty())
                problems_.push_back("graph output '" + out.name() + "' was not imported");
        }
    }

    onnx::ModelProto& model_;
    GraphBuilder builder_;
    std::vector<NodeRef> nodes_;
    FusionPlan plan_;
    std::vector<std::string> problems_;
};

} // namespace

Graph importOnnx(const std::string& path, std::int64_t batch, const InputShapes& shapes)
{
    try {
        if (batch < 0)
            throw ImportError("batch size must be positive, got " + std::to_string(batch));
        onnx::ModelProto model = parseModelFile(path);
        loadExternalData(model, path);
        std::string name = std::filesystem::path(path).stem().string();
        return ModelImporter(model, name.empty() ? "onnx" : name).run(batch, shapes);
    } catch (const Error& e) {
        throw ImportError("'" + path + "': " + e.what());
    }
}

std::string declaredText(const DeclaredInput& in)
{
    std::string s;
    for (std::size_t i = 0; i < in.dims.size(); ++i)
        s += (i ? "x" : "")
            + (in.dims[i] > 0               ? std::to_string(in.dims[i])
                    : in.symbols[i].empty() ? std::string("?")
                                            : in.symbols[i]);
    return s;
}

std::string exampleText(const DeclaredInput& in, std::int64_t batch)
{
    std::string s;
    for (std::size_t i = 0; i < in.dims.size(); ++i) {
        std::string part = i == 0 ? std::to_string(batch) : in.dims[i] > 0 ? std::to_string(in.dims[i]) : "N";
        if (i > 0 && in.dims[i] <= 0 && !in.symbols[i].empty()) {
            part.clear();
            for (char c : in.symbols[i])
                part += static_cast<char>(std::isalnum(static_cast<unsigned char>(c)) ? std::toupper(c) : '_');
        }
        s += (i ? "x" : "") + part;
    }
    return s;
}

std::vector<DeclaredInput> declaredInputs(const std::string& path)
{
    try {
        const onnx::ModelProto model = parseModelFile(path);
        std::unordered_set<std::string> initializers;
        for (const auto& t : model.graph().initializer())
            initializers.insert(t.name());
        std::vector<DeclaredInput> out;
        for (const auto& v : model.graph().input())
            if (!initializers.count(v.name()) && v.type().has_tensor_type() && v.type().tensor_type().has_shape())
                out.push_back(declared(v.name(), v.type().tensor_type().shape()));
        return out;
    } catch (const Error& e) {
        throw ImportError("'" + path + "': " + e.what());
    }
}

} // namespace opsched
