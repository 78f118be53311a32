#include "import/onnx_structure.h"

#include "graph/dag.h"
#include "import/import_error.h"
#include "import/onnx_constant_folding.h"
#include "import/onnx_op_mapping.h"

#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace opsched::onnx_import {
namespace {

// A listing stops after this many lines (a message, not a log); the count of the rest follows.
constexpr std::size_t kMaxListed = 100;

std::string joinLines(const std::vector<std::string>& lines)
{
    std::string out;
    for (std::size_t i = 0; i < lines.size() && i < kMaxListed; ++i)
        out += "\n  " + lines[i];
    if (lines.size() > kMaxListed)
        out += "\n  ... and " + std::to_string(lines.size() - kMaxListed) + " more";
    return out;
}

} // namespace

namespace {

// Adds to `out` what `graph` reads from outside itself (its nested subgraphs included).
void outerReads(const onnx::GraphProto& graph, std::set<std::string>& out)
{
    std::unordered_set<std::string> local;
    for (const auto& v : graph.input())
        local.insert(v.name());
    for (const auto& t : graph.initializer())
        local.insert(t.name());
    for (const auto& node : graph.node())
        for (const auto& o : node.output())
            local.insert(o);
    std::set<std::string> reads;
    for (const auto& node : graph.node()) {
        reads.insert(node.input().begin(), node.input().end());
        for (const auto& a : node.attribute()) {
            if (a.has_g())
                outerReads(a.g(), reads);
            for (const auto& g : a.graphs())
                outerReads(g, reads);
        }
    }
    for (const auto& o : graph.output())
        reads.insert(o.name());
    for (const auto& r : reads)
        if (!r.empty() && !local.count(r))
            out.insert(r);
}

} // namespace

std::vector<std::string> implicitInputs(const onnx::NodeProto& node)
{
    std::set<std::string> reads;
    for (const auto& a : node.attribute()) {
        if (a.has_g())
            outerReads(a.g(), reads);
        for (const auto& g : a.graphs())
            outerReads(g, reads);
    }
    return { reads.begin(), reads.end() };
}

std::string NodeRef::label() const
{
    return "'" + name + "' (" + opType() + ")";
}

bool isKnownOpType(const std::string& opType)
{
    return isMappedOpType(opType) || isFoldableOpType(opType);
}

std::vector<std::string> nodeNames(const onnx::GraphProto& graph)
{
    std::unordered_set<std::string> taken;
    for (const auto& node : graph.node())
        if (!node.name().empty())
            taken.insert(node.name());
    std::unordered_set<std::string> used;
    std::vector<std::string> names;
    names.reserve(static_cast<std::size_t>(graph.node_size()));
    for (int i = 0; i < graph.node_size(); ++i) {
        const auto& node = graph.node(i);
        std::string name = node.name();
        if (name.empty() || used.count(name)) {
            // Unnamed or repeated: "<OpType>_<index>" (or "<name>_<index>"), unique among all names.
            const std::string base = (name.empty() ? node.op_type() : name) + "_" + std::to_string(i);
            name = base;
            for (int k = 2; taken.count(name) || used.count(name); ++k)
                name = base + "_" + std::to_string(k);
        }
        used.insert(name);
        names.push_back(std::move(name));
    }
    return names;
}

