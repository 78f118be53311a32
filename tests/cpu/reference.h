// A naive reference executor: plain loops over dense NCHW float32, op by op in topological order,
// with PyTorch / ONNX semantics. Slow and obvious on purpose, to check the oneDNN executor on
// small graphs.
#pragma once

#include "graph/graph.h"
#include "reference_tensor_ops.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <vector>

namespace opsched::test {

inline float activate(float x, const Activation& a)
{
    switch (a.kind) {
    case ActivationKind::None:
        return x;
    case ActivationKind::Relu:
        return std::max(x, 0.0F);
    case ActivationKind::Clip:
        return std::min(std::max(x, a.alpha), a.beta);
    case ActivationKind::Sigmoid:
        return 1.0F / (1.0F + std::exp(-x));
    case ActivationKind::HardSigmoid:
        return std::max(0.0F, std::min(1.0F, a.alpha * x + a.beta));
    case ActivationKind::HardSwish:
        return x * std::min(std::max(x + 3.0F, 0.0F), 6.0F) / 6.0F;
    case ActivationKind::Tanh:
        return std::tanh(x);
    case ActivationKind::Gelu:
        return static_cast<float>(0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))));
    case ActivationKind::GeluTanh:
        return static_cast<float>(
            0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / 3.141592653589793) * (x + 0.044715 * x * x * x))));
    case ActivationKind::Erf:
        return std::erf(x);
    case ActivationKind::Sqrt:
        return std::sqrt(x);
    case ActivationKind::Exp:
        return std::exp(x);
    case ActivationKind::Log:
        return std::log(x);
    case ActivationKind::Abs:
        return std::abs(x);
    case ActivationKind::Neg:
        return -x;
    case ActivationKind::Reciprocal:
        return 1.0F / x;
    case ActivationKind::Pow:
        return std::pow(x, a.alpha);
    case ActivationKind::Not:
        return x == 0.0F ? 1.0F : 0.0F;
    case ActivationKind::NonZero:
        return x != 0.0F ? 1.0F : 0.0F;
    case ActivationKind::Truncate:
        return std::trunc(x);
    case ActivationKind::LeakyRelu:
        return x < 0.0F ? a.alpha * x : x;
    case ActivationKind::Elu:
        return x < 0.0F ? static_cast<float>(a.alpha * std::expm1(double { x })) : x;
    case ActivationKind::Selu:
        return static_cast<float>(a.beta * (x < 0.0F ? a.alpha * std::expm1(double { x }) : double { x }));
    case ActivationKind::Celu:
        return x < 0.0F ? static_cast<float>(a.alpha * std::expm1(double { x } / a.alpha)) : x;
    case ActivationKind::Softplus:
        return static_cast<float>(std::log1p(std::exp(double { x })));
    case ActivationKind::Softsign:
        return x / (1.0F + std::abs(x));
    case ActivationKind::Mish:
        return static_cast<float>(x * std::tanh(std::log1p(std::exp(double { x }))));
    case ActivationKind::ThresholdedRelu:
        return x > a.alpha ? x : 0.0F;
    case ActivationKind::Floor:
        return std::floor(x);
    case ActivationKind::Ceil:
        return std::ceil(x);
    case ActivationKind::Round:
        return std::nearbyint(x);
    case ActivationKind::Sign:
        return x > 0.0F ? 1.0F : x < 0.0F ? -1.0F : 0.0F;
    case ActivationKind::Sin:
        return static_cast<float>(std::sin(double { x }));
    case ActivationKind::Cos:
        return static_cast<float>(std::cos(double { x }));
    default:
        throw std::runtime_error("reference: unknown activation");
    }
}

inline void activateAll(HostTensor& t, const Activation& a)
{
    for (auto& v : t.data)
        v = activate(v, a);
}

inline HostTensor referenceConv(const HostTensor& in, const Conv2d& c, const std::vector<float>& w,
    const std::vector<float>* bias, const Shape& out)
{
    HostTensor o { out.dims, std::vector<float>(static_cast<std::size_t>(out.elements())) };
    const std::int64_t n = in.dims[0], ci = in.dims[1], h = in.dims[2], wd = in.dims[3];
    const std::int64_t co = out[1], oh = out[2], ow = out[3], g = c.groups, cig = ci / g, cog = co / g;
    for (std::int64_t b = 0; b < n; ++b)
        for (std::int64_t oc = 0; oc < co; ++oc)
            for (std::int64_t y = 0; y < oh; ++y)
                for (std::int64_t x = 0; x < ow; ++x) {
                    double acc = bias ? (*bias)[static_cast<std::size_t>(oc)] : 0.0;
                    const std::int64_t grp = oc / cog;
                    for (std::int64_t ic = 0; ic < cig; ++ic)
                        for (std::int64_t ky = 0; ky < c.kernelH; ++ky)
                            for (std::int64_t kx = 0; kx < c.kernelW; ++kx) {
                                const std::int64_t iy = y * c.strideH - c.padTop + ky * c.dilationH;
                                const std::int64_t ix = x * c.strideW - c.padLeft + kx * c.dilationW;
                                if (iy < 0 || iy >= h || ix < 0 || ix >= wd)
                                    continue;
                                const float v
                                    = in.data[static_cast<std::size_t>(((b * ci + grp * cig + ic) * h + iy) * wd + ix)];
                                acc += v
                                    * w[static_cast<std::size_t>(((oc * cig + ic) * c.kernelH + ky) * c.kernelW + kx)];
                            }
                    o.data[static_cast<std::size_t>(((b * co + oc) * oh + y) * ow + x)] = static_cast<float>(acc);
                }
    return o;
}

