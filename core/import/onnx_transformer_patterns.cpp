#include "import/onnx_transformer_patterns.h"

#include "import/onnx_attributes.h"
#include "import/onnx_graph_rewriter.h"
#include "import/onnx_tensor.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>

namespace opsched::onnx_import {
namespace {

bool near(std::optional<double> v, double want, double tolerance = 1e-4)
{
    return v && std::abs(*v - want) <= tolerance * std::max(1.0, std::abs(want));
}

class Finder {
public:
    explicit Finder(const PatternInputs& in)
        : in_(in)
        , used_(in.nodes.size(), false)
    {
        for (const auto& t : in.graph.initializer())
            initializers_[t.name()] = &t;
        for (std::size_t k = 0; k < in.nodes.size(); ++k) {
            if (in.dropped[k])
                continue;
            const auto& node = *in.nodes[k].proto;
            for (const auto& out : node.output())
                producer_[out] = k;
            for (const auto& v : node.input())
                if (!v.empty())
                    readers_[v].push_back(k);
        }
        for (std::size_t k = 0; k < in.nodes.size(); ++k)
            used_[k] = in.taken[k] >= 0 || in.dropped[k];
    }

    std::vector<PatternMatch> run()
    {
        // Layer norms first: their Pow/ReduceMean/Sqrt tail also looks like an RMS norm.
        forEach("ReduceMean", [this](std::size_t k) { return layerNorm(k); });
        forEach("Pow", [this](std::size_t k) { return rmsNorm(k); });
        forEach("Erf", [this](std::size_t k) { return gelu(k, false); });
        forEach("Tanh", [this](std::size_t k) { return gelu(k, true); });
        forEach("MatMul", [this](std::size_t k) { return linear(k); });
        std::sort(matches_.begin(), matches_.end(), [](const auto& a, const auto& b) { return a.tail() < b.tail(); });
        return std::move(matches_);
    }

private:
    template <typename F> void forEach(const char* opType, F match)
    {
        for (std::size_t k = 0; k < in_.nodes.size(); ++k) {
            if (used_[k] || in_.nodes[k].opType() != opType)
                continue;
            if (auto m = match(k); m && accept(*m))
                matches_.push_back(std::move(*m));
        }
    }

    const onnx::NodeProto& node(std::size_t k) const { return *in_.nodes[k].proto; }
    const std::string& out(std::size_t k) const { return node(k).output(0); }
    bool isConst(const std::string& v) const { return v.empty() || in_.constants.count(v) > 0; }
    int uses(const std::string& v) const
    {
        auto it = in_.consumers.find(v);
        return it == in_.consumers.end() ? 0 : it->second;
    }
    // The one node reading v, when nothing else (no graph output either) does.
    std::optional<std::size_t> soleReader(const std::string& v, const char* opType) const
    {
        auto it = readers_.find(v);
        if (uses(v) != 1 || it == readers_.end() || it->second.size() != 1)
            return std::nullopt;
        const auto k = it->second.front();
        if (used_[k] || node(k).op_type() != opType)
            return std::nullopt;
        return k;
    }
    std::optional<std::size_t> producerOf(const std::string& v, const char* opType) const
    {
        auto it = producer_.find(v);
        if (it == producer_.end() || used_[it->second] || node(it->second).op_type() != opType)
            return std::nullopt;
        return it->second;
    }

    // A constant known before import: an initializer or a Constant node's value.
    const onnx::TensorProto* constantProto(const std::string& v) const
    {
        if (auto it = initializers_.find(v); it != initializers_.end())
            return it->second;
        auto it = producer_.find(v);
        if (it == producer_.end() || node(it->second).op_type() != "Constant")
            return nullptr;
        return Attributes(node(it->second)).getTensor("value");
    }
    std::optional<ConstTensor> constantValue(const std::string& v) const
    {
        const auto* proto = constantProto(v);
        if (!proto)
            return std::nullopt;
        try {
            return decodeTensor(*proto, v);
        } catch (const Error&) {
            return std::nullopt;
        }
    }
    std::optional<double> scalar(const std::string& v) const
    {
        const auto* proto = constantProto(v);
        if (!proto)
            return std::nullopt;
        std::int64_t n = 1;
        for (auto d : proto->dims())
            n *= d;
        if (n != 1)
            return std::nullopt;
        const auto value = constantValue(v);
        return value ? std::optional<double>(value->at(0)) : std::nullopt;
    }
    std::optional<std::vector<std::int64_t>> constantDims(const std::string& v) const
    {
        const auto* proto = constantProto(v);
        if (!proto)
            return std::nullopt;
        return std::vector<std::int64_t>(proto->dims().begin(), proto->dims().end());
    }