std::vector<NodeRef> sortNodes(onnx::GraphProto& graph)
{
    const auto names = nodeNames(graph);
    const auto n = static_cast<std::size_t>(graph.node_size());
    auto label
        = [&](std::size_t i) { return "'" + names[i] + "' (" + graph.node(static_cast<int>(i)).op_type() + ")"; };

    std::unordered_set<std::string> available { "" }; // "" marks an omitted optional input
    for (const auto& v : graph.input())
        available.insert(v.name());
    for (const auto& t : graph.initializer())
        available.insert(t.name());
    std::unordered_map<std::string, std::size_t> producer;
    std::vector<std::string> problems;
    for (std::size_t i = 0; i < n; ++i)
        for (const auto& out : graph.node(static_cast<int>(i)).output()) {
            if (out.empty())
                continue;
            auto [it, fresh] = producer.emplace(out, i);
            if (!fresh)
                problems.push_back("value '" + out + "' is written by both " + label(it->second) + " and " + label(i));
            else if (available.count(out))
                problems.push_back("node " + label(i) + " writes '" + out + "', which is a graph input or initializer");
        }

    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    for (std::size_t i = 0; i < n; ++i) {
        const auto& node = graph.node(static_cast<int>(i));
        std::vector<std::string> reads(node.input().begin(), node.input().end());
        for (auto& in : implicitInputs(node))
            reads.push_back(std::move(in));
        for (const auto& in : reads) {
            if (available.count(in))
                continue;
            if (auto it = producer.find(in); it != producer.end())
                edges.emplace_back(static_cast<std::uint32_t>(it->second), static_cast<std::uint32_t>(i));
            else
                problems.push_back(
                    "node " + label(i) + " reads '" + in + "', which is no graph input, initializer or node output");
        }
    }
    for (const auto& out : graph.output())
        if (!available.count(out.name()) && !producer.count(out.name()))
            problems.push_back("graph output '" + out.name() + "' is not produced by any node");
    if (!problems.empty())
        throw ImportError("the graph is incomplete:" + joinLines(problems));

    const Dag dag = Dag::fromEdges(n, edges);
    const auto order = topologicalOrder(dag);
    if (!order) {
        std::string path;
        const auto cycle = findCycle(dag);
        for (auto v : cycle)
            path += label(v) + " -> ";
        if (!cycle.empty())
            path += label(cycle.front());
        throw ImportError("the graph has a cycle, so these nodes' inputs never become available: " + path);
    }

    bool sorted = true;
    for (std::size_t i = 0; i < n; ++i)
        sorted = sorted && (*order)[i] == i;
    if (!sorted) { // the ONNX checker insists on topological order
        google::protobuf::RepeatedPtrField<onnx::NodeProto> reordered;
        for (auto i : *order)
            *reordered.Add() = std::move(*graph.mutable_node(static_cast<int>(i)));
        graph.mutable_node()->Swap(&reordered);
    }
    std::vector<NodeRef> refs(n);
    for (std::size_t k = 0; k < n; ++k) {
        const auto i = (*order)[k];
        refs[k] = NodeRef { &graph.node(static_cast<int>(k)), names[i], i };
    }
    return refs;
}

void checkOpTypes(const std::vector<NodeRef>& nodes, int opset)
{
    std::vector<std::string> unsupported;
    bool custom = false;
    for (const auto& node : nodes) {
        const auto& domain = node.proto->domain();
        if (!domain.empty() && domain != "ai.onnx") {
            unsupported.push_back(node.label() + ": operator of domain '" + domain + "' is not supported");
            custom = true;
        } else if (!isKnownOpType(node.opType())) {
            unsupported.push_back(
                node.label() + ": operator not supported (ai.onnx opset " + std::to_string(opset) + ")");
        }
    }
    if (unsupported.empty())
        return;
    std::map<std::string, int> byType;
    for (const auto& node : nodes)
        if (!isKnownOpType(node.opType()) || (!node.proto->domain().empty() && node.proto->domain() != "ai.onnx"))
            ++byType[node.opType()];
    std::string types;
    for (const auto& [type, count] : byType)
        types += (types.empty() ? "" : ", ") + type + (count > 1 ? " x" + std::to_string(count) : "");
    // What would make it work: the supported list, and the usual ways around an op.
    const std::string advice
        = std::string("\n  opsched imports the operators docs/cli.md lists under \"Model references\"; ")
        + "export the model without these (another opset, or the module written with supported ops)"
        + (custom ? "; operators of a custom domain (an exporter's or runtime's own) have no ONNX definition to follow"
                  : "");
    throw ImportError(std::to_string(unsupported.size()) + " node" + (unsupported.size() == 1 ? " is" : "s are")
        + " not supported (" + types + "):" + joinLines(unsupported) + advice);
}

} // namespace opsched::onnx_import
