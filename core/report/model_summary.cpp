#include "report/model_summary.h"

#include "graph/reachability.h"
#include "graph/width.h"

#include <cmath>
#include <cstdio>

namespace opsched {
namespace {

std::string fixed(double v, int digits)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

std::string scaled(double v, const char* unit)
{
    if (v >= 1e9)
        return fixed(v / 1e9, 2) + " G" + unit;
    if (v >= 1e6)
        return fixed(v / 1e6, 2) + " M" + unit;
    if (v >= 1e3)
        return fixed(v / 1e3, 2) + " k" + unit;
    return fixed(v, 0) + " " + unit;
}

std::vector<std::string> predecessorNames(const Graph& g, const Op& op)
{
    std::vector<std::string> names;
    for (auto t : op.inputTensors())
        if (auto p = g.tensor(t).producer; p.valid())
            names.push_back(g.op(p).name);
    return names;
}

} // namespace

ModelSummary summarize(const Graph& graph)
{
    ModelSummary s;
    s.model = graph.name();
    s.batch = graph.batch();
    s.ops = graph.opCount();
    s.parameters = graph.weightCount();
    s.flops = graph.totalFlops();
    s.bytes = graph.totalBytes();

    const Reachability reach(graph.dag());
    const WidthResult width = computeWidth(graph.dag(), reach);
    s.width = width.width;
    for (auto v : width.antichain)
        s.antichain.emplace_back(v);
    s.blocks = findBlocks(graph.dag(), reach);

    std::vector<double> weights;
    for (const auto& op : graph.ops()) {
        weights.push_back(op.cost.flops);
        ++s.opKinds[toString(op.kind)];
    }
    std::vector<std::uint32_t> path;
    s.criticalPathFlops = longestPath(graph.dag(), weights, &path);
    for (auto v : path)
        s.criticalPath.emplace_back(v);
    return s;
}

nlohmann::ordered_json modelInfoJson(const Graph& graph, const ModelSummary& s)
{
    using nlohmann::ordered_json;
    ordered_json doc;
    doc["model"] = s.model;
    doc["batch"] = s.batch;

    std::vector<int> blockOf(graph.opCount(), 0);
    for (std::size_t b = 0; b < s.blocks.blocks.size(); ++b)
        for (auto v : s.blocks.blocks[b].nodes)
            blockOf[v] = static_cast<int>(b);

    ordered_json ops = ordered_json::array();
    for (const auto& op : graph.ops()) {
        ordered_json o;
        o["name"] = op.name;
        o["type"] = toString(op.kind);
        o["inputs"] = predecessorNames(graph, op);
        o["flops"] = static_cast<std::int64_t>(std::llround(op.cost.flops));
        o["bytes"] = static_cast<std::int64_t>(std::llround(op.cost.bytes()));
        o["output_shape"] = graph.tensor(op.output).shape.dims;
        o["block"] = blockOf[op.id.value()];
        ops.push_back(std::move(o));
    }
    doc["op_count"] = s.ops;
    doc["ops"] = std::move(ops);
    doc["width"] = s.width;
    doc["blocks"] = s.blocks.blocks.size();

    ordered_json blocks = ordered_json::array();
    for (const auto& b : s.blocks.blocks) {
        ordered_json o;
        o["ops"] = b.nodes.size();
        o["width"] = b.width;
        o["first"] = graph.op(OpId(b.nodes.front())).name;
        o["exit"] = b.exit ? ordered_json(graph.op(OpId(*b.exit)).name) : ordered_json(nullptr);
        blocks.push_back(std::move(o));
    }
    doc["block_list"] = std::move(blocks);
    doc["critical_path_flops"] = static_cast<std::int64_t>(std::llround(s.criticalPathFlops));
    doc["total_flops"] = static_cast<std::int64_t>(std::llround(s.flops));
    doc["total_bytes"] = static_cast<std::int64_t>(std::llround(s.bytes));
    doc["parameters"] = s.parameters;
    return doc;
}

std::string modelInfoText(const Graph& graph, const ModelSummary& s)
{
    std::string out;
    auto line = [&out](const std::string& key, const std::string& value) {
        out += key;
        out += std::string(key.size() < 14 ? 14 - key.size() : 1, ' ');
        out += value;
        out += '\n';
    };
    line("model", s.model + " (batch " + std::to_string(s.batch) + ")");
    std::string kinds;
    for (const auto& [kind, count] : s.opKinds)
        kinds += (kinds.empty() ? "" : ", ") + kind + " " + std::to_string(count);
    line("ops", std::to_string(s.ops) + " schedulable units (" + kinds + ")");
    line("parameters", scaled(static_cast<double>(s.parameters), ""));
    line("work", scaled(s.flops, "FLOP") + ", " + scaled(s.bytes, "B") + " moved");

    std::string anti;
    for (std::size_t i = 0; i < s.antichain.size() && i < 8; ++i)
        anti += (i ? ", " : "") + graph.op(s.antichain[i]).name;
    if (s.antichain.size() > 8)
        anti += ", ...";
    line("width", std::to_string(s.width) + " (e.g. " + anti + ")");

    std::string largest;
    if (const Block* b = s.blocks.largest())
        largest = " (largest: " + std::to_string(b->nodes.size()) + " ops, width " + std::to_string(b->width)
            + ", ending at " + (b->exit ? graph.op(OpId(*b->exit)).name : std::string("the outputs")) + ")";
    line("blocks", std::to_string(s.blocks.blocks.size()) + largest);
    const double share = s.flops > 0 ? 100.0 * s.criticalPathFlops / s.flops : 0.0;
    line("critical path",
        scaled(s.criticalPathFlops, "FLOP") + " over " + std::to_string(s.criticalPath.size()) + " ops ("
            + fixed(share, 1) + "% of all work)");
    return out;
}

} // namespace opsched
