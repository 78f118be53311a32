#include "engine/run/run_check.h"

#include "exec/reference_outputs.h"
#include "graph/graph_builder.h"
#include "util/error.h"

#include <algorithm>
#include <cstdio>

namespace opsched::engine {
namespace {

constexpr const char* kFaultForms = "input-seed=N (N other than 1) or weight=OP";

std::string shortNumber(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

} // namespace

std::string faultSpecProblem(const std::string& spec)
{
    if (spec.rfind("weight=", 0) == 0)
        return spec.size() > 7 ? "" : "weight=OP needs an op name";
    if (spec.rfind("input-seed=", 0) == 0) {
        const std::string n = spec.substr(11);
        if (n.empty() || n.size() > 18 || n.find_first_not_of("0123456789") != std::string::npos)
            return "'" + n + "' is not a seed (" + kFaultForms + ")";
        // Seed 1 draws the reference's own inputs: no fault at all.
        return std::stoull(n) == 1 ? "seed 1 is the reference's own; give another" : "";
    }
    return "'" + spec + "' is not a fault: give " + kFaultForms;
}

InjectedFault parseFault(const std::string& spec)
{
    InjectedFault f;
    f.spec = spec;
    if (spec.empty())
        return f;
    if (const std::string problem = faultSpecProblem(spec); !problem.empty())
        throw Error("--inject-fault: " + problem);
    if (spec.rfind("weight=", 0) == 0)
        f.weightOp = spec.substr(7);
    else
        f.inputSeed = std::stoull(spec.substr(11));
    return f;
}

std::optional<Graph> graphWithFault(const Graph& graph, const InjectedFault& fault)
{
    if (fault.weightOp.empty())
        return std::nullopt;
    const auto op = graph.findOp(fault.weightOp);
    if (!op)
        throw Error("--inject-fault weight=" + fault.weightOp + ": " + graph.name() + " has no op named '"
            + fault.weightOp + "'");
    for (const Layer& layer : graph.op(*op).layers) {
        if (layer.weights.empty())
            continue;
        const Tensor& w = graph.tensor(layer.weights.front());
        std::vector<float> values = w.weight->values(static_cast<std::size_t>(w.shape.elements()));
        for (float& v : values)
            v = static_cast<float>(v * kWeightFault);
        return GraphBuilder::withWeight(graph, w.id, WeightData::stored(std::move(values)));
    }
    throw Error("--inject-fault weight=" + fault.weightOp + ": op '" + fault.weightOp + "' has no weights ("
        + toString(graph.op(*op).kind) + "); pick a conv, gemm or matmul op");
}

std::vector<TensorData> singleDeviceReference(const Graph& graph, const std::vector<std::vector<float>>& inputs)
{
    std::vector<std::vector<float>> values = singleDeviceOutputs(graph, inputs);
    std::vector<TensorData> out;
    for (std::size_t k = 0; k < values.size(); ++k) {
        const Tensor& t = graph.tensor(graph.outputs()[k]);
        out.push_back(TensorData { t.name, t.shape, DataType::Float32, std::move(values[k]) });
    }
    return out;
}

std::string toleranceText(const Tolerance& t)
{
    return "rtol " + shortNumber(t.rtol) + ", atol " + shortNumber(t.atol)
        + (t.atolScale > 0 ? " + " + shortNumber(t.atolScale) + " x max|ref|" : "");
}

std::string checkFailureMessage(
    const std::vector<OutputComparison>& checks, const std::string& reference, const Tolerance& tolerance)
{
    const auto failed = std::count_if(checks.begin(), checks.end(), [](const auto& c) { return !c.passed; });
    std::string worst;
    for (const auto& c : checks)
        if (!c.passed)
            worst += (worst.empty() ? "; worst: " : "; ") + describeWorst(c); // main escapes the message
    return "--check: " + std::to_string(failed) + " of " + std::to_string(checks.size()) + " outputs differ from "
        + reference + " beyond " + toleranceText(tolerance) + worst;
}

} // namespace opsched::engine
