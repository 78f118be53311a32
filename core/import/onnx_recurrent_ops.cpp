// LSTM, GRU and RNN. Per direction, the input projection of every step is one MatMul (with the
// biases the equations let it take); the recurrence over the steps is then one Recurrent op
// (<node>/<direction>/recurrence), so a bidirectional layer's two directions are two chains the
// schedulers may run side by side, and Y_h is the last step's slice of its output.
//
// Where the cell state Y_c is read, a second Recurrent op (<node>/<direction>/cell_states) runs
// the same recurrence with the cell states as its output (one op has one output). With
// OPSCHED_UNROLL_RECURRENT=1 in the environment (to study the steps' ops, or to compare the two
// forms), the recurrence is unrolled instead into ops every executor has: each step's recurrent MatMul, the gates as
// slices of the two projections' sum with their function fused, the state update as products and sums, named
// <node>/<direction>/t<step>/<part> so the DAG groups them by direction and step. The sequence length is static once
// free dimensions are set.
#include "import/import_error.h"
#include "import/onnx_mapping_support.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>

namespace opsched::onnx_import {
namespace {

enum class Cell : std::uint8_t { Rnn, Gru, Lstm };

int gateCount(Cell c)
{
    return c == Cell::Rnn ? 1 : c == Cell::Gru ? 3 : 4;
}

// f, g, h: LSTM has three functions per direction, GRU two, RNN one.
int functionCount(Cell c)
{
    return c == Cell::Rnn ? 1 : c == Cell::Gru ? 2 : 3;
}

std::vector<Activation> defaultFunctions(Cell c)
{
    const Activation sigmoid { ActivationKind::Sigmoid }, tanh { ActivationKind::Tanh };
    if (c == Cell::Rnn)
        return { tanh };
    if (c == Cell::Gru)
        return { sigmoid, tanh };
    return { sigmoid, tanh, tanh };
}

// An activation function by its ONNX name (any case); alpha and beta come from the node's lists in
// order, taken by the functions that have them (ONNX Runtime reads them the same way).
Activation recurrentFunction(const std::string& name, const std::vector<float>& alphas, const std::vector<float>& betas,
    std::size_t& nextAlpha, std::size_t& nextBeta)
{
    std::string n = name;
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    const auto alpha = [&](float fallback) { return nextAlpha < alphas.size() ? alphas[nextAlpha++] : fallback; };
    const auto beta = [&](float fallback) { return nextBeta < betas.size() ? betas[nextBeta++] : fallback; };
    if (n == "sigmoid")
        return { ActivationKind::Sigmoid };
    if (n == "tanh")
        return { ActivationKind::Tanh };
    if (n == "relu")
        return Activation::relu();
    if (n == "leakyrelu")
        return { ActivationKind::LeakyRelu, alpha(0.01F) };
    if (n == "thresholdedrelu")
        return { ActivationKind::ThresholdedRelu, alpha(1.0F) };
    if (n == "hardsigmoid") {
        const float a = alpha(0.2F);
        return { ActivationKind::HardSigmoid, a, beta(0.5F) };
    }
    if (n == "elu")
        return { ActivationKind::Elu, alpha(1.0F) };
    if (n == "softsign")
        return { ActivationKind::Softsign };
    if (n == "softplus")
        return { ActivationKind::Softplus };
    throw NodeError("activation function " + name
        + " is not supported (Sigmoid, Tanh, Relu, LeakyRelu, ThresholdedRelu, HardSigmoid, Elu, Softsign and "
          "Softplus are)");
}

bool allZero(const ConstTensor& t)
{
    for (std::size_t i = 0; i < t.size(); ++i)
        if (t.at(i) != 0.0)
            return false;
    return true;
}

// The state of one direction between steps; nullopt: zero (no initial state given).
struct State {
    std::optional<TensorId> h, c;
};

class Unroller {
public:
    Unroller(ImportContext& ctx, const NodeRef& node, Cell cell)
        : ctx_(ctx)
        , node_(node)
        , cell_(cell)
        , attrs_(*node.proto)
    {
        readShapes();
        readAttributes();
        checkSequenceLengths();
    }

