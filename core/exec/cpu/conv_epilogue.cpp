#include "exec/cpu/conv_epilogue.h"

#include "exec/cpu/tensor_layout.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <variant>

namespace opsched::cpu {
namespace {

constexpr std::size_t kNone = ~std::size_t { 0 };

struct Context {
    const Graph& graph;
    std::vector<std::size_t> launchOf;
    std::vector<bool> merged;
    std::vector<DynamicBitset> before;
    std::vector<bool> isOutput;
    std::vector<bool> taken; // ops already part of an epilogue

    bool soleConsumer(TensorId t, OpId op) const
    {
        const auto& c = graph.consumers(t);
        return !isOutput[t.value()] && c.size() == 1 && c.front() == op;
    }
    // A plain convolution op, alone in its launch, whose last layer is the convolution.
    bool convOp(OpId id) const
    {
        const Op& op = graph.op(id);
        return !merged[id.value()] && !taken[id.value()] && std::holds_alternative<Conv2d>(op.layers.back().params);
    }
    bool readyBefore(TensorId t, OpId conv) const
    {
        const Tensor& tensor = graph.tensor(t);
        if (!tensor.producer.valid())
            return true;
        const std::size_t p = launchOf[tensor.producer.value()], c = launchOf[conv.value()];
        return p != c && before[c].test(p);
    }
};

bool singleLayer(const Op& op)
{
    return op.layers.size() == 1;
}

// The one activation of an identity-like layer (Identity, empty Eltwise), or nullopt.
std::optional<Activation> identityActivation(const Layer& layer)
{
    if (std::holds_alternative<Identity>(layer.params))
        return layer.activation;
    if (const auto* e = std::get_if<Eltwise>(&layer.params); e && e->activation.kind == ActivationKind::None)
        return layer.activation;
    return std::nullopt;
}

// The one activation an op of a single tensor applies (Eltwise, Identity), or nullopt.
std::optional<Activation> pureActivation(const Op& op)
{
    if (!singleLayer(op) || op.inputs.size() != 1 || op.inputs.front().size() != 1)
        return std::nullopt;
    const Layer& l = op.layers.front();
    if (const auto* e = std::get_if<Eltwise>(&l.params)) {
        if (e->activation.kind == ActivationKind::None)
            return l.activation;
        if (l.activation.kind == ActivationKind::None)
            return e->activation;
        return std::nullopt;
    }
    if (std::holds_alternative<Identity>(l.params))
        return l.activation;
    return std::nullopt;
}

bool isSigmoid(const Op& op)
{
    const auto act = pureActivation(op);
    return act && act->kind == ActivationKind::Sigmoid;
}

// HardSigmoid(x / 6 + 1/2): x times it is HardSwish (PyTorch exports Hardswish so at opset 13).
bool isHardSigmoidOfHardSwish(const Op& op)
{
    const auto act = pureActivation(op);
    return act && act->kind == ActivationKind::HardSigmoid && std::abs(act->alpha - 1.0F / 6.0F) < 1e-6F
        && std::abs(act->beta - 0.5F) < 1e-6F;
}

// Add of two same-shape tensors (one term), then an activation: conv output + residual.
std::optional<ConvEpilogue> residual(Context& ctx, const Op& add)
{
    if (!singleLayer(add) || add.inputs.size() != 1 || add.inputs.front().size() != 2)
        return std::nullopt;
    const auto act = identityActivation(add.layers.front());
    if (!act)
        return std::nullopt;
    const auto& term = add.inputs.front();
    // Prefer the operand produced last: the other one is then ready when its convolution starts.
    std::array<std::size_t, 2> order { 0, 1 };
    auto launch = [&](TensorId t) {
        const OpId p = ctx.graph.tensor(t).producer;
        return p.valid() ? ctx.launchOf[p.value()] : 0;
    };
    if (launch(term[0]) < launch(term[1]))
        std::swap(order[0], order[1]);
    for (auto k : order) {
        const TensorId t = term[k], r = term[1 - k];
        const OpId c = ctx.graph.tensor(t).producer;
        if (t == r || !c.valid() || !ctx.convOp(c) || !ctx.soleConsumer(t, add.id) || !ctx.readyBefore(r, c))
            continue;
        if (ctx.graph.tensor(t).shape.dims != ctx.graph.tensor(r).shape.dims)
            continue;
        ConvEpilogue e { c, { add.id }, add.output, r, false, *act };
        // An activation op alone after the sum (an unfused Relu) joins it.
        const auto& next = ctx.graph.consumers(add.output);
        if (act->kind == ActivationKind::None && next.size() == 1 && !ctx.isOutput[add.output.value()]
            && !ctx.merged[next.front().value()] && !ctx.taken[next.front().value()]) {
            const Op& relu = ctx.graph.op(next.front());
            const auto a = pureActivation(relu);
            if (a && a->kind != ActivationKind::None
                && ctx.graph.tensor(relu.output).shape.dims == ctx.graph.tensor(add.output).shape.dims) {
                e.absorbed.push_back(relu.id);
                e.output = relu.output;
                e.after = *a;
            }
        }
        return e;
    }
    return std::nullopt;
}

// x * sigmoid(x) over a convolution's output x: Mul(x, Sigmoid(x)).
std::optional<ConvEpilogue> swish(Context& ctx, const Op& mul)
{
    if (!singleLayer(mul) || mul.inputs.size() != 2 || mul.inputs[0].size() != 1 || mul.inputs[1].size() != 1)
        return std::nullopt;
    const Layer& l = mul.layers.front();
    const auto* b = std::get_if<Binary>(&l.params);
    const bool product
        = (b && b->kind == BinaryKind::Mul && l.weights.empty()) || std::holds_alternative<Multiply>(l.params);
    if (!product)
        return std::nullopt;
    for (std::size_t k = 0; k < 2; ++k) {
        const TensorId x = mul.inputs[k].front(), s = mul.inputs[1 - k].front();
        const OpId sig = ctx.graph.tensor(s).producer, c = ctx.graph.tensor(x).producer;
        if (!sig.valid() || !c.valid() || ctx.merged[c.value()] || ctx.taken[c.value()])
            continue;
        // x * hardsigmoid(x) is HardSwish: any op without an activation of its own takes it.
        const bool hard = isHardSigmoidOfHardSwish(ctx.graph.op(sig)) && l.activation.kind == ActivationKind::None
            && ctx.graph.op(c).layers.back().activation.kind == ActivationKind::None
            && !isNoopLayer(ctx.graph.op(c), ctx.graph.op(c).layers.size() - 1);
        if (!(hard || (isSigmoid(ctx.graph.op(sig)) && ctx.convOp(c))) || ctx.graph.op(sig).inputs.front().front() != x
            || !ctx.soleConsumer(s, mul.id) || ctx.taken[sig.value()])
            continue;
        const auto& readers = ctx.graph.consumers(x);
        if (ctx.isOutput[x.value()] || readers.size() != 2
            || std::find(readers.begin(), readers.end(), sig) == readers.end()
            || std::find(readers.begin(), readers.end(), mul.id) == readers.end())
            continue;
        if (ctx.graph.tensor(x).shape.dims != ctx.graph.tensor(mul.output).shape.dims)
            continue;
        if (hard)
            return ConvEpilogue { c, { sig, mul.id }, mul.output, TensorId {}, false,
                Activation { ActivationKind::HardSwish } };
        return ConvEpilogue { c, { sig, mul.id }, mul.output, TensorId {}, true, l.activation };
    }
    return std::nullopt;
}

} // namespace

std::vector<ConvEpilogue> convEpilogues(const Graph& graph, const Plan& plan, bool enabled)
{
    std::vector<ConvEpilogue> out;
    if (!enabled)
        return out;
    Context ctx { graph, std::vector<std::size_t>(graph.opCount(), kNone), std::vector<bool>(graph.opCount()),
        launchHappensBefore(plan), std::vector<bool>(graph.tensors().size()), std::vector<bool>(graph.opCount()) };
    for (std::size_t i = 0; i < plan.launches.size(); ++i)
        for (auto id : plan.launches[i].ops) {
            ctx.launchOf[id.value()] = i;
            ctx.merged[id.value()] = plan.launches[i].merged();
        }
    for (auto t : graph.outputs())
        ctx.isOutput[t.value()] = true;
    for (const auto& op : graph.ops()) {
        if (ctx.taken[op.id.value()] || ctx.merged[op.id.value()])
            continue;
        auto e = swish(ctx, op);
        if (!e)
            e = residual(ctx, op);
        if (!e)
            continue;
        ctx.taken[e->conv.value()] = true;
        for (auto a : e->absorbed)
            ctx.taken[a.value()] = true;
        out.push_back(std::move(*e));
    }
    // A lone activation op (an unfused Relu after a BatchNorm, a pool, ...) joins the op before
    // it as that op's activation.
    for (const auto& relu : graph.ops()) {
        const auto act = pureActivation(relu);
        if (!act || act->kind == ActivationKind::None || ctx.taken[relu.id.value()] || ctx.merged[relu.id.value()])
            continue;
        const TensorId t = relu.inputs.front().front();
        const OpId x = graph.tensor(t).producer;
        if (!x.valid() || ctx.taken[x.value()] || ctx.merged[x.value()] || !ctx.soleConsumer(t, relu.id)
            || graph.tensor(t).shape.dims != graph.tensor(relu.output).shape.dims)
            continue;
        const Op& op = graph.op(x);
        const Layer& last = op.layers.back();
        if (last.activation.kind != ActivationKind::None || isNoopLayer(op, op.layers.size() - 1))
            continue;
        ctx.taken[x.value()] = ctx.taken[relu.id.value()] = true;
        out.push_back(ConvEpilogue { x, { relu.id }, relu.output, TensorId {}, false, *act });
    }
    return out;
}

} // namespace opsched::cpu
