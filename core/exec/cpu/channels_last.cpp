#include "exec/cpu/channels_last.h"

#include "exec/cpu/merged_conv.h"
#include "exec/cpu/tensor_layout.h"

#include <variant>

namespace opsched::cpu {

bool layoutMatters(const std::vector<std::int64_t>& dims)
{
    return dims.size() == 4 && dims[2] * dims[3] > 1;
}

std::vector<std::int64_t> channelsLastStrides(const std::vector<std::int64_t>& d)
{
    return { d[1] * d[2] * d[3], 1, d[3] * d[1], d[1] };
}

std::size_t firstConvLayer(const Op& op)
{
    for (std::size_t i = 0; i < op.layers.size(); ++i)
        if (std::holds_alternative<Conv2d>(op.layers[i].params))
            return i;
    return op.layers.size();
}

Relayout relayoutOf(const Op& op)
{
    if (op.layers.size() != 1 || op.inputs.size() != 1 || op.inputs.front().size() != 1
        || op.layers.front().activation.kind != ActivationKind::None)
        return Relayout::None;
    const auto* t = std::get_if<Transpose>(&op.layers.front().params);
    if (!t)
        return Relayout::None;
    if (t->perm == std::vector<std::int64_t> { 0, 3, 1, 2 })
        return Relayout::ToNchw;
    if (t->perm == std::vector<std::int64_t> { 0, 2, 3, 1 })
        return Relayout::ToNhwc;
    return Relayout::None;
}

bool relayoutView(const Graph& graph, const Op& op, const std::vector<bool>& cl)
{
    const Relayout r = relayoutOf(op);
    const TensorId in = op.inputs.front().front();
    const bool inCl = cl[in.value()] && layoutMatters(graph.tensor(in).shape.dims);
    const bool outCl = cl[op.output.value()] && layoutMatters(graph.tensor(op.output).shape.dims);
    if (r == Relayout::ToNchw)
        return outCl && !inCl;
    if (r == Relayout::ToNhwc)
        return inCl && !outCl;
    return false;
}

namespace {

bool perChannelWeights(const Graph& graph, const Layer& layer)
{
    for (auto w : layer.weights) {
        const auto& d = graph.tensor(w).shape.dims;
        std::int64_t spatial = 1;
        for (std::size_t i = d.size() >= 2 ? d.size() - 2 : 0; i < d.size() && d.size() >= 3; ++i)
            spatial *= d[i];
        if (spatial > 1)
            return false;
    }
    return true;
}

// Every layer of the op runs on NHWC operands described by their strides.
bool runsOnAnyLayout(const Graph& graph, const Op& op)
{
    std::vector<std::int64_t> cur = combinedInputDims(graph, op);
    for (std::size_t i = 0; i < op.layers.size(); ++i) {
        const Layer& layer = op.layers[i];
        const std::vector<std::int64_t> in = cur;
        const bool sameDims = layer.output.dims == in;
        cur = layer.output.dims;
        if (isNoopLayer(op, i)) {
            if (!sameDims)
                return false; // a view under other dims reads the bytes in NCHW order
            continue;
        }
        const bool ok = std::visit(
            [&](const auto& p) {
                using T = std::decay_t<decltype(p)>;
                if constexpr (std::is_same_v<T, Conv2d> || std::is_same_v<T, BatchNorm>)
                    return true;
                else if constexpr (std::is_same_v<T, Pool2d>)
                    return paddedPoolInputDims(layer, in).empty(); // its zero-padded copy is dense
                else if constexpr (std::is_same_v<T, Eltwise> || std::is_same_v<T, Identity>)
                    return sameDims;
                else if constexpr (std::is_same_v<T, Resize>)
                    return true; // its host kernel follows the output's byte order
                else if constexpr (std::is_same_v<T, Binary>)
                    return p.kind != BinaryKind::Pow && p.kind != BinaryKind::PRelu // host code, dense
                        && perChannelWeights(graph, layer);

                else if constexpr (std::is_same_v<T, Multiply>) {
                    if (i > 0 || !multipliesTerms(op))
                        return sameDims;
                    for (const auto& term : op.inputs) // one operand with the full shape
                        if (graph.tensor(term.front()).shape.dims == layer.output.dims)
                            return true;
                    return false;
                } else
                    return false;
            },
            layer.params);
        if (!ok)
            return false;
    }
    return true;
}

} // namespace

std::vector<bool> channelsLastTensors(const Graph& graph, const Plan& plan, bool enabled)
{
    const auto& tensors = graph.tensors();
    std::vector<bool> cl(tensors.size(), false);
    if (!enabled)
        return cl;
    std::vector<bool> eligible(tensors.size(), false);
    for (const auto& t : tensors)
        eligible[t.id.value()] = t.role == TensorRole::Activation && t.producer.valid() && layoutMatters(t.shape.dims);
    for (auto t : graph.outputs())
        eligible[t.value()] = false;
    // Merged launches' outputs are channel slices of a stacked NCHW output.
    for (const auto& launch : plan.launches)
        if (launch.merged() && mergedConvGeometry(graph, launch.ops))
            for (auto id : launch.ops)
                eligible[graph.op(id).output.value()] = false;
    for (const auto& op : graph.ops())
        if (!runsOnAnyLayout(graph, op)) {
            // A relayout transpose fixes only its NHWC side (plain); the other is free.
            const Relayout r = relayoutOf(op);
            if (r != Relayout::ToNchw)
                eligible[op.output.value()] = false;
            if (r != Relayout::ToNhwc)
                for (auto t : op.inputTensors())
                    eligible[t.value()] = false;
        }
    cl = eligible;
    // Tensors an op must see in one layout: all its inputs; with them its output when no
    // convolution sits in between. Demote to NCHW until every group agrees.
    for (bool changed = true; changed;) {
        changed = false;
        for (const auto& op : graph.ops()) {
            if (relayoutOf(op) != Relayout::None)
                continue; // a view or a real transpose, either way its sides need not agree
            std::vector<TensorId> group = op.inputTensors();
            if (firstConvLayer(op) == op.layers.size())
                group.push_back(op.output);
            bool allCl = true;
            for (auto t : group)
                if (layoutMatters(graph.tensor(t).shape.dims) && !cl[t.value()])
                    allCl = false;
            if (allCl)
                continue;
            for (auto t : group)
                if (cl[t.value()]) {
                    cl[t.value()] = false;
                    changed = true;
                }
        }
    }
    return cl;
}

} // namespace opsched::cpu