    void run()
    {
        const std::string& yName = outputName(0);
        const std::string& hName = outputName(1);
        const std::string& cName = cell_ == Cell::Lstm ? outputName(2) : outputName(99);
        const bool wantY = wanted(yName) || (!wanted(hName) && !wanted(cName));
        std::vector<TensorId> perDirectionY, lastH, lastC;
        const bool fused = !unrollRequested();
        for (int d = 0; d < directions_ && fused; ++d) {
            const bool reverse = reverseOnly_ || d == 1;
            dirName_ = reverse ? "reverse" : "forward";
            const State s = initialState(d);
            const TensorId xw = projection(d);
            const std::int64_t last = reverse ? 0 : steps_ - 1;
            const auto lastStep = [&](const char* part, TensorId seq) {
                prefix_ = node_.name + "/" + dirName_ + "/";
                return emit(part, OpKind::Slice, { { seq } },
                    makeLayer(Slice { { last }, { last + 1 }, { timeAxis_ }, { 1 } }));
            };
            if (wantY || wanted(hName)) {
                const TensorId y = recurrence(d, reverse, xw, s, false);
                if (wanted(hName))
                    lastH.push_back(lastStep("Y_h", y));
                if (wantY)
                    perDirectionY.push_back(directionAxisAdded(y));
            }
            // Y_c: the same recurrence again, its output the cell states (one op has one output).
            if (wanted(cName))
                lastC.push_back(lastStep("Y_c", recurrence(d, reverse, xw, s, true)));
        }
        for (int d = 0; d < directions_ && !fused; ++d) {
            const bool reverse = reverseOnly_ || d == 1;
            dirName_ = reverse ? "reverse" : "forward";
            State s = initialState(d);
            const TensorId xw = projection(d);
            std::vector<TensorId> hs(static_cast<std::size_t>(steps_));
            for (std::int64_t k = 0; k < steps_; ++k) {
                const std::int64_t t = reverse ? steps_ - 1 - k : k;
                prefix_ = node_.name + "/" + dirName_ + "/t" + std::to_string(t) + "/";
                s = step(d, t, xw, s);
                hs[static_cast<std::size_t>(t)] = *s.h;
            }
            lastH.push_back(*s.h);
            if (s.c)
                lastC.push_back(*s.c);
            if (wantY)
                perDirectionY.push_back(sequenceOutput(hs));
        }
        prefix_ = node_.name + "/";
        // Y: [T, D, B, H] (layout 0) or [B, T, D, H] (layout 1); Y_h, Y_c: [D, B, H] or [B, D, H].
        if (wantY)
            define(yName, joined(perDirectionY, timeAxis_ == 0 ? 1 : 2, "Y"));
        if (wanted(hName))
            define(hName, joined(lastH, timeAxis_ == 0 ? 0 : 1, "Y_h"));
        if (wanted(cName))
            define(cName, joined(lastC, timeAxis_ == 0 ? 0 : 1, "Y_c"));
    }

private:
    const std::string& outputName(int i) const
    {
        static const std::string none;
        return i < node_.proto->output_size() ? node_.proto->output(i) : none;
    }
    bool wanted(const std::string& name) const
    {
        return !name.empty() && (ctx_.isUsed(name) || ctx_.isGraphOutput(name));
    }
    void define(const std::string& name, TensorId t)
    {
        if (!name.empty())
            ctx_.setActivation(name, t);
    }

