// ScatterND, ScatterElements (and opset-9 Scatter) and GatherND on activations with constant
// indices: what static-shape exports of slice assignments (x[..., :2] = ...), torch.gather and
// tf.gather_nd leave once their index chains fold. Each output element's source is known at import,
// so a scatter is a select between the data and a gather from the flattened updates (the mask a
// constant), and GatherND a gather from the flattened data. GatherND by computed indices (TopK's, in
// detection heads) becomes a gather of rows whose numbers are computed with element-wise ops. A
// scatter with a reduction (add, mul, max, min) combines the data with each level of repeated
// writes in turn. Scatters by computed indices are refused by name.
#include "import/import_error.h"
#include "import/onnx_constant_folding.h"
#include "import/onnx_mapping_support.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>

namespace opsched::onnx_import {
namespace {

std::vector<std::int64_t> rowMajor(const std::vector<std::int64_t>& dims)
{
    std::vector<std::int64_t> s(dims.size(), 1);
    for (std::size_t d = dims.size(); d-- > 1;)
        s[d - 1] = s[d] * dims[d];
    return s;
}

std::int64_t elements(const std::vector<std::int64_t>& dims, std::size_t from = 0)
{
    return std::accumulate(dims.begin() + static_cast<std::ptrdiff_t>(std::min(from, dims.size())), dims.end(),
        std::int64_t { 1 }, std::multiplies<> {});
}

std::int64_t checkedIndex(std::int64_t i, std::int64_t len, std::size_t axis)
{
    if (i < -len || i >= len)
        throw NodeError("index " + std::to_string(i) + " is out of range for axis " + std::to_string(axis) + " of "
            + std::to_string(len) + " elements");
    return i < 0 ? i + len : i;
}

// The constant indices, or a message for computed ones.
ConstPtr constantIndices(ImportContext& ctx, const NodeRef& node)
{
    const std::string& name = inputName(node, 1);
    if (!ctx.isConstant(name))
        throw NodeError("has indices computed at run time; opsched supports " + node.opType()
            + " with constant indices (shapes fixed at import fold the usual index chains)");
    return ctx.constant(name, "indices");
}

// `x` as one row: [elements].
TensorId flattened(ImportContext& ctx, const std::string& name, TensorId x)
{
    const Shape s = ctx.shapeOf(x);
    if (s.rank() == 1)
        return x;
    return addSimpleOp(ctx, ctx.derivedOpName(name), OpKind::Reshape, { { x } },
        makeLayer(Reshape { ctx.batchAwareTarget({ s.elements() }, s) }));
}

// out = gather(flat `x`, indices shaped `dims`).
TensorId gatherFlat(ImportContext& ctx, const std::string& name, TensorId x, std::vector<std::int64_t> indices,
    std::vector<std::int64_t> dims)
{
    Gather g;
    g.indices = std::move(indices);
    g.indicesDims = std::move(dims);
    return addSimpleOp(ctx, name, OpKind::Gather, { { flattened(ctx, name + ":flat", x) } }, makeLayer(g));
}

// A scatter whose every target is known: source[p] is the flat updates position written to output
// position p (-1: the data's own value). Later writes win, as the exporters' frameworks do.
void emitScatter(ImportContext& ctx, const NodeRef& node, const std::vector<std::int64_t>& source)
{
    const std::string& dataName = inputName(node, 0);
    const std::string& updatesName = inputName(node, 2);
    const auto dataDims = ctx.isActivation(dataName) ? ctx.shapeOf(ctx.activation(dataName, "data")).dims
                                                     : ctx.constantDims(dataName, "data");
    std::vector<std::int64_t> picks(source.size());
    std::vector<float> mask(source.size());
    for (std::size_t p = 0; p < source.size(); ++p) {
        picks[p] = std::max<std::int64_t>(source[p], 0);
        mask[p] = source[p] >= 0 ? 1.0F : 0.0F;
    }
    if (std::all_of(mask.begin(), mask.end(), [](float m) { return m == 0.0F; })) {
        mapPassThrough(ctx, node); // nothing written: the data itself
        return;
    }
    std::vector<InputTerm> terms;
    std::vector<TensorId> weights { ctx.newWeight(node.name + ".mask", Shape(dataDims), mask) };
    Where w;
    if (ctx.isActivation(updatesName)) {
        const TensorId updates = ctx.activation(updatesName, "updates");
        terms.push_back({ gatherFlat(ctx, ctx.derivedOpName(node.name + ":updates"), updates, picks, dataDims) });
    } else { // constant updates: their values placed at import
        const auto values = ctx.constant(updatesName, "updates")->toFloats();
        std::vector<float> placed(source.size(), 0.0F);
        for (std::size_t p = 0; p < source.size(); ++p)
            placed[p] = values.at(static_cast<std::size_t>(picks[p]));
        weights.push_back(ctx.newWeight(node.name + ".updates", Shape(dataDims), std::move(placed)));
    }
    if (ctx.isActivation(dataName))
        terms.push_back({ ctx.activation(dataName, "data") });
    else
        weights.push_back(ctx.weightOf(dataName));
    if (terms.empty())
        throw NodeError("scatters constants into a constant (it folds where its inputs are known)");
    // Operands are the terms, then the weights: mask, [placed updates], [data].
    const auto termCount = static_cast<std::int8_t>(terms.size());
    w.operand[0] = termCount;
    const bool updatesAreTerm = ctx.isActivation(updatesName), dataIsTerm = ctx.isActivation(dataName);
    w.operand[1] = updatesAreTerm ? 0 : static_cast<std::int8_t>(termCount + 1);
    w.operand[2] = dataIsTerm ? static_cast<std::int8_t>(updatesAreTerm ? 1 : 0)
                              : static_cast<std::int8_t>(termCount + (updatesAreTerm ? 1 : 2));
    ctx.setActivation(node.proto->output(0),
        addSimpleOp(ctx, node.name, OpKind::Where, std::move(terms), makeLayer(w, std::move(weights))));
}

// ONNX's reduction attribute: how writes combine with the data and with each other.
std::optional<BinaryKind> reductionOf(const NodeRef& node)
{
    const std::string reduction = Attributes(*node.proto).getString("reduction", "none");
    if (reduction == "none")
        return std::nullopt;
    if (reduction == "add")
        return BinaryKind::Add;
    if (reduction == "mul")
        return BinaryKind::Mul;
    if (reduction == "max")
        return BinaryKind::Max;
    if (reduction == "min")
        return BinaryKind::Min;
    throw NodeError("unknown reduction '" + reduction + "'");
}

// A reducing scatter: the data combined with the k-th write to each position, k = 1, 2, ...
// (positions with fewer writes take the reduction's neutral value), one select and one
// element-wise op per level; exporters' scatters rarely write a position more than once or twice.
void emitReducingScatter(
    ImportContext& ctx, const NodeRef& node, const std::vector<std::vector<std::int64_t>>& writes, BinaryKind kind)
{
    const std::string& dataName = inputName(node, 0);
    const std::string& updatesName = inputName(node, 2);
    const auto dataDims = ctx.isActivation(dataName) ? ctx.shapeOf(ctx.activation(dataName, "data")).dims
                                                     : ctx.constantDims(dataName, "data");
    const float neutral = kind == BinaryKind::Add ? 0.0F
        : kind == BinaryKind::Mul                 ? 1.0F
        : kind == BinaryKind::Max                 ? -std::numeric_limits<float>::infinity()
                                                  : std::numeric_limits<float>::infinity();
    const OpKind opKind = binaryOpKind(kind);
    std::size_t levels = 0;
    for (const auto& w : writes)
        levels = std::max(levels, w.size());
    if (levels > 16)
        throw NodeError("writes one position " + std::to_string(levels) + " times; opsched reduces up to 16");
    std::optional<TensorId> acc;
    if (ctx.isActivation(dataName))
        acc = ctx.activation(dataName, "data");
    const bool updatesAreActivation = ctx.isActivation(updatesName);
    const auto constantUpdates
        = updatesAreActivation ? std::vector<float> {} : ctx.constant(updatesName, "updates")->toFloats();
    for (std::size_t k = 0; k < levels; ++k) {
        const std::string level = node.name + ":write" + std::to_string(k + 1);
        std::vector<std::int64_t> picks(writes.size(), 0);
        std::vector<float> mask(writes.size(), 0.0F), placed(writes.size(), neutral);
        for (std::size_t p = 0; p < writes.size(); ++p)
            if (writes[p].size() > k) {
                picks[p] = writes[p][k];
                mask[p] = 1.0F;
                if (!updatesAreActivation)
                    placed[p] = constantUpdates.at(static_cast<std::size_t>(picks[p]));
            }
        std::vector<InputTerm> terms;
        std::vector<TensorId> weights;
        if (updatesAreActivation) { // select(mask, the k-th writes, neutral)
            const TensorId gathered = gatherFlat(
                ctx, ctx.derivedOpName(level + ":updates"), ctx.activation(updatesName, "updates"), picks, dataDims);
            Where w;
            w.operand = { 1, 0, 2 };
            const TensorId contribution = addSimpleOp(ctx, ctx.derivedOpName(level), OpKind::Where, { { gathered } },
                makeLayer(w,
                    { ctx.newWeight(level + ".mask", Shape(dataDims), mask),
                        ctx.newWeight(level + ".neutral", Shape { 1 }, { neutral }) }));
            terms.push_back({ contribution });
        } else {
            weights.push_back(ctx.newWeight(level + ".values", Shape(dataDims), std::move(placed)));
        }
        const bool last = k + 1 == levels;
        const std::string opName = last ? node.name : ctx.derivedOpName(level + ":combined");
        if (acc)
            terms.insert(terms.begin(), { *acc });
        else
            weights.push_back(ctx.weightOf(dataName));
        if (terms.empty())
            throw NodeError("scatters constants into a constant (it folds where its inputs are known)");
        // The combining kinds commute: with one activation the constant is the layer's weight.
        if (terms.size() == 2)
            acc = addSimpleOp(ctx, opName, opKind, std::move(terms), makeLayer(Binary { kind }));
        else
            acc = addSimpleOp(ctx, opName, opKind, std::move(terms), makeLayer(Binary { kind }, weights));
    }
    ctx.setActivation(node.proto->output(0), *acc);
}

// Every write, in order, to each output position: the last one stays, or they reduce.
void emitScatterWrites(ImportContext& ctx, const NodeRef& node, const std::vector<std::vector<std::int64_t>>& writes)
{
    if (const auto kind = reductionOf(node)) {
        emitReducingScatter(ctx, node, writes, *kind);
        return;
    }
    std::vector<std::int64_t> source(writes.size(), -1);
    for (std::size_t p = 0; p < writes.size(); ++p)
        if (!writes[p].empty())
            source[p] = writes[p].back();
    emitScatter(ctx, node, source);
}

} // namespace

void mapScatterNd(ImportContext& ctx, const NodeRef& node)
{
    const auto idx = constantIndices(ctx, node);
    const std::string& dataName = inputName(node, 0);
    const auto dataDims = ctx.isActivation(dataName) ? ctx.shapeOf(ctx.activation(dataName, "data")).dims
                                                     : ctx.constantDims(dataName, "data");
    const auto& iDims = idx->dims;
    if (iDims.empty() || iDims.back() < 1 || iDims.back() > static_cast<std::int64_t>(dataDims.size()))
        throw NodeError(
            "indices of shape " + dimsToString(iDims) + " do not index data of shape " + dimsToString(dataDims));
    const auto k = static_cast<std::size_t>(iDims.back());
    const std::int64_t tuples = elements({ iDims.begin(), iDims.end() - 1 });
    const std::int64_t inner = elements(dataDims, k);
    const auto values = idx->toInts();
    const auto strides = rowMajor(dataDims);
    std::vector<std::vector<std::int64_t>> writes(static_cast<std::size_t>(elements(dataDims)));
    for (std::int64_t t = 0; t < tuples; ++t) {
        std::int64_t base = 0;
        for (std::size_t d = 0; d < k; ++d)
            base += checkedIndex(values[static_cast<std::size_t>(t) * k + d], dataDims[d], d) * strides[d];
        for (std::int64_t j = 0; j < inner; ++j)
            writes[static_cast<std::size_t>(base + j)].push_back(t * inner + j);
    }
    emitScatterWrites(ctx, node, writes);
}

void mapScatterElements(ImportContext& ctx, const NodeRef& node)
{
    const auto idx = constantIndices(ctx, node);
    const std::string& dataName = inputName(node, 0);
    const auto dataDims = ctx.isActivation(dataName) ? ctx.shapeOf(ctx.activation(dataName, "data")).dims
                                                     : ctx.constantDims(dataName, "data");
    const auto& iDims = idx->dims;
    const auto rank = static_cast<std::int64_t>(dataDims.size());
    const auto axis = static_cast<std::size_t>(normalizeAxis(Attributes(*node.proto).getInt("axis", 0), rank));
    if (iDims.size() != dataDims.size())
        throw NodeError(
            "indices of shape " + dimsToString(iDims) + " differ in rank from the data " + dimsToString(dataDims));
    const auto values = idx->toInts();
    const auto strides = rowMajor(dataDims), iStrides = rowMajor(iDims);
    std::vector<std::vector<std::int64_t>> writes(static_cast<std::size_t>(elements(dataDims)));
    for (std::int64_t p = 0; p < elements(iDims); ++p) {
        std::int64_t target = 0;
        for (std::size_t d = 0; d < iDims.size(); ++d) {
            const std::int64_t c = d == axis ? checkedIndex(values[static_cast<std::size_t>(p)], dataDims[d], d)
                                             : (p / iStrides[d]) % iDims[d];
            if (c >= dataDims[d])
                throw NodeError(
                    "indices of shape " + dimsToString(iDims) + " exceed the data " + dimsToString(dataDims));
            target += c * strides[d];
        }
        writes[static_cast<std::size_t>(target)].push_back(p); // updates have the indices' shape
    }
    emitScatterWrites(ctx, node, writes);
}

namespace {

// GatherND by indices the model computes (TopK's or ArgMax's, as detection heads do): each index
// tuple becomes a row of the data flattened to [rows, inner], row = sum of (tuple + its dims where
// negative) x row-major strides, plus the batch's first row; then one gather by those rows.
void mapGatherNdComputed(ImportContext& ctx, const NodeRef& node, std::size_t b)
{
    const TensorId x = ctx.activation(inputName(node, 0), "data");
    const TensorId ids = ctx.activation(inputName(node, 1), "indices");
    const auto dataDims = ctx.shapeOf(x).dims;
    const auto iDims = ctx.shapeOf(ids).dims;
    if (iDims.empty() || b >= iDims.size() || iDims.back() < 1
        || b + static_cast<std::size_t>(iDims.back()) > dataDims.size())
        throw NodeError("indices of shape " + dimsToString(iDims) + " with batch_dims " + std::to_string(b)
            + " do not index data of shape " + dimsToString(dataDims));
    const auto k = static_cast<std::size_t>(iDims.back());
    std::vector<float> lengths, strides(k, 1.0F);
    for (std::size_t d = 0; d < k; ++d)
        lengths.push_back(static_cast<float>(dataDims[b + d]));
    for (std::size_t d = k; d-- > 1;)
        strides[d - 1] = strides[d] * lengths[d];
    const auto kDims = Shape { static_cast<std::int64_t>(k) };
    const std::string base = node.name + ":";
    // Negative components count from the end: + length where < 0.
    const TensorId negative = addSimpleOp(ctx, ctx.derivedOpName(base + "negative"), OpKind::Compare, { { ids } },
        makeLayer(Binary { BinaryKind::Less }, { ctx.newWeight(node.name + ".zero", Shape { 1 }, { 0.0F }) }));
    const TensorId wrap = addSimpleOp(ctx, ctx.derivedOpName(base + "wrap"), OpKind::Multiply, { { negative } },
        makeLayer(Binary { BinaryKind::Mul }, { ctx.newWeight(node.name + ".lengths", kDims, lengths) }));
    const TensorId positive = addSimpleOp(ctx, ctx.derivedOpName(base + "positive"), OpKind::Add, { { ids }, { wrap } },
        makeLayer(Binary { BinaryKind::Add }));
    const TensorId scaled = addSimpleOp(ctx, ctx.derivedOpName(base + "scaled"), OpKind::Multiply, { { positive } },
        makeLayer(Binary { BinaryKind::Mul }, { ctx.newWeight(node.name + ".strides", kDims, strides) }));
    const auto last = static_cast<std::int64_t>(iDims.size() - 1);
    TensorId rows = addSimpleOp(ctx, ctx.derivedOpName(base + "rows"), OpKind::Reduce, { { scaled } },
        makeLayer(Reduce { ReduceKind::Sum, { last }, false }));
    const std::vector<std::int64_t> lead(iDims.begin(), iDims.end() - 1);
    const std::int64_t perBatch = elements(
        { dataDims.begin() + static_cast<std::ptrdiff_t>(b), dataDims.begin() + static_cast<std::ptrdiff_t>(b + k) });
    if (b > 0) { // + the batch's first row: constant per leading position
        const std::int64_t batches = elements({ lead.begin(), lead.begin() + static_cast<std::ptrdiff_t>(b) });
        std::vector<float> offsets(static_cast<std::size_t>(elements(lead)));
        const std::int64_t perLead = elements(lead) / batches;
        for (std::size_t l = 0; l < offsets.size(); ++l)
            offsets[l] = static_cast<float>(static_cast<std::int64_t>(l) / perLead * perBatch);
        rows = addSimpleOp(ctx, ctx.derivedOpName(base + "batch_rows"), OpKind::Add, { { rows } },
            makeLayer(Binary { BinaryKind::Add }, { ctx.newWeight(node.name + ".batch_rows", Shape(lead), offsets) }));
    }
    const std::int64_t inner = elements(dataDims, b + k);
    const std::int64_t total = elements(dataDims);
    const TensorId table = addSimpleOp(ctx, ctx.derivedOpName(base + "table"), OpKind::Reshape, { { x } },
        makeLayer(Reshape { ctx.batchAwareTarget({ total / inner, inner }, ctx.shapeOf(x)) }));
    Gather g;
    const TensorId picked
        = addSimpleOp(ctx, ctx.derivedOpName(base + "gather"), OpKind::Gather, { { table }, { rows } }, makeLayer(g));
    std::vector<std::int64_t> outDims = lead;
    outDims.insert(outDims.end(), dataDims.begin() + static_cast<std::ptrdiff_t>(b + k), dataDims.end());
    ctx.setActivation(node.proto->output(0),
        addSimpleOp(ctx, node.name, OpKind::Reshape, { { picked } },
            makeLayer(Reshape { ctx.batchAwareTarget(outDims, ctx.shapeOf(picked)) })));
}

} // namespace

void mapGatherNd(ImportContext& ctx, const NodeRef& node)
{
    const auto batchDims = static_cast<std::size_t>(Attributes(*node.proto).getInt("batch_dims", 0));
    if (ctx.isActivation(inputName(node, 1))) {
        mapGatherNdComputed(ctx, node, batchDims);
        return;
    }
    const auto idx = constantIndices(ctx, node);
    const TensorId x = ctx.activation(inputName(node, 0), "data");
    const auto dataDims = ctx.shapeOf(x).dims;
    const auto& iDims = idx->dims;
    const std::size_t b = batchDims;
    if (iDims.empty() || b >= iDims.size() || iDims.back() < 1
        || b + static_cast<std::size_t>(iDims.back()) > dataDims.size())
        throw NodeError("indices of shape " + dimsToString(iDims) + " with batch_dims " + std::to_string(b)
            + " do not index data of shape " + dimsToString(dataDims));
    for (std::size_t d = 0; d < b; ++d)
        if (iDims[d] != dataDims[d])
            throw NodeError("batch dimension " + std::to_string(d) + " differs: indices " + dimsToString(iDims)
                + ", data " + dimsToString(dataDims));
    const auto k = static_cast<std::size_t>(iDims.back());
    const std::vector<std::int64_t> lead(iDims.begin(), iDims.end() - 1);
    const std::int64_t inner = elements(dataDims, b + k);
    const auto values = idx->toInts();
    const auto strides = rowMajor(dataDims), leadStrides = rowMajor(lead);
    std::vector<std::int64_t> picks;
    for (std::int64_t l = 0; l < elements(lead); ++l) {
        std::int64_t base = 0;
        for (std::size_t d = 0; d < b; ++d) // the batch coordinates, shared by indices and data
            base += ((l / leadStrides[d]) % lead[d]) * strides[d];
        for (std::size_t d = 0; d < k; ++d)
            base += checkedIndex(values[static_cast<std::size_t>(l) * k + d], dataDims[b + d], b + d) * strides[b + d];
        for (std::int64_t j = 0; j < inner; ++j)
            picks.push_back(base + j);
    }
    std::vector<std::int64_t> outDims = lead;
    outDims.insert(outDims.end(), dataDims.begin() + static_cast<std::ptrdiff_t>(b + k), dataDims.end());
    ctx.setActivation(node.proto->output(0), gatherFlat(ctx, node.name, x, std::move(picks), std::move(outDims)));
}

} // namespace opsched::onnx_import