    // For a two-input node reading `v`: the other input (Add and Mul commute).
    std::optional<std::string> other(std::size_t k, const std::string& v) const
    {
        const auto& n = node(k);
        if (n.input_size() != 2)
            return std::nullopt;
        if (n.input(0) == v && n.input(1) != v)
            return n.input(1);
        if (n.input(1) == v && n.input(0) != v)
            return n.input(0);
        return std::nullopt;
    }

    std::vector<std::int64_t> reduceAxes(std::size_t k) const
    {
        const Attributes attrs(node(k));
        if (attrs.has("axes"))
            return attrs.getInts("axes");
        if (node(k).input_size() > 1) // opset 18: an input
            if (auto v = constantValue(node(k).input(1)))
                return v->toInts();
        return {};
    }
    bool keepsDims(std::size_t k) const { return Attributes(node(k)).getInt("keepdims", 1) != 0; }
    // Axes a normalisation can reduce over without knowing the rank: -k, ..., -1 (PyTorch's
    // exports); anything else maps node by node.
    static bool trailingAxes(std::vector<std::int64_t> axes)
    {
        std::sort(axes.begin(), axes.end());
        if (axes.empty() || axes.back() != -1)
            return false;
        for (std::size_t i = 0; i < axes.size(); ++i)
            if (axes[i] != -static_cast<std::int64_t>(axes.size() - i))
                return false;
        return true;
    }

    // The optional `* scale (+ bias)` after a normalisation: extends m from its last member.
    void affine(PatternMatch& m) const
    {
        const std::string& y = out(m.tail());
        auto mul = soleReader(y, "Mul");
        if (!mul)
            return;
        auto scale = other(*mul, y);
        if (!scale || !isConst(*scale) || !constantProto(*scale))
            return;
        m.members.push_back(*mul);
        m.scale = *scale;
        if (m.kind == PatternKind::RmsNorm)
            return;
        auto add = soleReader(out(*mul), "Add");
        if (!add)
            return;
        auto bias = other(*add, out(*mul));
        if (bias && isConst(*bias) && constantProto(*bias)) {
            m.members.push_back(*add);
            m.bias = *bias;
        }
    }

    // x - mean(x), squared, averaged, + eps, sqrt, divided into: LayerNorm over the reduced axes.
    std::optional<PatternMatch> layerNorm(std::size_t r1) const
    {
        const std::string& x = node(r1).input(0);
        if (isConst(x) || !keepsDims(r1) || !trailingAxes(reduceAxes(r1)))
            return std::nullopt;
        auto sub = soleReader(out(r1), "Sub");
        if (!sub || node(*sub).input(0) != x || node(*sub).input(1) != out(r1))
            return std::nullopt;
        const std::string& d = out(*sub);
        auto it = readers_.find(d);
        if (uses(d) != 2 || it == readers_.end() || it->second.size() != 2)
            return std::nullopt;
        std::optional<std::size_t> pow, div;
        for (auto k : it->second) {
            if (node(k).op_type() == "Pow" && node(k).input(0) == d && near(scalar(node(k).input(1)), 2.0))
                pow = k;
            else if (node(k).op_type() == "Div" && node(k).input(0) == d)
                div = k;
        }
        if (!pow || !div)
            return std::nullopt;
        auto r2 = soleReader(out(*pow), "ReduceMean");
        if (!r2 || reduceAxes(*r2) != reduceAxes(r1) || !keepsDims(*r2))
            return std::nullopt;
        auto add = soleReader(out(*r2), "Add");
        if (!add)
            return std::nullopt;
        auto epsName = other(*add, out(*r2));
        auto eps = epsName ? scalar(*epsName) : std::nullopt;
        auto sqrt = add ? soleReader(out(*add), "Sqrt") : std::nullopt;
        if (!eps || !sqrt || node(*div).input(1) != out(*sqrt) || uses(out(*sqrt)) != 1)
            return std::nullopt;
        PatternMatch m;
        m.kind = PatternKind::LayerNorm;
        m.members = { r1, *sub, *pow, *r2, *add, *sqrt, *div };
        m.input = x;
        m.axes = reduceAxes(r1);
        m.epsilon = static_cast<float>(*eps);
        affine(m);
        return m;
    }