    void readShapes()
    {
        x_ = ctx_.activation(inputName(node_, 0), "X");
        const Shape& xs = ctx_.shapeOf(x_);
        if (xs.rank() != 3)
            throw NodeError("X must have 3 dimensions, not " + dimsToString(xs.dims));
        timeAxis_ = ctx_.opset >= 14 && attrs_.getInt("layout", 0) != 0 ? 1 : 0;
        steps_ = xs[timeAxis_];
        inputSize_ = xs[2];
        for (int i : { 1, 2 })
            if (!ctx_.isConstant(inputName(node_, i)))
                throw NodeError(std::string(i == 1 ? "W" : "R")
                    + " must be a constant (weights computed at run time are not supported)");
        w_ = ctx_.constant(inputName(node_, 1), "W");
        r_ = ctx_.constant(inputName(node_, 2), "R");
        const std::int64_t gates = gateCount(cell_);
        if (w_->rank() != 3 || w_->dims[1] % gates != 0)
            throw NodeError(
                "W must be [directions, " + std::to_string(gates) + " x hidden, input], not " + dimsToString(w_->dims));
        hidden_ = attrs_.getInt("hidden_size", w_->dims[1] / gates);
        const std::string direction = attrs_.getString("direction", "forward");
        if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
            throw NodeError("direction '" + direction + "' is not forward, reverse or bidirectional");
        directions_ = direction == "bidirectional" ? 2 : 1;
        reverseOnly_ = direction == "reverse";
        const std::vector<std::int64_t> wDims { directions_, gates * hidden_, inputSize_ };
        const std::vector<std::int64_t> rDims { directions_, gates * hidden_, hidden_ };
        if (w_->dims != wDims)
            throw NodeError("W is " + dimsToString(w_->dims) + ", expected " + dimsToString(wDims));
        if (r_->dims != rDims)
            throw NodeError("R is " + dimsToString(r_->dims) + ", expected " + dimsToString(rDims));
        if (!inputName(node_, 3).empty()) {
            b_ = ctx_.constant(inputName(node_, 3), "B");
            const std::vector<std::int64_t> bDims { directions_, 2 * gates * hidden_ };
            if (b_->dims != bDims)
                throw NodeError("B is " + dimsToString(b_->dims) + ", expected " + dimsToString(bDims));
        }
        if (cell_ == Cell::Lstm && !inputName(node_, 7).empty()) {
            p_ = ctx_.constant(inputName(node_, 7), "P");
            const std::vector<std::int64_t> pDims { directions_, 3 * hidden_ };
            if (p_->dims != pDims)
                throw NodeError("P is " + dimsToString(p_->dims) + ", expected " + dimsToString(pDims));
            if (allZero(*p_))
                p_.reset();
        }
    }

    void readAttributes()
    {
        const auto names = attrs_.getStrings("activations");
        const auto alphas = attrs_.getFloats("activation_alpha");
        const auto betas = attrs_.getFloats("activation_beta");
        const auto perDirection = static_cast<std::size_t>(functionCount(cell_));
        if (names.empty()) {
            for (int d = 0; d < directions_; ++d)
                for (const auto& f : defaultFunctions(cell_))
                    functions_.push_back(f);
        } else {
            if (names.size() != perDirection && names.size() != perDirection * static_cast<std::size_t>(directions_))
                throw NodeError("activations lists " + std::to_string(names.size()) + " functions, expected "
                    + std::to_string(perDirection * static_cast<std::size_t>(directions_)));
            std::size_t nextAlpha = 0, nextBeta = 0;
            for (const auto& n : names)
                functions_.push_back(recurrentFunction(n, alphas, betas, nextAlpha, nextBeta));
            if (names.size() == perDirection && directions_ == 2) // one list for both directions
                for (std::size_t i = 0; i < perDirection; ++i)
                    functions_.push_back(functions_[i]);
        }
        if (attrs_.has("clip")) {
            const float c = attrs_.getFloat("clip", 0.0F);
            if (!(c > 0.0F))
                throw NodeError("clip must be positive, not " + std::to_string(c));
            clip_ = Activation { ActivationKind::Clip, -c, c };
        }
        linearBeforeReset_ = cell_ == Cell::Gru && attrs_.getInt("linear_before_reset", 0) != 0;
        inputForget_ = cell_ == Cell::Lstm && attrs_.getInt("input_forget", 0) != 0;
    }

