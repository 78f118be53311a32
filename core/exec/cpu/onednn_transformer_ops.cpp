// The PrimitiveBuilder's kernels for the layers transformers and recurrent networks bring: layer
// and RMS normalisation, embedding lookups, gathers by constant indices, Where, Expand, and an
// RNN, GRU or LSTM direction over its sequence. oneDNN 2.6 has primitives for none of them but
// layer norm (and RNNs with ONNX's default functions only), and its layer norm normalises the last
// axis only; these run as host steps (host_kernels.h, recurrent_kernel.h), followed by the layer's
// activation.
#include "exec/cpu/host_kernels.h"
#include "exec/cpu/onednn_ops.h"
#include "exec/cpu/recurrent_kernel.h"
#include "util/error.h"

#include <memory>

namespace opsched::cpu {
namespace {

std::int64_t elementsOf(const std::vector<std::int64_t>& dims)
{
    return Shape(dims).elements();
}

} // namespace

void PrimitiveBuilder::layerNorm(const LayerNorm& l, const Operand& src, const Operand& dst,
    const std::vector<float>& scale, const std::vector<float>* bias, const Activation& act)
{
    requireDense(src, "layer normalisation");
    requireDense(dst, "layer normalisation");
    const auto rank = static_cast<int>(src.dims.size());
    const int axis = l.axis < 0 ? l.axis + rank : l.axis;
    if (axis < 0 || axis >= rank)
        throw Error("layer normalisation axis " + std::to_string(l.axis) + " is out of range");
    const std::int64_t inner = elementsOf({ src.dims.begin() + axis, src.dims.end() });
    const std::int64_t rows = elementsOf(src.dims) / inner;
    if (static_cast<std::int64_t>(scale.size()) != inner || (bias && static_cast<std::int64_t>(bias->size()) != inner))
        throw Error("layer normalisation weights do not match the " + std::to_string(inner) + " normalised values");
    auto s = std::make_shared<std::vector<float>>(scale);
    auto b = bias ? std::make_shared<std::vector<float>>(*bias) : nullptr;
    weightBytes_ += static_cast<std::int64_t>((scale.size() + (bias ? bias->size() : 0)) * sizeof(float));
    const float* x = src.data;
    float* y = dst.data;
    const float eps = l.epsilon;
    const bool center = !l.rms;
    hostStep([x, y, rows, inner, eps, s, b, center] {
        normaliseRows(x, y, rows, inner, eps, s->data(), b ? b->data() : nullptr, center);
    });
    activate(dst, act);
}

void PrimitiveBuilder::embedding(const Operand& ids, const std::vector<float>& table,
    const std::vector<std::int64_t>& tableDims, int axis, const Operand& dst, const Activation& act)
{
    requireDense(ids, "an embedding lookup");
    requireDense(dst, "an embedding lookup");
    const auto rank = static_cast<int>(tableDims.size());
    const int a = axis < 0 ? axis + rank : axis;
    auto values = std::make_shared<std::vector<float>>(table);
    weightBytes_ += static_cast<std::int64_t>(table.size() * sizeof(float));
    const float* idData = ids.data;
    const std::int64_t count = elementsOf(ids.dims);
    float* out = dst.data;
    hostStep([values, tableDims, a, idData, count, out] {
        embeddingLookup(values->data(), tableDims, a, idData, count, out);
    });
    activate(dst, act);
}

void PrimitiveBuilder::gatherIndices(const Gather& g, const Operand& src, const Operand& dst, const Activation& act)
{
    requireDense(src, "a gather");
    requireDense(dst, "a gather");
    const auto rank = static_cast<int>(src.dims.size());
    const int a = g.axis < 0 ? g.axis + rank : g.axis;
    const Operand in = src, out = dst;
    if (g.elements) {
        const std::vector<float> ids(g.indices.begin(), g.indices.end());
        hostStep([in, out, a, ids, idDims = g.indicesDims] {
            gatherElements(in.data, in.dims, a, ids.data(), idDims, out.data);
        });
    } else {
        const auto indices = g.indices;
        hostStep([in, out, a, indices] { gatherConstant(in.data, in.dims, a, indices, out.data); });
    }
    activate(dst, act);
}

void PrimitiveBuilder::gatherComputed(
    const Gather& g, const Operand& src, const Operand& ids, const Operand& dst, const Activation& act)
{
    for (const auto* o : { &src, &ids, &dst })
        requireDense(*o, "a gather");
    const auto rank = static_cast<int>(src.dims.size());
    const int a = g.axis < 0 ? g.axis + rank : g.axis;
    const Operand in = src, index = ids, out = dst;
    if (g.elements)
        hostStep([in, index, out, a] { gatherElements(in.data, in.dims, a, index.data, index.dims, out.data); });
    else // the data's rows by the ids: an embedding lookup whose table is an activation
        hostStep([in, index, out, a] {
            embeddingLookup(in.data, in.dims, a, index.data, elementsOf(index.dims), out.data);
        });
    activate(dst, act);
}

void PrimitiveBuilder::where(
    const Operand& cond, const Operand& x, const Operand& y, const Operand& dst, const Activation& act)
{
    for (const auto* o : { &cond, &x, &y, &dst })
        requireDense(*o, "where");
    const Operand c = cond, a = x, b = y, out = dst;
    hostStep(
        [c, a, b, out] { opsched::cpu::where(c.data, c.dims, a.data, a.dims, b.data, b.dims, out.data, out.dims); });
    activate(dst, act);
}

void PrimitiveBuilder::expand(const Operand& src, const Operand& dst, const Activation& act)
{
    requireDense(src, "expand");
    requireDense(dst, "expand");
    const Operand in = src, out = dst;
    hostStep([in, out] { opsched::cpu::expand(in.data, in.dims, out.data, out.dims); });
    activate(dst, act);
}

void PrimitiveBuilder::recurrent(
    const Recurrent& r, const std::vector<Operand>& operands, const Operand& dst, const Activation& act)
{
    const RecurrentOperands at = recurrentOperands(r);
    if (operands.size() != static_cast<std::size_t>(at.count))
        throw Error("a recurrent layer needs " + std::to_string(at.count) + " operands");
    for (const auto& o : operands)
        requireDense(o, "a recurrent layer");
    requireDense(dst, "a recurrent layer");
    for (const auto& fn : r.functions)
        if (!isRecurrentFunction(fn))
            throw Error(std::string("a recurrent layer cannot apply '") + toString(fn.kind) + "'");
    const auto data = [&](int index) -> const float* {
        return index >= 0 ? operands[static_cast<std::size_t>(index)].data : nullptr;
    };
    RecurrentData d;
    d.projection = data(at.projection);
    d.initialH = data(at.initialH);
    d.initialC = data(at.initialC);
    d.recurrence = data(at.recurrence);
    d.hiddenBias = data(at.hiddenBias);
    d.peepholes = data(at.peepholes);
    d.out = dst.data;
    const auto& x = operands.front().dims;
    d.steps = r.batchFirst ? x[1] : x[0];
    d.batch = r.batchFirst ? x[0] : x[1];
    // Gates and cell state between steps: the layer's own, as a plan runs one launch at a time.
    auto scratch = std::make_shared<std::vector<float>>();
    hostStep([r, d, scratch] { runRecurrent(r, d, *scratch); });
    activate(dst, act);
}

} // namespace opsched::cpu