    // x * 1/sqrt(mean(x^2) + eps) (or x / sqrt(...)): RMS norm over the reduced axes.
    std::optional<PatternMatch> rmsNorm(std::size_t pow) const
    {
        const std::string& x = node(pow).input(0);
        if (isConst(x) || !near(scalar(node(pow).input(1)), 2.0))
            return std::nullopt;
        auto r = soleReader(out(pow), "ReduceMean");
        auto add = r && keepsDims(*r) && trailingAxes(reduceAxes(*r)) ? soleReader(out(*r), "Add") : std::nullopt;
        if (!add)
            return std::nullopt;
        auto epsName = other(*add, out(*r));
        auto eps = epsName ? scalar(*epsName) : std::nullopt;
        auto sqrt = soleReader(out(*add), "Sqrt");
        if (!eps || !sqrt)
            return std::nullopt;
        PatternMatch m;
        m.kind = PatternKind::RmsNorm;
        m.members = { pow, *r, *add, *sqrt };
        m.input = x;
        m.axes = reduceAxes(*r);
        m.epsilon = static_cast<float>(*eps);
        const std::string& s = out(*sqrt);
        auto it = readers_.find(s);
        if (uses(s) != 1 || it == readers_.end())
            return std::nullopt;
        const std::size_t k = it->second.front();
        const auto& n = node(k);
        if (n.op_type() == "Div" && n.input(0) == x && n.input(1) == s) { // x / sqrt(...)
            m.members.push_back(k);
        } else {
            const bool reciprocal = (n.op_type() == "Reciprocal")
                || (n.op_type() == "Div" && n.input(1) == s && near(scalar(n.input(0)), 1.0));
            auto mul = reciprocal ? soleReader(out(k), "Mul") : std::nullopt;
            if (!mul || other(*mul, out(k)) != x)
                return std::nullopt;
            m.members.push_back(k);
            m.members.push_back(*mul);
        }
        affine(m);
        return m;
    }

    // ... -> (1 + erf(x / sqrt 2)) or (1 + tanh(...)) -> times x and 0.5 in any grouping.
    std::optional<PatternMatch> gelu(std::size_t fn, bool tanhForm) const
    {
        std::vector<std::size_t> members;
        std::string x;
        const std::string& arg = node(fn).input(0);
        if (!tanhForm) { // x / sqrt(2) or x * sqrt(1/2)
            if (auto div = producerOf(arg, "Div"); div && near(scalar(node(*div).input(1)), std::sqrt(2.0))) {
                x = node(*div).input(0);
                members.push_back(*div);
            } else if (auto mul = producerOf(arg, "Mul")) {
                for (int i = 0; i < 2 && x.empty(); ++i)
                    if (near(scalar(node(*mul).input(i)), std::sqrt(0.5)))
                        x = node(*mul).input(1 - i);
                members.push_back(*mul);
            }
            if (x.empty() || uses(arg) != 1)
                return std::nullopt;
        } else {
            // tanh(sqrt(2/pi) * (x + 0.044715 * x^3))
            auto outer = producerOf(arg, "Mul");
            if (!outer || uses(arg) != 1)
                return std::nullopt;
            std::string sum;
            for (int i = 0; i < 2; ++i)
                if (near(scalar(node(*outer).input(i)), std::sqrt(2.0 / std::numbers::pi)))
                    sum = node(*outer).input(1 - i);
            auto add = sum.empty() ? std::nullopt : producerOf(sum, "Add");
            if (!add || uses(sum) != 1)
                return std::nullopt;
            for (int i = 0; i < 2 && x.empty(); ++i) {
                const std::string& cubicTerm = node(*add).input(1 - i);
                auto cubicMul = producerOf(cubicTerm, "Mul");
                if (!cubicMul || uses(cubicTerm) != 1)
                    continue;
                for (int j = 0; j < 2; ++j) {
                    auto cube = producerOf(node(*cubicMul).input(1 - j), "Pow");
                    if (near(scalar(node(*cubicMul).input(j)), 0.044715) && cube
                        && node(*cube).input(0) == node(*add).input(i) && near(scalar(node(*cube).input(1)), 3.0)
                        && uses(out(*cube)) == 1) {
                        x = node(*add).input(i);
                        members.insert(members.end(), { *cube, *cubicMul });
                    }
                }
            }
            if (x.empty())
                return std::nullopt;
            members.insert(members.end(), { *add, *outer });
        }
        if (isConst(x))
            return std::nullopt;
        members.push_back(fn);
        auto plusOne = soleReader(out(fn), "Add");
        const auto one = plusOne ? other(*plusOne, out(fn)) : std::nullopt;
        if (!one || !near(scalar(*one), 1.0))
            return std::nullopt;
        members.push_back(*plusOne);
        auto m1 = soleReader(out(*plusOne), "Mul");
        if (!m1)
            return std::nullopt;
        const std::string o = other(*m1, out(*plusOne)).value_or("");
        members.push_back(*m1);
        if (o == x || near(scalar(o), 0.5)) { // (x * c) * 0.5 or (c * 0.5) * x
            auto m2 = soleReader(out(*m1), "Mul");
            const auto o2 = m2 ? other(*m2, out(*m1)) : std::nullopt;
            if (!o2 || !(o == x ? near(scalar(*o2), 0.5) : *o2 == x))
                return std::nullopt;
            members.push_back(*m2);
        } else { // (x * 0.5) * c
            auto half = producerOf(o, "Mul");
            const auto halfConstant = half ? other(*half, x) : std::nullopt;
            if (!half || uses(o) != 1 || !halfConstant || !near(scalar(*halfConstant), 0.5))
                return std::nullopt;
            members.push_back(*half);
        }
        PatternMatch m;
        m.kind = PatternKind::Gelu;
        m.members = std::move(members);
        std::sort(m.members.begin(), m.members.end());
        m.input = x;
        m.activation = { tanhForm ? ActivationKind::GeluTanh : ActivationKind::Gelu };
        return m;
    }