    // Variable lengths would need masking per batch row: accepted only when every length is the
    // whole sequence (what exporters write when they write the input at all).
    void checkSequenceLengths()
    {
        const std::string& name = inputName(node_, 4);
        if (name.empty())
            return;
        if (!ctx_.isConstant(name))
            throw NodeError("sequence_lens computed at run time (variable sequence lengths) is not supported; export "
                            "without it, or with every length equal to the sequence length");
        const auto lengths = ctx_.constant(name, "sequence_lens")->toInts();
        for (auto l : lengths)
            if (l != steps_)
                throw NodeError("sequence_lens holds " + std::to_string(l)
                    + ", but only lengths equal to the sequence (" + std::to_string(steps_) + ") are supported");
    }

    Activation function(int d, int k) const
    {
        return functions_.at(static_cast<std::size_t>(d * functionCount(cell_) + k));
    }

    // Rows [from, to) of direction d of a [D, rows, cols] constant, transposed to [cols, to - from].
    std::vector<float> transposedRows(const ConstTensor& m, int d, std::int64_t from, std::int64_t to) const
    {
        const std::int64_t rows = m.dims[1], cols = m.dims[2], n = to - from;
        std::vector<float> out(static_cast<std::size_t>(cols * n));
        for (std::int64_t row = from; row < to; ++row)
            for (std::int64_t k = 0; k < cols; ++k)
                out[static_cast<std::size_t>(k * n + row - from)]
                    = static_cast<float>(m.at(static_cast<std::size_t>((d * rows + row) * cols + k)));
        return out;
    }
    // Element [d, i] of B (0 without B).
    float bias(int d, std::int64_t i) const
    {
        return b_ ? static_cast<float>(b_->at(static_cast<std::size_t>(d * b_->dims[1] + i))) : 0.0F;
    }
    // A constant every step of the current direction shares, made once (named under the direction):
    // `values` is only called the first time.
    template <typename Values>
    TensorId directionWeight(const std::string& name, std::vector<std::int64_t> dims, Values values)
    {
        const std::string full = node_.name + "/" + dirName_ + "/" + name;
        if (auto it = shared_.find(full); it != shared_.end())
            return it->second;
        return shared_[full] = ctx_.newWeight(full, Shape(std::move(dims)), values());
    }
    // R's rows [from, to) of direction d, transposed, as a weight for a MatMul on the state.
    TensorId recurrentWeight(int d, std::int64_t from, std::int64_t to, const char* name)
    {
        return directionWeight(name, { hidden_, to - from }, [&] { return transposedRows(*r_, d, from, to); });
    }
    // R's bias of the hidden gate (GRU), [Rbh].
    std::vector<float> hiddenGateRecurrentBias(int d) const
    {
        std::vector<float> rb(static_cast<std::size_t>(hidden_));
        for (std::int64_t i = 0; i < hidden_; ++i)
            rb[static_cast<std::size_t>(i)] = bias(d, 5 * hidden_ + i); // B[d] = [Wz Wr Wh Rz Rr Rh]
        return rb;
    }

    TensorId emit(const std::string& part, OpKind kind, std::vector<InputTerm> terms, std::vector<Layer> layers)
    {
        OpSpec spec;
        spec.name = ctx_.derivedOpName(prefix_ + part);
        spec.kind = kind;
        spec.inputs = std::move(terms);
        spec.layers = std::move(layers);
        return ctx_.addOp(std::move(spec));
    }
    TensorId emit(const std::string& part, OpKind kind, std::vector<InputTerm> terms, Layer layer)
    {
        std::vector<Layer> layers;
        layers.push_back(std::move(layer));
        return emit(part, kind, std::move(terms), std::move(layers));
    }
    // `first`, then the gate function fn; with clip, the function's input is clipped first.
    std::vector<Layer> withFunction(Layer first, Activation fn) const
    {
        std::vector<Layer> layers;
        if (clip_) {
            first.activation = *clip_;
            layers.push_back(std::move(first));
            layers.push_back(makeLayer(Eltwise { fn }));
        } else {
            first.activation = fn;
            layers.push_back(std::move(first));
        }
        return layers;
    }
    static Layer featureSlice(std::int64_t from, std::int64_t to)
    {
        return makeLayer(Slice { { from }, { to }, { 2 }, { 1 } });
    }

