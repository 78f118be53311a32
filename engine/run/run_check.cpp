#include "engine/run/run_check.h"

#include "exec/reference_outputs.h"
#include "graph/graph_builder.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <variant>

namespace opsched::engine {
namespace {

constexpr const char* kFaultForms
    = "input-seed=N (N other than 1), weight=OP, weight=OP*F, gelu=tanh, layernorm=unbiased or skip-waits";

std::string shortNumber(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

// weight=OP*F: F when the text after the last '*' is a number, else 0 (the whole text is OP).
double weightFactor(const std::string& target, std::string* op)
{
    const auto star = target.rfind('*');
    *op = target;
    if (star == std::string::npos)
        return 0;
    const std::string f = target.substr(star + 1);
    char* end = nullptr;
    const double v = std::strtod(f.c_str(), &end);
    if (f.empty() || end != f.c_str() + f.size())
        return 0;
    *op = target.substr(0, star);
    return v;
}

// Every erf GELU (fused or standalone) as the tanh approximation.
Graph withGeluApproximated(const Graph& graph)
{
    Graph g = graph;
    std::size_t changed = 0;
    for (const Op& op : graph.ops())
        for (std::size_t i = 0; i < op.layers.size(); ++i) {
            const Layer& layer = op.layers[i];
            LayerParams params = layer.params;
            Activation act = layer.activation;
            bool change = false;
            if (act.kind == ActivationKind::Gelu) {
                act.kind = ActivationKind::GeluTanh;
                change = true;
            }
            if (auto* e = std::get_if<Eltwise>(&params); e && e->activation.kind == ActivationKind::Gelu) {
                e->activation.kind = ActivationKind::GeluTanh;
                change = true;
            }
            if (change) {
                g = GraphBuilder::withLayer(g, op.id, i, std::move(params), act);
                ++changed;
            }
        }
    if (changed == 0)
        throw Error("--inject-fault gelu=tanh: " + graph.name() + " has no erf GELU");
    return g;
}

// Every layer norm as if its variance (RMS norm: its mean square) were divided by n - 1: with
// v' = v n / (n - 1), x / sqrt(v' + eps) = sqrt((n - 1) / n) x / sqrt(v + eps (n - 1) / n), so the
// scale and epsilon change and the kernels stay as they are.
Graph withUnbiasedNorms(const Graph& graph)
{
    Graph g = graph;
    std::size_t changed = 0;
    for (const Op& op : graph.ops())
        for (std::size_t i = 0; i < op.layers.size(); ++i) {
            const Layer& layer = op.layers[i];
            const auto* norm = std::get_if<LayerNorm>(&layer.params);
            if (!norm || layer.weights.empty())
                continue;
            const Tensor& scale = graph.tensor(layer.weights.front());
            const auto n = static_cast<std::size_t>(scale.shape.elements());
            if (n < 2)
                continue;
            const double shrink = static_cast<double>(n - 1) / static_cast<double>(n);
            std::vector<float> values = scale.weight->values(n);
            for (float& v : values)
                v = static_cast<float>(v * std::sqrt(shrink));
            g = GraphBuilder::withWeight(g, scale.id, WeightData::stored(std::move(values)));
            LayerNorm unbiased = *norm;
            unbiased.epsilon = static_cast<float>(norm->epsilon * shrink);
            g = GraphBuilder::withLayer(g, op.id, i, unbiased, layer.activation);
            ++changed;
        }
    if (changed == 0)
        throw Error("--inject-fault layernorm=unbiased: " + graph.name() + " has no layer normalisation");
    return g;
}

Graph withWeightScaled(const Graph& graph, const std::string& opName, double factor)
{
    const std::string spec = "--inject-fault weight=" + opName;
    const auto op = graph.findOp(opName);
    if (!op)
        throw Error(spec + ": " + graph.name() + " has no op named '" + opName + "'");
    for (const Layer& layer : graph.op(*op).layers) {
        if (layer.weights.empty())
            continue;
        const Tensor& w = graph.tensor(layer.weights.front());
        std::vector<float> values = w.weight->values(static_cast<std::size_t>(w.shape.elements()));
        for (float& v : values)
            v = static_cast<float>(v * factor);
        return GraphBuilder::withWeight(graph, w.id, WeightData::stored(std::move(values)));
    }
    throw Error(spec + ": op '" + opName + "' has no weights (" + toString(graph.op(*op).kind)
        + "); pick a conv, gemm or matmul op");
}

} // namespace

std::string faultSpecProblem(const std::string& spec)
{
    if (spec == "gelu=tanh" || spec == "layernorm=unbiased" || spec == "skip-waits")
        return "";
    if (spec.rfind("weight=", 0) == 0) {
        std::string op;
        const double f = weightFactor(spec.substr(7), &op);
        if (op.empty())
            return "weight=OP needs an op name";
        if (spec.find('*', 7) != std::string::npos && f == 0)
            return "weight=OP*F: '" + spec.substr(spec.rfind('*') + 1) + "' is not a factor (e.g. 1.01)";
        if (f != 0 && (!(f > 0 && f <= 10) || f == 1))
            return "weight=OP*F: the factor must be in (0, 10] and not 1";
        return "";
    }
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
    if (spec.rfind("weight=", 0) == 0) {
        f.weightScale = weightFactor(spec.substr(7), &f.weightOp);
        if (f.weightScale == 0)
            f.weightScale = kWeightFault;
    } else if (spec == "gelu=tanh")
        f.geluTanh = true;
    else if (spec == "layernorm=unbiased")
        f.unbiasedNorm = true;
    else if (spec == "skip-waits")
        f.skipWaits = true;
    else
        f.inputSeed = std::stoull(spec.substr(11));
    return f;
}

std::optional<Graph> graphWithFault(const Graph& graph, const InjectedFault& fault)
{
    if (!fault.weightOp.empty())
        return withWeightScaled(graph, fault.weightOp, fault.weightScale);
    if (fault.geluTanh)
        return withGeluApproximated(graph);
    if (fault.unbiasedNorm)
        return withUnbiasedNorms(graph);
    return std::nullopt;
}

std::vector<std::vector<float>> warmUpInputs(const std::vector<std::vector<float>>& inputs)
{
    std::vector<std::vector<float>> reversed = inputs;
    for (auto& values : reversed)
        std::reverse(values.begin(), values.end());
    return reversed;
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