inline HostTensor referencePool(const HostTensor& in, const Pool2d& p, const Shape& out)
{
    HostTensor o { out.dims, std::vector<float>(static_cast<std::size_t>(out.elements())) };
    const std::int64_t n = in.dims[0], c = in.dims[1], h = in.dims[2], w = in.dims[3], oh = out[2], ow = out[3];
    const bool global = p.kind == PoolKind::GlobalAverage || p.kind == PoolKind::GlobalMax;
    const bool isMax = p.kind == PoolKind::Max || p.kind == PoolKind::GlobalMax;
    const std::int64_t kh = global ? h : p.kernelH, kw = global ? w : p.kernelW;
    const std::int64_t sh = global ? 1 : p.strideH, sw = global ? 1 : p.strideW;
    const std::int64_t pt = global ? 0 : p.padTop, pl = global ? 0 : p.padLeft;
    const std::int64_t pb = global ? 0 : p.padBottom, pr = global ? 0 : p.padRight;
    for (std::int64_t b = 0; b < n * c; ++b)
        for (std::int64_t y = 0; y < oh; ++y)
            for (std::int64_t x = 0; x < ow; ++x) {
                // PyTorch: the divisor counts padding but not the ceil-mode overhang past it.
                std::int64_t y0 = y * sh - pt, x0 = x * sw - pl;
                std::int64_t y1 = std::min(y0 + kh, h + pb), x1 = std::min(x0 + kw, w + pr);
                const std::int64_t padded = (y1 - y0) * (x1 - x0);
                y0 = std::max<std::int64_t>(y0, 0), x0 = std::max<std::int64_t>(x0, 0);
                y1 = std::min(y1, h), x1 = std::min(x1, w);
                double acc = isMax ? -INFINITY : 0.0;
                for (std::int64_t iy = y0; iy < y1; ++iy)
                    for (std::int64_t ix = x0; ix < x1; ++ix) {
                        const float v = in.data[static_cast<std::size_t>((b * h + iy) * w + ix)];
                        acc = isMax ? std::max<double>(acc, v) : acc + v;
                    }
                if (!isMax)
                    acc /= static_cast<double>(p.countIncludePad && !global ? padded : (y1 - y0) * (x1 - x0));
                o.data[static_cast<std::size_t>((b * oh + y) * ow + x)] = static_cast<float>(acc);
            }
    return o;
}

inline HostTensor referenceSoftmax(const HostTensor& in, int axis)
{
    HostTensor o = in;
    const std::int64_t outer = product({ in.dims.begin(), in.dims.begin() + axis });
    const std::int64_t len = in.dims[static_cast<std::size_t>(axis)];
    const std::int64_t inner = product(in.dims, static_cast<std::size_t>(axis) + 1);
    for (std::int64_t a = 0; a < outer; ++a)
        for (std::int64_t i = 0; i < inner; ++i) {
            auto at
                = [&](std::int64_t k) -> float& { return o.data[static_cast<std::size_t>((a * len + k) * inner + i)]; };
            float mx = -INFINITY;
            for (std::int64_t k = 0; k < len; ++k)
                mx = std::max(mx, at(k));
            double sum = 0;
            for (std::int64_t k = 0; k < len; ++k)
                sum += std::exp(static_cast<double>(at(k) - mx));
            for (std::int64_t k = 0; k < len; ++k)
                at(k) = static_cast<float>(std::exp(static_cast<double>(at(k) - mx)) / sum);
        }
    return o;
}