    // Initial states: constants of zeros are no state; an activation is sliced per direction.
    State initialState(int d)
    {
        State s;
        prefix_ = node_.name + "/" + dirName_ + "/";
        const auto initial = [&](int index, const char* what) -> std::optional<TensorId> {
            const std::string& name = inputName(node_, index);
            if (name.empty())
                return std::nullopt;
            if (ctx_.isConstant(name)) {
                if (allZero(*ctx_.constant(name, what)))
                    return std::nullopt;
                throw NodeError(std::string(what)
                    + " is a constant other than zeros; only zeros or an input computed by the model are supported");
            }
            const TensorId t = ctx_.activation(name, what);
            const int dirAxis = timeAxis_ == 0 ? 0 : 1;
            if (ctx_.shapeOf(t)[dirAxis] != directions_)
                throw NodeError(
                    std::string(what) + " is " + dimsToString(ctx_.shapeOf(t).dims) + ", not one state per direction");
            if (directions_ == 1)
                return t;
            return emit(
                std::string(what), OpKind::Slice, { { t } }, makeLayer(Slice { { d }, { d + 1 }, { dirAxis }, { 1 } }));
        };
        s.h = initial(5, "initial_h");
        if (cell_ == Cell::Lstm)
            s.c = initial(6, "initial_c");
        return s;
    }

    // X times W's rows of direction d for every step at once, with the biases that add to it.
    TensorId projection(int d)
    {
        prefix_ = node_.name + "/" + dirName_ + "/";
        const std::int64_t gh = gateCount(cell_) * hidden_;
        std::vector<float> b(static_cast<std::size_t>(gh));
        for (std::int64_t i = 0; i < gh; ++i) {
            // GRU with linear_before_reset: R's bias of the hidden gate is inside the reset product.
            const bool recurrentInside = linearBeforeReset_ && i >= 2 * hidden_;
            b[static_cast<std::size_t>(i)] = bias(d, i) + (recurrentInside ? 0.0F : bias(d, gh + i));
        }
        const TensorId wt = directionWeight("W", { inputSize_, gh }, [&] { return transposedRows(*w_, d, 0, gh); });
        const TensorId bt = directionWeight("B", { gh }, [&] { return std::move(b); });
        return emit("input_projection", OpKind::MatMul, { { x_ } }, makeLayer(MatMul { true }, { wt, bt }));
    }

    // Step t's rows of the projection, features [from, to).
    TensorId stepSlice(TensorId xw, std::int64_t t, std::int64_t from, std::int64_t to, const char* part)
    {
        return emit(part, OpKind::Slice, { { xw } },
            makeLayer(Slice { { t, from }, { t + 1, to }, { timeAxis_, 2 }, { 1, 1 } }));
    }

    TensorId multiply(const char* part, TensorId a, TensorId b)
    {
        return emit(part, OpKind::Multiply, { { a }, { b } }, makeLayer(Multiply {}));
    }
    TensorId sum(const char* part, TensorId a, TensorId b)
    {
        return emit(part, OpKind::Add, { { a, b } }, makeLayer(Identity {}));
    }
    // 1 - a.
    TensorId oneMinus(const char* part, TensorId a)
    {
        const TensorId one = directionWeight("one", { 1 }, [] { return std::vector<float> { 1.0F }; });
        return emit(part, OpKind::Subtract, { { a } }, makeLayer(Binary { BinaryKind::Sub, true }, { one }));
    }
    // a times a constant vector of H values (a peephole), broadcast over the batch.
    TensorId scaled(const char* part, TensorId a, int d, std::int64_t offset)
    {
        const TensorId pw = directionWeight("P" + std::to_string(offset / hidden_), { hidden_ }, [&] {
            std::vector<float> v(static_cast<std::size_t>(hidden_));
            for (std::int64_t i = 0; i < hidden_; ++i)
                v[static_cast<std::size_t>(i)]
                    = static_cast<float>(p_->at(static_cast<std::size_t>(d * 3 * hidden_ + offset + i)));
            return v;
        });
        return emit(part, OpKind::Multiply, { { a } }, makeLayer(Binary { BinaryKind::Mul }, { pw }));
    }