    // MatMul by a constant matrix, + a bias vector, then an activation or a GELU found before.
    std::optional<PatternMatch> linear(std::size_t mm)
    {
        const auto& n = node(mm);
        if (n.input_size() != 2 || isConst(n.input(0)) || !isConst(n.input(1)))
            return std::nullopt;
        const auto w = constantDims(n.input(1));
        if (!w || w->size() != 2)
            return std::nullopt;
        PatternMatch m;
        m.kind = PatternKind::Linear;
        m.members = { mm };
        m.input = n.input(0);
        m.weight = n.input(1);
        if (auto add = soleReader(out(mm), "Add")) {
            auto bias = other(*add, out(mm));
            const auto dims = bias && isConst(*bias) ? constantDims(*bias) : std::nullopt;
            std::int64_t count = 1;
            for (auto d : dims.value_or(std::vector<std::int64_t> { 0 }))
                count *= d;
            if (dims && dims->size() == 1 && count == (*w)[1]) {
                m.members.push_back(*add);
                m.bias = *bias;
            }
        }
        const std::string& y = out(m.tail());
        // A GELU whose input is ours and read by nothing else takes its place as the activation.
        for (auto& g : matches_) {
            if (g.kind != PatternKind::Gelu || g.input != y)
                continue;
            auto it = readers_.find(y);
            const bool inside = it != readers_.end() && uses(y) == static_cast<int>(it->second.size())
                && std::all_of(it->second.begin(), it->second.end(),
                    [&](std::size_t r) { return std::find(g.members.begin(), g.members.end(), r) != g.members.end(); });
            if (!inside)
                break;
            m.activation = g.activation;
            m.members.insert(m.members.end(), g.members.begin(), g.members.end());
            for (auto k : g.members)
                used_[k] = false; // accept() takes them again, for the Linear
            g.members.clear(); // absorbed
            matches_.erase(
                std::remove_if(matches_.begin(), matches_.end(), [](const auto& p) { return p.members.empty(); }),
                matches_.end());
            return m;
        }
        if (auto act = readers_.find(y); act != readers_.end() && uses(y) == 1 && act->second.size() == 1) {
            const auto k = act->second.front();
            bool constantArgs = true;
            for (int i = 1; i < node(k).input_size(); ++i)
                constantArgs = constantArgs && isConst(node(k).input(i));
            if (!used_[k] && isActivationOpType(node(k).op_type()) && constantArgs) {
                m.members.push_back(k);
                m.activationNode = k;
            }
        }
        if (m.members.size() == 1)
            return std::nullopt; // a plain MatMul maps as it is
        return m;
    }

    // Every member's output but the last is read only inside the match; members are free.
    bool accept(PatternMatch& m)
    {
        std::sort(m.members.begin(), m.members.end());
        if (std::adjacent_find(m.members.begin(), m.members.end()) != m.members.end())
            return false;
        for (auto k : m.members)
            if (used_[k])
                return false;
        for (std::size_t i = 0; i + 1 < m.members.size(); ++i) {
            const auto& n = node(m.members[i]);
            for (int o = 0; o < n.output_size(); ++o) {
                const std::string& v = n.output(o);
                if (v.empty())
                    continue;
                auto it = readers_.find(v);
                const int reads = it == readers_.end() ? 0 : static_cast<int>(it->second.size());
                if (uses(v) != reads)
                    return false; // a graph output
                if (it != readers_.end())
                    for (auto r : it->second)
                        if (!std::binary_search(m.members.begin(), m.members.end(), r))
                            return false;
            }
        }
        m.output = out(m.tail());
        for (auto k : m.members)
            used_[k] = true;
        return true;
    }

    const PatternInputs& in_;
    std::vector<bool> used_;
    std::unordered_map<std::string, const onnx::TensorProto*> initializers_;
    std::unordered_map<std::string, std::size_t> producer_;
    std::unordered_map<std::string, std::vector<std::size_t>> readers_;
    std::vector<PatternMatch> matches_;
};

} // namespace

std::vector<PatternMatch> findTransformerPatterns(const PatternInputs& in)
{
    return Finder(in).run();
}

} // namespace opsched::onnx_import