// NumPy broadcasting product of several tensors.
inline HostTensor referenceProduct(const std::vector<HostTensor>& ts, const Shape& out)
{
    HostTensor o { out.dims, std::vector<float>(static_cast<std::size_t>(out.elements()), 1.0F) };
    const std::size_t rank = out.dims.size();
    for (const auto& t : ts) {
        std::vector<std::int64_t> dims(rank - t.dims.size(), 1);
        dims.insert(dims.end(), t.dims.begin(), t.dims.end());
        for (std::int64_t i = 0; i < out.elements(); ++i) {
            std::int64_t rest = i, src = 0, stride = 1;
            for (std::size_t d = rank; d-- > 0;) {
                const std::int64_t coord = rest % out.dims[d];
                rest /= out.dims[d];
                src += (dims[d] == 1 ? 0 : coord) * stride;
                stride *= dims[d];
            }
            o.data[static_cast<std::size_t>(i)] *= t.data[static_cast<std::size_t>(src)];
        }
    }
    return o;
}

// Terms summed, then concatenated along channels.
inline HostTensor referenceCombine(const std::vector<std::vector<HostTensor>>& terms)
{
    std::vector<HostTensor> sums;
    for (const auto& term : terms) {
        HostTensor s = term.front();
        for (std::size_t k = 1; k < term.size(); ++k)
            for (std::size_t i = 0; i < s.data.size(); ++i)
                s.data[i] += term[k].data[i];
        sums.push_back(std::move(s));
    }
    if (sums.size() == 1)
        return sums.front();
    HostTensor o { sums.front().dims, {} };
    o.dims[1] = 0;
    for (const auto& s : sums)
        o.dims[1] += s.dims[1];
    const std::int64_t inner = product(o.dims, 2);
    for (std::int64_t b = 0; b < o.dims[0]; ++b)
        for (const auto& s : sums) {
            const auto begin = s.data.begin() + b * s.dims[1] * inner;
            o.data.insert(o.data.end(), begin, begin + s.dims[1] * inner);
        }
    return o;
}