    // Gate k: fn(slice k of the summed projections [+ extra]).
    TensorId gate(
        const char* part, const InputTerm& preSum, std::int64_t k, Activation fn, std::optional<TensorId> extra)
    {
        const std::int64_t from = k * hidden_, to = from + hidden_;
        if (!extra)
            return emit(part, OpKind::Activation, { preSum }, withFunction(featureSlice(from, to), fn));
        const TensorId pre = emit(std::string(part) + "_pre", OpKind::Slice, { preSum }, featureSlice(from, to));
        return emit(part, OpKind::Activation, { { pre, *extra } }, withFunction(makeLayer(Identity {}), fn));
    }

    State step(int d, std::int64_t t, TensorId xw, const State& s)
    {
        switch (cell_) {
        case Cell::Rnn:
            return rnnStep(d, t, xw, s);
        case Cell::Gru:
            return gruStep(d, t, xw, s);
        case Cell::Lstm:
            return lstmStep(d, t, xw, s);
        }
        return s;
    }

    State rnnStep(int d, std::int64_t t, TensorId xw, const State& s)
    {
        InputTerm preSum { stepSlice(xw, t, 0, hidden_, "x") };
        if (s.h)
            preSum.push_back(emit(
                "hr", OpKind::MatMul, { { *s.h } }, makeLayer(MatMul {}, { recurrentWeight(d, 0, hidden_, "R") })));
        return { emit("h", OpKind::Activation, { preSum }, withFunction(makeLayer(Identity {}), function(d, 0))), {} };
    }

    // ONNX's GRU, gates z, r, h in that order:
    //   z = f(x Wz + h Rz + b), r = f(x Wr + h Rr + b),
    //   n = g(x Wh + (r * h) Rh + b) or, with linear_before_reset, g(x Wh + Wbh + r * (h Rh + Rbh)),
    //   h' = (1 - z) * n + z * h = n + z * (h - n).
    State gruStep(int d, std::int64_t t, TensorId xw, const State& s)
    {
        const std::int64_t h = hidden_;
        InputTerm zr { stepSlice(xw, t, 0, 2 * h, "x_zr") };
        const TensorId xh = stepSlice(xw, t, 2 * h, 3 * h, "x_h");
        if (s.h)
            zr.push_back(emit(
                "h_zr", OpKind::MatMul, { { *s.h } }, makeLayer(MatMul {}, { recurrentWeight(d, 0, 2 * h, "R_zr") })));
        const TensorId z = gate("z", zr, 0, function(d, 0), std::nullopt);
        const TensorId r = gate("r", zr, 1, function(d, 0), std::nullopt);
        std::optional<TensorId> reset; // the recurrent part of the hidden gate's sum
        if (linearBeforeReset_) {
            const auto rbh = [&] { return hiddenGateRecurrentBias(d); };
            if (s.h) {
                const TensorId hh = emit("h_h", OpKind::MatMul, { { *s.h } },
                    makeLayer(MatMul { true },
                        { recurrentWeight(d, 2 * h, 3 * h, "R_h"), directionWeight("Rbh", { h }, rbh) }));
                reset = multiply("rh", r, hh);
            } else if (const auto rb = rbh(); std::any_of(rb.begin(), rb.end(), [](float v) { return v != 0.0F; })) {
                // A zero state leaves R's bias: r * Rbh.
                reset = emit("rh", OpKind::Multiply, { { r } },
                    makeLayer(Binary { BinaryKind::Mul }, { directionWeight("Rbh", { h }, rbh) }));
            }
        } else if (s.h) {
            const TensorId rh = multiply("r_h", r, *s.h);
            reset = emit(
                "rh", OpKind::MatMul, { { rh } }, makeLayer(MatMul {}, { recurrentWeight(d, 2 * h, 3 * h, "R_h") }));
        }
        InputTerm nSum { xh };
        if (reset)
            nSum.push_back(*reset);
        const TensorId n
            = emit("n", OpKind::Activation, { nSum }, withFunction(makeLayer(Identity {}), function(d, 1)));
        if (!s.h)
            return { multiply("h", oneMinus("1-z", z), n), {} };
        const TensorId diff = emit("h-n", OpKind::Subtract, { { *s.h }, { n } }, makeLayer(Binary { BinaryKind::Sub }));
        return { sum("h", n, multiply("z(h-n)", z, diff)), {} };
    }

