// ONNX Einsum for the contractions models write (attention scores and values, projections,
// bilinear forms, transposes, traces): each operand first loses its diagonals (a letter twice:
// every (n + 1)-th element of the flattened pair) and the letters no other operand and not the output name
// (a sum); one operand is then a transpose, and more are contracted left to right, a pair at a
// time, as one MatMul between transposes and reshapes. Of a pair, each letter is a batch letter (in
// both, still needed), contracted (in both, needed no more) or free (in one, still needed). Work on
// constants alone is done at import. Scalar outputs are refused by name.
#include "import/import_error.h"
#include "import/onnx_mapping_support.h"

#include <algorithm>
#include <numeric>
#include <optional>

namespace opsched::onnx_import {
namespace {

struct Equation {
    std::vector<std::string> inputs;
    std::string output;
};

// Letters per operand with "..." spelled out as the digits '0'.. (right-aligned, so broadcasting
// ellipses line up), and the output (implicit: ellipsis, then the letters seen once, sorted).
Equation parseEquation(std::string text, const std::vector<int>& ranks)
{
    text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
    const auto arrow = text.find("->");
    const std::string lhs = text.substr(0, arrow);
    Equation e;
    std::size_t start = 0;
    while (start <= lhs.size()) {
        const auto comma = lhs.find(',', start);
        e.inputs.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    if (e.inputs.size() != ranks.size())
        throw NodeError("equation '" + text + "' names " + std::to_string(e.inputs.size()) + " operands, the node has "
            + std::to_string(ranks.size()));
    int ellipsis = 0;
    for (std::size_t k = 0; k < e.inputs.size(); ++k) {
        std::string& term = e.inputs[k];
        const auto dots = term.find("...");
        const int letters = static_cast<int>(term.size()) - (dots == std::string::npos ? 0 : 3);
        if (std::any_of(term.begin(), term.end(),
                [](char c) { return !std::isalpha(static_cast<unsigned char>(c)) && c != '.'; }))
            throw NodeError("equation '" + text + "' has a character that is not a letter");
        if (dots == std::string::npos) {
            if (letters != ranks[k])
                throw NodeError("equation '" + text + "' gives operand " + std::to_string(k) + " "
                    + std::to_string(letters) + " letters, it has rank " + std::to_string(ranks[k]));
            continue;
        }
        const int span = ranks[k] - letters;
        if (span < 0)
            throw NodeError(
                "equation '" + text + "' gives operand " + std::to_string(k) + " more letters than its rank");
        ellipsis = std::max(ellipsis, span);
        std::string digits;
        for (int d = 0; d < span; ++d)
            digits += static_cast<char>('0' + (9 - span + 1 + d)); // right-aligned: the last is always '9'
        term.replace(dots, 3, digits);
    }
    std::string spelled;
    for (int d = 0; d < ellipsis; ++d)
        spelled += static_cast<char>('0' + (9 - ellipsis + 1 + d));
    if (arrow != std::string::npos) {
        e.output = text.substr(arrow + 2);
        if (const auto dots = e.output.find("..."); dots != std::string::npos)
            e.output.replace(dots, 3, spelled);
    } else {
        e.output = spelled;
        std::string once;
        for (char c = 'A'; c <= 'z'; ++c) {
            if (!std::isalpha(static_cast<unsigned char>(c)))
                continue;
            int seen = 0;
            for (const auto& term : e.inputs)
                seen += static_cast<int>(std::count(term.begin(), term.end(), c));
            if (seen == 1)
                once += c;
        }
        e.output += once;
    }
    return e;
}

std::vector<std::int64_t> positions(const std::string& letters, const std::string& in)
{
    std::vector<std::int64_t> p;
    for (char c : letters)
        p.push_back(static_cast<std::int64_t>(in.find(c)));
    return p;
}

bool isIdentity(const std::vector<std::int64_t>& perm)
{
    for (std::size_t i = 0; i < perm.size(); ++i)
        if (perm[i] != static_cast<std::int64_t>(i))
            return false;
    return true;
}

std::int64_t sizeOf(const std::string& letters, const std::string& term, const Shape& shape)
{
    std::int64_t n = 1;
    for (char c : letters)
        n *= shape.dims[term.find(c)];
    return n;
}

// Row-major values of `dims` permuted by `perm` (a constant operand's transpose).
std::vector<float> permuted(
    const std::vector<float>& values, const std::vector<std::int64_t>& dims, const std::vector<std::int64_t>& perm)
{
    const std::size_t rank = dims.size();
    std::vector<std::int64_t> strides(rank, 1), outDims(rank);
    for (std::size_t d = rank; d-- > 1;)
        strides[d - 1] = strides[d] * dims[d];
    for (std::size_t d = 0; d < rank; ++d)
        outDims[d] = dims[static_cast<std::size_t>(perm[d])];
    std::vector<float> out(values.size());
    std::vector<std::int64_t> index(rank, 0);
    for (std::size_t i = 0; i < out.size(); ++i) {
        std::int64_t src = 0;
        for (std::size_t d = 0; d < rank; ++d)
            src += index[d] * strides[static_cast<std::size_t>(perm[d])];
        out[i] = values[static_cast<std::size_t>(src)];
        for (std::size_t d = rank; d-- > 0;)
            if (++index[d] < outDims[d])
                break;
            else
                index[d] = 0;
    }
    return out;
}

// Transpose then reshape of an activation as one op (nothing when both are identities).
TensorId arranged(ImportContext& ctx, const std::string& name, TensorId x, const std::vector<std::int64_t>& perm,
    std::vector<std::int64_t> target)
{
    const Shape in = ctx.shapeOf(x);
    OpSpec spec;
    spec.name = ctx.derivedOpName(name);
    spec.kind = OpKind::Transpose;
    spec.inputs = { { x } };
    if (!isIdentity(perm))
        spec.layers.push_back(makeLayer(Transpose { perm }));
    std::vector<std::int64_t> afterPerm;
    for (auto p : perm)
        afterPerm.push_back(in.dims[static_cast<std::size_t>(p)]);
    if (target != afterPerm)
        spec.layers.push_back(makeLayer(Reshape { ctx.batchAwareTarget(std::move(target), in) }));
    if (spec.layers.empty())
        return x;
    if (isIdentity(perm))
        spec.kind = OpKind::Reshape;
    return ctx.addOp(std::move(spec));
}

// One operand on the way through: its letters (one per dimension, each once after
// withoutDiagonals) and either an activation or constant values.
struct Term {
    std::string letters;
    Shape shape;
    std::optional<TensorId> tensor;
    std::vector<float> values; // row-major, when constant
};

// sum over every letter assignment of the product of the terms, as `out` (constants only: a
// product over all letters' sizes, which the caller bounds).
Term constantEinsum(const std::vector<const Term*>& terms, const std::string& out)
{
    std::string letters;
    std::vector<std::int64_t> size;
    auto sizeOf = [&](char c) -> std::int64_t& { return size[letters.find(c)]; };
    for (const Term* t : terms)
        for (std::size_t i = 0; i < t->letters.size(); ++i) {
            if (letters.find(t->letters[i]) == std::string::npos) {
                letters += t->letters[i];
                size.push_back(1);
            }
            sizeOf(t->letters[i]) = std::max(sizeOf(t->letters[i]), t->shape.dims[i]);
        }
    double work = 1;
    for (auto n : size)
        work *= static_cast<double>(n);
    if (work > 1e8)
        throw NodeError("folding this Einsum of constants takes " + std::to_string(work) + " products, too many");
    Term r;
    r.letters = out;
    std::vector<std::int64_t> outDims;
    for (char c : out)
        outDims.push_back(sizeOf(c));
    r.shape = Shape(outDims);
    std::vector<double> acc(static_cast<std::size_t>(r.shape.elements()), 0.0);
    std::vector<std::int64_t> at(letters.size(), 0);
    for (bool more = true; more;) {
        double product = 1.0;
        for (const Term* t : terms) {
            std::int64_t flat = 0;
            for (std::size_t i = 0; i < t->letters.size(); ++i) // a size-1 dimension broadcasts
                flat = flat * t->shape.dims[i] + (t->shape.dims[i] == 1 ? 0 : at[letters.find(t->letters[i])]);
            product *= static_cast<double>(t->values[static_cast<std::size_t>(flat)]);
        }
        std::int64_t flat = 0;
        for (std::size_t i = 0; i < out.size(); ++i)
            flat = flat * outDims[i] + at[letters.find(out[i])];
        acc[static_cast<std::size_t>(flat)] += product;
        more = false;
        for (std::size_t k = letters.size(); k-- > 0;)
            if (++at[k] < size[k]) {
                more = true;
                break;
            } else {
                at[k] = 0;
            }
    }
    r.values.assign(acc.begin(), acc.end());
    return r;
}

// Each letter once: a letter at positions p < q (equal sizes n) becomes the diagonal of that pair,
// moved last: the pair transposed to the end and flattened, then every (n + 1)-th element.
Term withoutDiagonals(ImportContext& ctx, const std::string& name, Term t)
{
    for (;;) {
        std::size_t p = 0, q = std::string::npos;
        for (; p < t.letters.size() && q == std::string::npos; ++p)
            q = t.letters.find(t.letters[p], p + 1);
        if (q == std::string::npos)
            return t;
        --p;
        const char c = t.letters[p];
        const std::int64_t n = t.shape.dims[p];
        if (t.shape.dims[q] != n)
            throw NodeError(std::string("letter '") + c + "' takes the diagonal of " + std::to_string(n) + " x "
                + std::to_string(t.shape.dims[q]) + " elements, which is not square");
        std::string rest;
        for (std::size_t i = 0; i < t.letters.size(); ++i)
            if (i != p && i != q)
                rest += t.letters[i];
        if (!t.tensor) {
            std::string kept = rest;
            kept += c;
            t = constantEinsum({ &t }, kept);
            continue;
        }
        std::vector<std::int64_t> perm, flat;
        for (std::size_t i = 0; i < t.letters.size(); ++i)
            if (i != p && i != q) {
                perm.push_back(static_cast<std::int64_t>(i));
                flat.push_back(t.shape.dims[i]);
            }
        perm.push_back(static_cast<std::int64_t>(p));
        perm.push_back(static_cast<std::int64_t>(q));
        flat.push_back(n * n);
        const TensorId pairs = arranged(ctx, name + ":diagonal_pairs", *t.tensor, perm, flat);
        // (i, i) is flat i * (n + 1): padded by n to n * (n + 1), as [n, n + 1] it is column 0. (A
        // view with step n + 1 would overlap its rows, which oneDNN's descriptors cannot express.)
        const auto rank = static_cast<std::int64_t>(flat.size());
        Pad pad;
        pad.pads.assign(static_cast<std::size_t>(2 * rank), 0);
        pad.pads.back() = n;
        const TensorId padded = addSimpleOp(
            ctx, ctx.derivedOpName(name + ":diagonal_padded"), OpKind::Pad, { { pairs } }, makeLayer(std::move(pad)));
        std::vector<std::int64_t> rows(flat.begin(), flat.end() - 1);
        rows.insert(rows.end(), { n, n + 1 });
        const TensorId grid = addSimpleOp(ctx, ctx.derivedOpName(name + ":diagonal_rows"), OpKind::Reshape,
            { { padded } }, makeLayer(Reshape { ctx.batchAwareTarget(rows, ctx.shapeOf(padded)) }));
        const TensorId column = addSimpleOp(ctx, ctx.derivedOpName(name + ":diagonal_column"), OpKind::Slice,
            { { grid } }, makeLayer(Slice { { 0 }, { 1 }, { rank }, { 1 } }));
        rows.pop_back();
        t.tensor = addSimpleOp(ctx, ctx.derivedOpName(name + ":diagonal"), OpKind::Reshape, { { column } },
            makeLayer(Reshape { ctx.batchAwareTarget(rows, ctx.shapeOf(column)) }));
        t.shape = ctx.shapeOf(*t.tensor);
        t.letters = rest + c;
    }
}

// The term summed over the letters not in `keep` (nothing when it has none).
Term summedTo(ImportContext& ctx, const std::string& name, Term t, const std::string& keep)
{
    std::vector<std::int64_t> axes;
    std::string kept;
    for (std::size_t i = 0; i < t.letters.size(); ++i)
        (keep.find(t.letters[i]) == std::string::npos ? (void)axes.push_back(static_cast<std::int64_t>(i))
                                                      : (void)(kept += t.letters[i]));
    if (axes.empty())
        return t;
    if (kept.empty())
        throw NodeError("sums every letter of an operand away, which is not supported");
    if (!t.tensor)
        return constantEinsum({ &t }, kept);
    t.tensor = addSimpleOp(ctx, ctx.derivedOpName(name + ":sum"), OpKind::Reduce, { { *t.tensor } },
        makeLayer(Reduce { ReduceKind::Sum, axes, false }));
    t.shape = ctx.shapeOf(*t.tensor);
    t.letters = kept;
    return t;
}

// a x b over their shared letters: those in `needed` (the output's and later operands') stay as
// batch letters, the others are contracted. One MatMul between arrangements; the result is
// reshaped (and transposed to `order` when given) by an op named `opName`.
Term contracted(ImportContext& ctx, const std::string& equation, const std::string& opName, Term a, Term b,
    const std::string& needed, const std::string& order)
{
    if (!a.tensor)
        std::swap(a, b); // the activation on the left, a constant on the right
    const std::string &la = a.letters, &lb = b.letters;
    std::string batch, contractedLetters, freeA, freeB;
    for (char c : la) {
        const bool inB = lb.find(c) != std::string::npos, kept = needed.find(c) != std::string::npos;
        (inB ? (kept ? batch : contractedLetters) : freeA) += c;
    }
    for (char c : lb)
        if (la.find(c) == std::string::npos)
            freeB += c;
    for (char c : contractedLetters)
        if (a.shape.dims[la.find(c)] != b.shape.dims[lb.find(c)])
            throw NodeError(std::string("equation '") + equation + "' contracts letter '" + c + "' over "
                + std::to_string(a.shape.dims[la.find(c)]) + " and " + std::to_string(b.shape.dims[lb.find(c)])
                + " elements");
    const std::string resultLetters = batch + freeA + freeB;
    if (resultLetters.empty())
        throw NodeError("equation '" + equation + "' contracts two operands to a scalar, which is not supported");
    if (!a.tensor) // two constants: folded here
        return constantEinsum({ &a, &b }, order.empty() ? resultLetters : order);
    // A: [batch..., M, K]; B: [batch..., K, N]; the product [batch..., M, N].
    auto batchDims = [&](const Term& t) {
        std::vector<std::int64_t> d;
        for (char c : batch)
            d.push_back(t.shape.dims[t.letters.find(c)]);
        return d;
    };
    const std::int64_t m = sizeOf(freeA, la, a.shape), k = sizeOf(contractedLetters, la, a.shape);
    const std::int64_t n = sizeOf(freeB, lb, b.shape);
    auto targetA = batchDims(a);
    targetA.insert(targetA.end(), { m, k });
    auto targetB = batchDims(b);
    targetB.insert(targetB.end(), { k, n });
    const TensorId lhs
        = arranged(ctx, opName + ":lhs", *a.tensor, positions(batch + freeA + contractedLetters, la), targetA);
    TensorId product;
    const std::string productName = ctx.derivedOpName(opName + ":matmul");
    if (b.tensor) {
        const TensorId rhs
            = arranged(ctx, opName + ":rhs", *b.tensor, positions(batch + contractedLetters + freeB, lb), targetB);
        product = addSimpleOp(ctx, productName, OpKind::MatMul, { { lhs }, { rhs } }, makeLayer(MatMul {}));
    } else {
        const TensorId w = ctx.newWeight(opName + ".rhs", Shape(targetB),
            permuted(b.values, b.shape.dims, positions(batch + contractedLetters + freeB, lb)));
        product = addSimpleOp(ctx, productName, OpKind::MatMul, { { lhs } }, makeLayer(MatMul {}, { w }));
    }
    // [batch..., M, N] -> [batch..., freeA..., freeB...] (-> `order`).
    const Shape p = ctx.shapeOf(product);
    std::vector<std::int64_t> full(p.dims.begin(), p.dims.end() - 2);
    for (char c : freeA)
        full.push_back(a.shape.dims[la.find(c)]);
    for (char c : freeB)
        full.push_back(b.shape.dims[lb.find(c)]);
    OpSpec spec;
    spec.name = opName;
    spec.kind = OpKind::Transpose;
    spec.inputs = { { product } };
    spec.layers.push_back(makeLayer(Reshape { ctx.batchAwareTarget(full, p) }));
    Term r;
    r.letters = resultLetters;
    if (!order.empty()) {
        const auto perm = positions(order, resultLetters);
        if (!isIdentity(perm))
            spec.layers.push_back(makeLayer(Transpose { perm }));
        r.letters = order;
    }
    r.tensor = ctx.addOp(std::move(spec));
    r.shape = ctx.shapeOf(*r.tensor);
    return r;
}

} // namespace

void mapEinsum(ImportContext& ctx, const NodeRef& node)
{
    const std::string equation = Attributes(*node.proto).getString("equation", "");
    const int count = node.proto->input_size();
    if (count < 1)
        throw NodeError("an Einsum needs at least one operand");
    std::vector<int> ranks;
    std::vector<Term> terms;
    for (int k = 0; k < count; ++k) {
        const std::string& name = inputName(node, k);
        Term t;
        if (ctx.isActivation(name)) {
            t.tensor = ctx.activation(name, "operand");
            t.shape = ctx.shapeOf(*t.tensor);
        } else {
            t.shape = Shape(ctx.constantDims(name, "operand"));
            t.values = ctx.constant(name, "operand")->toFloats();
        }
        ranks.push_back(t.shape.rank());
        terms.push_back(std::move(t));
    }
    const Equation e = parseEquation(equation, ranks);
    if (e.output.empty())
        throw NodeError("an Einsum to a scalar ('" + equation + "') is not supported");
    for (char c : e.output)
        if (std::none_of(
                e.inputs.begin(), e.inputs.end(), [c](const std::string& t) { return t.find(c) != std::string::npos; }))
            throw NodeError(std::string("equation '") + equation + "' has output letter '" + c + "' in no operand");
    if (std::none_of(terms.begin(), terms.end(), [](const Term& t) { return t.tensor.has_value(); }))
        throw NodeError("an Einsum of constants only is not supported (it folds where its inputs are known)");
    const std::string& out = e.output;
    // Per operand: diagonals taken, then the letters no other operand and not the output need summed.
    for (std::size_t k = 0; k < terms.size(); ++k) {
        terms[k].letters = e.inputs[k];
        const std::string name = node.name + ":operand" + std::to_string(k);
        terms[k] = withoutDiagonals(ctx, name, std::move(terms[k]));
        std::string others = out;
        for (std::size_t j = 0; j < terms.size(); ++j)
            if (j != k)
                others += e.inputs[j];
        if (terms.size() > 1)
            terms[k] = summedTo(ctx, name, std::move(terms[k]), others);
    }
    if (terms.size() == 1) { // a transpose, with a sum over the letters the output drops
        const Term& t = terms[0];
        OpSpec spec;
        spec.name = node.name;
        spec.kind = OpKind::Transpose;
        spec.inputs = { { *t.tensor } };
        std::vector<std::int64_t> dropped;
        std::string kept;
        for (std::size_t i = 0; i < t.letters.size(); ++i)
            (out.find(t.letters[i]) == std::string::npos ? (void)dropped.push_back(static_cast<std::int64_t>(i))
                                                         : (void)(kept += t.letters[i]));
        if (!dropped.empty()) {
            spec.kind = OpKind::Reduce;
            spec.layers.push_back(makeLayer(Reduce { ReduceKind::Sum, dropped, false }));
        }
        const auto perm = positions(out, kept);
        if (!isIdentity(perm) || spec.layers.empty())
            spec.layers.push_back(makeLayer(Transpose { perm }));
        ctx.setActivation(node.proto->output(0), ctx.addOp(std::move(spec)));
        return;
    }
    // Left to right, a pair at a time; the last pair lands in the output's order.
    Term acc = std::move(terms[0]);
    for (std::size_t k = 1; k < terms.size(); ++k) {
        const bool last = k + 1 == terms.size();
        std::string needed = out;
        for (std::size_t j = k + 1; j < terms.size(); ++j)
            needed += terms[j].letters;
        const std::string opName = last ? node.name : ctx.derivedOpName(node.name + ":pair" + std::to_string(k));
        acc = contracted(ctx, equation, opName, std::move(acc), std::move(terms[k]), needed, last ? out : "");
    }
    ctx.setActivation(node.proto->output(0), *acc.tensor);
}

} // namespace opsched::onnx_import