inline std::vector<std::vector<float>> referenceRun(const Graph& g, const std::vector<std::vector<float>>& inputs)
{
    std::vector<HostTensor> values(g.tensors().size());
    for (std::size_t k = 0; k < g.inputs().size(); ++k)
        values[g.inputs()[k].value()] = { g.tensor(g.inputs()[k]).shape.dims, inputs[k] };
    auto weight = [&](TensorId id) {
        return g.tensor(id).weight->values(static_cast<std::size_t>(g.tensor(id).shape.elements()));
    };
    for (auto id : g.topologicalOrder()) {
        const Op& op = g.op(id);
        std::vector<std::vector<HostTensor>> terms;
        for (const auto& term : op.inputs) {
            auto& ts = terms.emplace_back();
            for (auto t : term)
                ts.push_back(values[t.value()]);
        }
        HostTensor cur;
        const bool isProduct = std::holds_alternative<Multiply>(op.layers.front().params);
        std::vector<HostTensor> operands; // an operand layer's terms, then its weights
        if (op.layers.front().takesOperands()) {
            for (const auto& t : terms)
                operands.push_back(t.front());
            for (auto w : op.layers.front().weights)
                operands.push_back({ g.tensor(w).shape.dims, weight(w) });
            cur = operands.front();
        } else if (isProduct) {
            std::vector<HostTensor> ts;
            for (const auto& t : terms)
                ts.push_back(t.front());
            cur = referenceProduct(ts, op.layers.front().output);
        } else {
            cur = referenceCombine(terms);
        }
        for (const auto& layer : op.layers) {
            if (const auto* c = std::get_if<Conv2d>(&layer.params)) {
                const auto bias = c->bias ? weight(layer.weights.at(1)) : std::vector<float> {};
                cur = referenceConv(cur, *c, weight(layer.weights.at(0)), c->bias ? &bias : nullptr, layer.output);
            } else if (const auto* p = std::get_if<Pool2d>(&layer.params)) {
                cur = referencePool(cur, *p, layer.output);
            } else if (const auto* e = std::get_if<Eltwise>(&layer.params)) {
                activateAll(cur, e->activation);
            } else if (const auto* gm = std::get_if<Gemm>(&layer.params)) {
                const auto w = weight(layer.weights.at(0));
                const auto bias = gm->bias ? weight(layer.weights.at(1)) : std::vector<float> {};
                const std::int64_t n = cur.dims[0], k = product(cur.dims, 1), o = gm->outFeatures;
                HostTensor r { { n, o }, std::vector<float>(static_cast<std::size_t>(n * o)) };
                for (std::int64_t b = 0; b < n; ++b)
                    for (std::int64_t j = 0; j < o; ++j) {
                        double acc = gm->bias ? bias[static_cast<std::size_t>(j)] : 0.0;
                        for (std::int64_t i = 0; i < k; ++i)
                            acc += cur.data[static_cast<std::size_t>(b * k + i)]
                                * w[static_cast<std::size_t>(j * k + i)];
                        r.data[static_cast<std::size_t>(b * o + j)] = static_cast<float>(acc);
                    }
                cur = std::move(r);
            } else if (const auto* s = std::get_if<Softmax>(&layer.params)) {
                cur = referenceSoftmax(cur, s->axis);
            } else if (const auto* bin = std::get_if<Binary>(&layer.params)) {
                auto ops = operands;
                if (bin->constantFirst)
                    std::rotate(ops.begin(), ops.end() - 1, ops.end());
                cur = referenceBinary(bin->kind, ops);
            } else if (const auto* mm = std::get_if<MatMul>(&layer.params)) {
                cur = referenceMatMul(operands.at(0), operands.at(1), layer.output.dims);
                if (mm->bias)
                    for (std::size_t i = 0; i < cur.data.size(); ++i)
                        cur.data[i] += operands.at(2).data[i % operands.at(2).data.size()];
            } else if (const auto* ln = std::get_if<LayerNorm>(&layer.params)) {
                const auto bias = ln->bias ? weight(layer.weights.at(1)) : std::vector<float> {};
                cur = referenceLayerNorm(cur, *ln, weight(layer.weights.at(0)), ln->bias ? &bias : nullptr);
            } else if (const auto* ga = std::get_if<Gather>(&layer.params)) {
                if (ga->dataIsWeight) {
                    cur = referenceGather(operands.at(1), operands.at(0), ga->axis);
                } else {
                    HostTensor idx { ga->indicesDims, {} };
                    for (auto i : ga->indices)
                        idx.data.push_back(static_cast<float>(i));
                    if (operands.size() == 2) // computed indices: the second operand
                        idx = operands.at(1);
                    cur = ga->elements ? referenceGatherElements(operands.at(0), idx, ga->axis)
                                       : referenceGather(operands.at(0), idx, ga->axis);
                }
            } else if (const auto* wh = std::get_if<Where>(&layer.params)) {
                cur = referenceWhere(operands.at(static_cast<std::size_t>(wh->operand[0])),
                    operands.at(static_cast<std::size_t>(wh->operand[1])),
                    operands.at(static_cast<std::size_t>(wh->operand[2])));
            } else if (std::holds_alternative<Expand>(layer.params)) {
                cur = referenceExpand(cur, layer.output.dims);
            } else if (const auto* cat = std::get_if<Concat>(&layer.params)) {
                std::vector<HostTensor> ordered;
                for (auto k : cat->order)
                    ordered.push_back(operands.at(static_cast<std::size_t>(k)));
                cur = referenceConcat(cat->order.empty() ? operands : ordered, cat->axis);
            } else if (const auto* sl = std::get_if<Slice>(&layer.params)) {
                cur = referenceSlice(cur, *sl);
            } else if (const auto* tr = std::get_if<Transpose>(&layer.params)) {
                cur = referenceTranspose(cur, tr->perm);
            } else if (const auto* pd = std::get_if<Pad>(&layer.params)) {
                cur = referencePad(cur, *pd);
            } else if (const auto* rd = std::get_if<Reduce>(&layer.params)) {
                cur = referenceReduce(cur, *rd, layer.output.dims);
            } else if (const auto* bn = std::get_if<BatchNorm>(&layer.params)) {
                std::vector<std::vector<float>> w;
                for (auto t : layer.weights)
                    w.push_back(weight(t));
                cur = referenceBatchNorm(cur, w, bn->epsilon);
            } else if (!std::holds_alternative<Multiply>(layer.params) && !std::holds_alternative<Flatten>(layer.params)
                && !std::holds_alternative<Reshape>(layer.params) && !std::holds_alternative<Identity>(layer.params)) {
                throw std::runtime_error(std::string("reference: no ") + layer.kindName());
            }
            cur.dims = layer.output.dims; // views change dimensions only
            activateAll(cur, layer.activation);
        }
        values[op.output.value()] = std::move(cur);
    }
    std::vector<std::vector<float>> out;
    for (auto t : g.outputs())
        out.push_back(values[t.value()].data);
    return out;
}

inline float maxAbsDiff(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b)
{
    float d = a.size() == b.size() ? 0.0F : INFINITY;
    for (std::size_t k = 0; k < std::min(a.size(), b.size()); ++k) {
        if (a[k].size() != b[k].size())
            return INFINITY;
        for (std::size_t i = 0; i < a[k].size(); ++i) {
            // Equal values (infinities too) differ by nothing; a NaN on either side is a mismatch
            // (std::max would drop it silently).
            if (a[k][i] == b[k][i])
                continue;
            const float diff = std::abs(a[k][i] - b[k][i]);
            d = std::isnan(diff) ? INFINITY : std::max(d, diff);
        }
    }
    return d;
}

} // namespace opsched::test