    // ONNX's LSTM, gates i, o, f, c in that order (P: peepholes i, o, f):
    //   i = f(x Wi + h Ri + Pi * c + b), f = f(x Wf + h Rf + Pf * c + b) (1 - i with input_forget),
    //   c' = f * c + i * g(x Wc + h Rc + b), o = f(x Wo + h Ro + Po * c' + b), h' = o * h(c').
    State lstmStep(int d, std::int64_t t, TensorId xw, const State& s)
    {
        InputTerm pre { stepSlice(xw, t, 0, 4 * hidden_, "x") };
        if (s.h)
            pre.push_back(emit(
                "hr", OpKind::MatMul, { { *s.h } }, makeLayer(MatMul {}, { recurrentWeight(d, 0, 4 * hidden_, "R") })));
        const auto peep
            = [&](const char* part, std::optional<TensorId> c, std::int64_t offset) -> std::optional<TensorId> {
            if (!p_ || !c)
                return std::nullopt;
            return scaled(part, *c, d, offset);
        };
        const TensorId i = gate("i", pre, 0, function(d, 0), peep("Pi*c", s.c, 0));
        const TensorId candidate = gate("g", pre, 3, function(d, 1), std::nullopt);
        TensorId c = multiply("i*g", i, candidate);
        if (s.c) {
            const TensorId f
                = inputForget_ ? oneMinus("f", i) : gate("f", pre, 2, function(d, 0), peep("Pf*c", s.c, 2 * hidden_));
            c = sum("c", multiply("f*c", f, *s.c), c);
        }
        const TensorId o = gate("o", pre, 1, function(d, 0), peep("Po*c", c, hidden_));
        const TensorId hc = emit("h(c)", OpKind::Activation, { { c } }, makeLayer(Eltwise { function(d, 2) }));
        return { multiply("h", o, hc), c };
    }

    static bool unrollRequested()
    {
        const char* v = std::getenv("OPSCHED_UNROLL_RECURRENT");
        return v != nullptr && std::strcmp(v, "") != 0 && std::strcmp(v, "0") != 0;
    }

    // Direction d's whole recurrence as one op: h (or with cellStates c) of every step, [T, B, H]
    // or [B, T, H].
    TensorId recurrence(int d, bool reverse, TensorId xw, const State& s, bool cellStates)
    {
        prefix_ = node_.name + "/" + dirName_ + "/";
        Recurrent r;
        r.cell = cell_ == Cell::Rnn ? RecurrentCell::Rnn
            : cell_ == Cell::Gru    ? RecurrentCell::Gru
                                    : RecurrentCell::Lstm;
        r.hidden = hidden_;
        r.reverse = reverse;
        r.batchFirst = timeAxis_ == 1;
        r.initialH = s.h.has_value();
        r.initialC = s.c.has_value();
        r.linearBeforeReset = linearBeforeReset_;
        r.inputForget = inputForget_;
        r.peepholes = p_ != nullptr;
        r.cellStates = cellStates;
        for (int k = 0; k < functionCount(cell_); ++k)
            r.functions[static_cast<std::size_t>(k)] = function(d, k);
        r.clip = clip_ ? clip_->beta : 0.0F;
        const std::int64_t gh = gateCount(cell_) * hidden_;
        std::vector<TensorId> weights { directionWeight(
            "R", { hidden_, gh }, [&] { return transposedRows(*r_, d, 0, gh); }) };
        if (r.linearBeforeReset)
            weights.push_back(directionWeight("Rbh", { hidden_ }, [&] { return hiddenGateRecurrentBias(d); }));
        if (r.peepholes)
            weights.push_back(directionWeight("P", { 3 * hidden_ }, [&] {
                std::vector<float> v(static_cast<std::size_t>(3 * hidden_));
                for (std::int64_t i = 0; i < 3 * hidden_; ++i)
                    v[static_cast<std::size_t>(i)]
                        = static_cast<float>(p_->at(static_cast<std::size_t>(d * 3 * hidden_ + i)));
                return v;
            }));
        std::vector<InputTerm> terms { { xw } };
        if (s.h)
            terms.push_back({ *s.h });
        if (s.c)
            terms.push_back({ *s.c });
        return emit(cellStates ? "cell_states" : "recurrence", OpKind::Recurrent, std::move(terms),
            makeLayer(r, std::move(weights)));
    }

