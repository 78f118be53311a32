// ONNX Einsum for the contractions models write (attention scores and values, projections,
// bilinear forms, transposes): one operand is a transpose with sums over the letters the output
// drops; two operands are one MatMul between transposes and reshapes. Each letter of two operands
// is a batch letter (in both and the output), contracted (in both, not the output) or free (in one
// and the output). Diagonals (a letter twice in one operand), letters summed away from one operand
// of two, three or more operands and scalar outputs are refused by name.
#include "import/import_error.h"
#include "import/onnx_mapping_support.h"

#include <algorithm>
#include <numeric>

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
    for (const auto& term : e.inputs)
        for (char c : term)
            if (std::count(term.begin(), term.end(), c) > 1)
                throw NodeError(std::string("equation '") + text + "' takes a diagonal (letter '" + c
                    + "' twice in one operand), which is not supported");
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

} // namespace

void mapEinsum(ImportContext& ctx, const NodeRef& node)
{
    const std::string equation = Attributes(*node.proto).getString("equation", "");
    const int count = node.proto->input_size();
    if (count < 1 || count > 2)
        throw NodeError("an Einsum of " + std::to_string(count) + " operands is not supported (one or two are)");
    std::vector<int> ranks;
    std::vector<Shape> shapes;
    for (int k = 0; k < count; ++k) {
        const std::string& name = inputName(node, k);
        shapes.push_back(ctx.isActivation(name) ? ctx.shapeOf(ctx.activation(name, "operand"))
                                                : Shape(ctx.constantDims(name, "operand")));
        ranks.push_back(shapes.back().rank());
    }
    const Equation e = parseEquation(equation, ranks);
    if (e.output.empty())
        throw NodeError("an Einsum to a scalar ('" + equation + "') is not supported");
    for (char c : e.output)
        if (std::none_of(
                e.inputs.begin(), e.inputs.end(), [c](const std::string& t) { return t.find(c) != std::string::npos; }))
            throw NodeError(std::string("equation '") + equation + "' has output letter '" + c + "' in no operand");
    const std::string& out = e.output;
    if (count == 1) { // a transpose, with a sum over the letters the output drops
        const std::string& in = e.inputs[0];
        const TensorId x = ctx.activation(inputName(node, 0), "operand");
        OpSpec spec;
        spec.name = node.name;
        spec.kind = OpKind::Transpose;
        spec.inputs = { { x } };
        std::vector<std::int64_t> dropped;
        std::string kept;
        for (std::size_t i = 0; i < in.size(); ++i)
            (out.find(in[i]) == std::string::npos ? (void)dropped.push_back(static_cast<std::int64_t>(i))
                                                  : (void)(kept += in[i]));
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
    const std::string &la = e.inputs[0], &lb = e.inputs[1];
    std::string batch, contracted, freeA, freeB;
    for (char c : out)
        if (la.find(c) != std::string::npos && lb.find(c) != std::string::npos)
            batch += c;
    for (char c : la) {
        const bool inB = lb.find(c) != std::string::npos, inOut = out.find(c) != std::string::npos;
        if (inB && !inOut)
            contracted += c;
        else if (!inB && inOut)
            freeA += c;
        else if (!inB && !inOut)
            throw NodeError(std::string("equation '") + equation + "' sums letter '" + c
                + "' away from one operand of two, which is not supported");
    }
    for (char c : lb) {
        const bool inA = la.find(c) != std::string::npos, inOut = out.find(c) != std::string::npos;
        if (!inA && inOut)
            freeB += c;
        else if (!inA && !inOut)
            throw NodeError(std::string("equation '") + equation + "' sums letter '" + c
                + "' away from one operand of two, which is not supported");
    }
    for (char c : contracted)
        if (shapes[0].dims[la.find(c)] != shapes[1].dims[lb.find(c)])
            throw NodeError(std::string("equation '") + equation + "' contracts letter '" + c + "' over "
                + std::to_string(shapes[0].dims[la.find(c)]) + " and " + std::to_string(shapes[1].dims[lb.find(c)])
                + " elements");
    // A: [batch..., M, K]; B: [batch..., K, N]; the product [batch..., M, N].
    auto batchDims = [&](const std::string& term, const Shape& s) {
        std::vector<std::int64_t> d;
        for (char c : batch)
            d.push_back(s.dims[term.find(c)]);
        return d;
    };
    const std::int64_t m = sizeOf(freeA, la, shapes[0]), k = sizeOf(contracted, la, shapes[0]);
    const std::int64_t n = sizeOf(freeB, lb, shapes[1]);
    auto targetA = batchDims(la, shapes[0]);
    targetA.insert(targetA.end(), { m, k });
    auto targetB = batchDims(lb, shapes[1]);
    targetB.insert(targetB.end(), { k, n });
    const std::string& nameA = inputName(node, 0);
    const std::string& nameB = inputName(node, 1);
    if (!ctx.isActivation(nameA))
        throw NodeError("a constant first operand is not supported (the constant must be the second one)");
    const TensorId a = arranged(
        ctx, node.name + ":lhs", ctx.activation(nameA, "operand"), positions(batch + freeA + contracted, la), targetA);
    TensorId product;
    const std::string productName = ctx.derivedOpName(node.name + ":matmul");
    if (ctx.isActivation(nameB)) {
        const TensorId b = arranged(ctx, node.name + ":rhs", ctx.activation(nameB, "operand"),
            positions(batch + contracted + freeB, lb), targetB);
        product = addSimpleOp(ctx, productName, OpKind::MatMul, { { a }, { b } }, makeLayer(MatMul {}));
    } else {
        const auto values = ctx.constant(nameB, "operand")->toFloats();
        const TensorId w = ctx.newWeight(node.name + ".rhs", Shape(targetB),
            permuted(values, shapes[1].dims, positions(batch + contracted + freeB, lb)));
        product = addSimpleOp(ctx, productName, OpKind::MatMul, { { a } }, makeLayer(MatMul {}, { w }));
    }
    // [batch..., M, N] -> [batch..., freeA..., freeB...] -> the output's order.
    const Shape p = ctx.shapeOf(product);
    std::vector<std::int64_t> full(p.dims.begin(), p.dims.end() - 2);
    for (char c : freeA)
        full.push_back(shapes[0].dims[la.find(c)]);
    for (char c : freeB)
        full.push_back(shapes[1].dims[lb.find(c)]);
    OpSpec spec;
    spec.name = node.name;
    spec.kind = OpKind::Transpose;
    spec.inputs = { { product } };
    spec.layers.push_back(makeLayer(Reshape { ctx.batchAwareTarget(full, p) }));
    const auto perm = positions(out, batch + freeA + freeB);
    if (!isIdentity(perm))
        spec.layers.push_back(makeLayer(Transpose { perm }));
    ctx.setActivation(node.proto->output(0), ctx.addOp(std::move(spec)));
}

} // namespace opsched::onnx_import
