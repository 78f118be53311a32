#include "plan/schedule.h"

#include <algorithm>

namespace opsched {

const char* toString(StageStrategy s)
{
    return s == StageStrategy::Merge ? "merge" : "concurrent";
}

std::size_t Stage::opCount() const
{
    std::size_t n = 0;
    for (const auto& g : groups)
        n += g.size();
    return n;
}

std::size_t Schedule::opCount() const
{
    std::size_t n = 0;
    for (const auto& s : stages)
        n += s.opCount();
    return n;
}

namespace {

// A Linear layer: one MatMul layer over one activation and a constant [K, N] weight (+ bias).
const MatMul* linearMatMul(const Graph& graph, const Op& op)
{
    const auto* m = op.layers.size() == 1 ? std::get_if<MatMul>(&op.layers.front().params) : nullptr;
    if (!m || op.inputs.size() != 1 || op.inputs.front().size() != 1 || op.layers.front().weights.empty()
        || graph.tensor(op.layers.front().weights.front()).shape.rank() != 2)
        return nullptr;
    return m;
}

// GEMMs that share their input (Q, K and V projections): one GEMM over the weights' columns side
// by side, each op's output a column block of it.
std::string gemmMergeProblem(const Graph& graph, const std::vector<OpId>& ops)
{
    const Op& first = graph.op(ops.front());
    for (auto id : ops) {
        const Op& op = graph.op(id);
        if (!linearMatMul(graph, op))
            return "'" + op.name + "' is neither a plain convolution nor a matmul by a constant matrix";
        if (op.inputs != first.inputs)
            return "'" + op.name + "' does not read the same input as '" + first.name + "'";
        if (!(op.layers.front().activation == first.layers.front().activation))
            return "'" + op.name + "' has another activation than '" + first.name + "'";
    }
    return {};
}

} // namespace

std::string mergeProblem(const Graph& graph, const std::vector<OpId>& ops)
{
    if (ops.size() < 2)
        return "a merge needs at least two ops";
    const Op& first = graph.op(ops.front());
    if (linearMatMul(graph, first))
        return gemmMergeProblem(graph, ops);
    for (auto id : ops) {
        const Op& op = graph.op(id);
        const auto* conv = op.layers.size() == 1 ? std::get_if<Conv2d>(&op.layers.front().params) : nullptr;
        if (op.kind != OpKind::Conv || !conv)
            return "'" + op.name + "' is not a plain convolution";
        if (conv->groups != 1)
            return "'" + op.name + "' is a grouped convolution";
        if (graph.tensor(op.output).shape.rank() != 4)
            return "'" + op.name + "' is not a 2-D convolution";
        if (op.inputs != first.inputs)
            return "'" + op.name + "' does not read the same input as '" + first.name + "'";
        const auto& c0 = std::get<Conv2d>(first.layers.front().params);
        if (conv->strideH != c0.strideH || conv->strideW != c0.strideW)
            return "'" + op.name + "' has another stride than '" + first.name + "'";
        if (conv->dilationH != 1 || conv->dilationW != 1 || c0.dilationH != 1 || c0.dilationW != 1)
            return "'" + op.name + "' is dilated";
        if (!(op.layers.front().activation == first.layers.front().activation))
            return "'" + op.name + "' has another activation than '" + first.name + "'";
        // Kernels are zero-padded to the largest; outputs only line up when padding keeps the
        // output size ("same" convolutions, or identical geometry).
        if (graph.tensor(op.output).shape.height() != graph.tensor(first.output).shape.height()
            || graph.tensor(op.output).shape.width() != graph.tensor(first.output).shape.width())
            return "'" + op.name + "' produces another spatial size than '" + first.name + "'";
    }
    return {};
}

std::vector<std::string> validate(const Graph& graph, const Schedule& schedule)
{
    std::vector<std::string> problems;
    const std::size_t n = graph.opCount();
    constexpr int kUnplaced = -1;
    std::vector<int> stageOf(n, kUnplaced), groupOf(n, kUnplaced), posOf(n, kUnplaced);

    for (std::size_t s = 0; s < schedule.stages.size(); ++s) {
        const Stage& stage = schedule.stages[s];
        if (stage.opCount() == 0)
            problems.push_back("stage " + std::to_string(s) + " is empty");
        for (std::size_t g = 0; g < stage.groups.size(); ++g)
            for (std::size_t i = 0; i < stage.groups[g].size(); ++i) {
                const OpId id = stage.groups[g][i];
                if (!id.valid() || id.value() >= n) {
                    problems.push_back("stage " + std::to_string(s) + " names an op that is not in the model");
                    continue;
                }
                if (stageOf[id.value()] != kUnplaced) {
                    problems.push_back("op '" + graph.op(id).name + "' is scheduled more than once");
                    continue;
                }
                stageOf[id.value()] = static_cast<int>(s);
                groupOf[id.value()] = static_cast<int>(g);
                posOf[id.value()] = static_cast<int>(i);
            }
    }
    std::vector<std::string> missing;
    for (std::size_t v = 0; v < n; ++v)
        if (stageOf[v] == kUnplaced)
            missing.push_back("'" + graph.ops()[v].name + "'");
    if (missing.size() <= 5) {
        for (const auto& name : missing)
            problems.push_back("op " + name + " is not scheduled");
    } else {
        std::string some;
        for (std::size_t i = 0; i < 5; ++i)
            some += (i ? ", " : "") + missing[i];
        problems.push_back(std::to_string(missing.size()) + " ops are not scheduled, e.g. " + some);
    }

    for (const auto& op : graph.ops()) {
        const auto v = op.id.value();
        if (stageOf[v] == kUnplaced)
            continue;
        for (auto p : graph.predecessors(op.id)) {
            if (stageOf[p] == kUnplaced)
                continue;
            const std::string edge = "'" + graph.op(OpId(p)).name + "' -> '" + op.name + "'";
            if (stageOf[p] > stageOf[v]) {
                problems.push_back("dependency " + edge + " runs backwards: stage " + std::to_string(stageOf[p])
                    + " after stage " + std::to_string(stageOf[v]));
            } else if (stageOf[p] == stageOf[v]) {
                if (groupOf[p] != groupOf[v])
                    problems.push_back("dependency " + edge + " joins two groups of stage " + std::to_string(stageOf[v])
                        + "; dependent ops of one stage share a group");
                else if (posOf[p] > posOf[v])
                    problems.push_back("dependency " + edge + " runs backwards inside its group");
            }
        }
    }
    for (std::size_t s = 0; s < schedule.stages.size(); ++s) {
        const Stage& stage = schedule.stages[s];
        if (stage.strategy != StageStrategy::Merge)
            continue;
        std::vector<OpId> ops;
        for (const auto& g : stage.groups) {
            if (g.size() != 1)
                problems.push_back("merge stage " + std::to_string(s) + " has a group of " + std::to_string(g.size())
                    + " ops; a merge stage holds one op per group");
            ops.insert(ops.end(), g.begin(), g.end());
        }
        if (auto why = mergeProblem(graph, ops); !why.empty())
            problems.push_back("merge stage " + std::to_string(s) + " cannot be merged: " + why);
    }
    return problems;
}

} // namespace opsched