    // [T, B, H] -> [T, 1, B, H], or [B, T, H] -> [B, T, 1, H]: ONNX's Y of one direction.
    TensorId directionAxisAdded(TensorId seq)
    {
        const std::vector<std::int64_t> target = timeAxis_ == 0 ? std::vector<std::int64_t> { steps_, 1, -1, hidden_ }
                                                                : std::vector<std::int64_t> { 0, steps_, 1, hidden_ };
        return emit("Y_direction", OpKind::Reshape, { { seq } }, makeLayer(Reshape { target }));
    }

    // One direction's states in time order, with the direction axis.
    TensorId sequenceOutput(const std::vector<TensorId>& hs)
    {
        prefix_ = node_.name + "/" + dirName_ + "/";
        TensorId seq = hs.front();
        if (hs.size() > 1) {
            std::vector<InputTerm> terms;
            for (TensorId h : hs)
                terms.push_back({ h });
            seq = concat(std::move(terms), timeAxis_, "Y");
        }
        return directionAxisAdded(seq);
    }

    TensorId concat(std::vector<InputTerm> terms, int axis, const char* part)
    {
        if (axis == 1) // a concat along axis 1 is the op's input combination
            return emit(part, OpKind::Concat, std::move(terms), makeLayer(Identity {}));
        return emit(part, OpKind::Concat, std::move(terms), makeLayer(Concat { axis, {} }));
    }

    // The directions' tensors joined along the direction axis (one direction: itself).
    TensorId joined(const std::vector<TensorId>& perDirection, int axis, const char* part)
    {
        if (perDirection.size() == 1)
            return perDirection.front();
        std::vector<InputTerm> terms;
        for (TensorId t : perDirection)
            terms.push_back({ t });
        return concat(std::move(terms), axis, part);
    }

    ImportContext& ctx_;
    const NodeRef& node_;
    Cell cell_;
    Attributes attrs_;
    TensorId x_;
    int timeAxis_ = 0; // 0: [T, B, ...] (layout 0); 1: [B, T, ...] (layout 1, opset 14)
    std::int64_t steps_ = 0, inputSize_ = 0, hidden_ = 0;
    int directions_ = 1;
    bool reverseOnly_ = false;
    ConstPtr w_, r_, b_, p_;
    std::vector<Activation> functions_; // functionCount per direction
    std::optional<Activation> clip_;
    bool linearBeforeReset_ = false, inputForget_ = false;
    std::string dirName_ = "forward", prefix_;
    std::map<std::string, TensorId> shared_; // directionWeight's constants by name
};

} // namespace

void mapRecurrent(ImportContext& ctx, const NodeRef& node)
{
    const auto& op = node.opType();
    const Cell cell = op == "LSTM" ? Cell::Lstm : op == "GRU" ? Cell::Gru : Cell::Rnn;
    Unroller(ctx, node, cell).run();
}

} // namespace opsched::onnx_import
