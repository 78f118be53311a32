// Element-wise ops on constants: arithmetic, comparisons, logic, Where, Clip, the variadic
// Min/Max/Sum/Mean and the unary math functions, all with numpy broadcasting. Integer tensors
// (bool ones as 0/1) stay integer where ONNX keeps the input type; float math runs in double and
// is rounded to float once.
#include "import/import_error.h"
#include "import/onnx_attributes.h"
#include "import/onnx_folding_support.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

namespace opsched::onnx_import::folding {
namespace {

// Applies f(offsets) over the broadcast of `ins` (offsets[i]: the element of ins[i]). f returns
// an integer or a double; the result is an integer tensor when `integerOut`, else float.
template <typename F> ConstPtr mapBroadcast(const std::vector<const ConstTensor*>& ins, bool integerOut, F f)
{
    Dims dims;
    for (const auto* in : ins)
        dims = broadcastDims(dims, in->dims);
    std::vector<Dims> strides;
    for (const auto* in : ins)
        strides.push_back(broadcastStrides(in->dims, dims));
    auto out = std::make_shared<ConstTensor>();
    out->integer = integerOut;
    std::vector<std::size_t> offsets(ins.size());
    forEachIndex(dims, [&](std::size_t, const Dims& c) {
        for (std::size_t i = 0; i < ins.size(); ++i)
            offsets[i] = offsetOf(c, strides[i]);
        const auto v = f(offsets);
        if constexpr (std::is_integral_v<decltype(v)>) {
            if (integerOut)
                out->ints.push_back(v);
            else
                out->floats.push_back(static_cast<float>(v));
        } else {
            if (integerOut)
                out->ints.push_back(truncToInt(v));
            else
                out->floats.push_back(static_cast<float>(v));
        }
    });
    out->dims = std::move(dims);
    return out;
}

// Wrapping integer arithmetic: absurd shape values must not be undefined behaviour.
std::int64_t wrapAdd(std::int64_t x, std::int64_t y)
{
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(x) + static_cast<std::uint64_t>(y));
}
std::int64_t wrapSub(std::int64_t x, std::int64_t y)
{
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(x) - static_cast<std::uint64_t>(y));
}
std::int64_t wrapMul(std::int64_t x, std::int64_t y)
{
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(x) * static_cast<std::uint64_t>(y));
}

void checkDivisor(std::int64_t x, std::int64_t y, const char* what)
{
    if (y == 0)
        throw NodeError(std::string("integer ") + what + " by zero");
    if (y == -1 && x == std::numeric_limits<std::int64_t>::min())
        throw NodeError(std::string("integer ") + what + " overflows");
}

// Integer Mod: with fmod the sign of the dividend (C's %), else of the divisor (Python's %).
std::int64_t intMod(std::int64_t x, std::int64_t y, bool fmod)
{
    if (y == 0)
        throw NodeError("integer modulo by zero");
    if (y == -1)
        return 0; // also avoids INT64_MIN % -1
    std::int64_t r = x % y;
    if (!fmod && r != 0 && ((r < 0) != (y < 0)))
        r += y;
    return r;
}

// Exact integer power by squaring (wrapping); negative exponents truncate 1/x^n as a cast would.
std::int64_t intPow(std::int64_t x, std::int64_t y)
{
    if (y < 0) {
        if (x == 0)
            throw NodeError("integer zero to a negative power");
        return x == 1 ? 1 : x == -1 ? (y % 2 == 0 ? 1 : -1) : 0;
    }
    std::int64_t result = 1;
    for (; y > 0; y >>= 1) {
        if (y & 1)
            result = wrapMul(result, x);
        x = wrapMul(x, x);
    }
    return result;
}

// Min and Max propagate NaN, as numpy's minimum and maximum do.
double realMin(double x, double y)
{
    return std::isnan(x) || std::isnan(y) ? std::nan("") : std::min(x, y);
}
double realMax(double x, double y)
{
    return std::isnan(x) || std::isnan(y) ? std::nan("") : std::max(x, y);
}

ConstPtr binary(const std::string& op, const ConstTensor& a, const ConstTensor& b, const onnx::NodeProto* node)
{
    const std::vector<const ConstTensor*> ins { &a, &b };
    const bool ints = a.integer && b.integer;
    if (op == "Pow") { // result has the base's type, whatever the exponent's
        if (ints)
            return mapBroadcast(ins, true, [&](const auto& o) { return intPow(a.ints[o[0]], b.ints[o[1]]); });
        return mapBroadcast(ins, a.integer, [&](const auto& o) { return std::pow(a.at(o[0]), b.at(o[1])); });
    }
    if (op == "Mod") {
        const bool fmod = node && Attributes(*node).getInt("fmod", 0) != 0;
        if (ints)
            return mapBroadcast(ins, true, [&](const auto& o) { return intMod(a.ints[o[0]], b.ints[o[1]], fmod); });
        if (!fmod)
            throw NodeError("Mod of floats needs fmod=1");
        return mapBroadcast(ins, false, [&](const auto& o) { return std::fmod(a.at(o[0]), b.at(o[1])); });
    }
    if (ints) {
        auto intOp = [&](auto fn) {
            return mapBroadcast(ins, true, [&](const auto& o) { return fn(a.ints[o[0]], b.ints[o[1]]); });
        };
        if (op == "Add" || op == "Sum" || op == "Mean")
            return intOp(wrapAdd);
        if (op == "Sub")
            return intOp(wrapSub);
        if (op == "Mul")
            return intOp(wrapMul);
        if (op == "Div") // truncates towards zero, as ONNX runtimes do
            return intOp([](std::int64_t x, std::int64_t y) {
                checkDivisor(x, y, "division");
                return x / y;
            });
        if (op == "Min")
            return intOp([](std::int64_t x, std::int64_t y) { return std::min(x, y); });
        if (op == "Max")
            return intOp([](std::int64_t x, std::int64_t y) { return std::max(x, y); });
    }
    auto realOp
        = [&](auto fn) { return mapBroadcast(ins, false, [&](const auto& o) { return fn(a.at(o[0]), b.at(o[1])); }); };
    if (op == "Add" || op == "Sum" || op == "Mean")
        return realOp([](double x, double y) { return x + y; });
    if (op == "Sub")
        return realOp([](double x, double y) { return x - y; });
    if (op == "Mul")
        return realOp([](double x, double y) { return x * y; });
    if (op == "Div")
        return realOp([](double x, double y) { return x / y; });
    if (op == "Min")
        return realOp(realMin);
    if (op == "Max")
        return realOp(realMax);
    throw NodeError("is not a binary operator");
}

// Min, Max, Sum and Mean take one or more inputs; they combine left to right (each step rounded
// to float, as a runtime's float kernels do) and Mean divides by the count at the end.
ConstPtr variadic(const std::string& op, const std::vector<ConstPtr>& inputs)
{
    std::vector<const ConstTensor*> ins;
    for (const auto& in : inputs)
        if (in)
            ins.push_back(in.get());
    if (ins.empty())
        throw NodeError("needs at least one input");
    ConstPtr acc = withDims(*ins[0], ins[0]->dims);
    for (std::size_t i = 1; i < ins.size(); ++i)
        acc = binary(op, *acc, *ins[i], nullptr);
    if (op != "Mean")
        return acc;
    auto out = std::make_shared<ConstTensor>(*acc);
    const auto n = static_cast<std::int64_t>(ins.size());
    for (auto& v : out->ints)
        v /= n;
    for (auto& v : out->floats)
        v = static_cast<float>(static_cast<double>(v) / static_cast<double>(n));
    return out;
}

ConstPtr compare(const std::string& op, const ConstTensor& a, const ConstTensor& b)
{
    auto test = [&op](auto x, auto y) -> std::int64_t {
        if (op == "Equal")
            return x == y;
        if (op == "Less")
            return x < y;
        if (op == "Greater")
            return x > y;
        if (op == "LessOrEqual")
            return x <= y;
        return x >= y; // GreaterOrEqual
    };
    // Integers compare exactly (int64 bounds such as INT64_MAX do not survive a double).
    if (a.integer && b.integer)
        return mapBroadcast({ &a, &b }, true, [&](const auto& o) { return test(a.ints[o[0]], b.ints[o[1]]); });
    return mapBroadcast({ &a, &b }, true, [&](const auto& o) { return test(a.at(o[0]), b.at(o[1])); });
}

ConstPtr logical(const std::string& op, const ConstTensor& a, const ConstTensor& b)
{
    return mapBroadcast({ &a, &b }, true, [&](const auto& o) -> std::int64_t {
        const bool x = a.at(o[0]) != 0.0, y = b.at(o[1]) != 0.0;
        return op == "And" ? (x && y) : op == "Or" ? (x || y) : (x != y);
    });
}

ConstPtr where(const ConstTensor& cond, const ConstTensor& x, const ConstTensor& y)
{
    if (x.integer && y.integer)
        return mapBroadcast(
            { &cond, &x, &y }, true, [&](const auto& o) { return cond.at(o[0]) != 0.0 ? x.ints[o[1]] : y.ints[o[2]]; });
    return mapBroadcast(
        { &cond, &x, &y }, false, [&](const auto& o) { return cond.at(o[0]) != 0.0 ? x.at(o[1]) : y.at(o[2]); });
}

// Clip bounds: attributes before opset 11, optional scalar inputs since. min is applied before
// max, so a min above max gives max everywhere (as ONNX specifies).
ConstPtr clip(const onnx::NodeProto& node, const std::vector<ConstPtr>& inputs, int opset)
{
    const auto& x = input(inputs, 0, "data");
    const auto* lo = optionalInput(inputs, 1);
    const auto* hi = optionalInput(inputs, 2);
    if (x.integer && opset >= 11) {
        const std::int64_t low = lo ? scalarInt(*lo, "Clip min") : std::numeric_limits<std::int64_t>::min();
        const std::int64_t high = hi ? scalarInt(*hi, "Clip max") : std::numeric_limits<std::int64_t>::max();
        return mapBroadcast({ &x }, true, [&](const auto& o) { return std::min(std::max(x.ints[o[0]], low), high); });
    }
    double low = -std::numeric_limits<double>::infinity(), high = std::numeric_limits<double>::infinity();
    if (opset < 11) {
        const Attributes attrs(node);
        low = attrs.getFloat("min", std::numeric_limits<float>::lowest());
        high = attrs.getFloat("max", std::numeric_limits<float>::max());
    } else {
        low = lo ? scalarReal(*lo, "Clip min") : low;
        high = hi ? scalarReal(*hi, "Clip max") : high;
    }
    // std::max/min keep a NaN element (it compares false).
    return mapBroadcast({ &x }, x.integer, [&](const auto& o) { return std::min(std::max(x.at(o[0]), low), high); });
}

struct Unary {
    bool keepsIntegers; // integer in, integer out; else the result is float
    std::int64_t (*onInt)(std::int64_t); // for keepsIntegers
    double (*onReal)(double);
};

double sign(double x)
{
    return x > 0 ? 1.0 : x < 0 ? -1.0 : x;
} // keeps 0 and NaN
std::int64_t identity(std::int64_t x)
{
    return x;
}

const std::unordered_map<std::string, Unary>& unaryOps()
{
    static const std::unordered_map<std::string, Unary> ops {
        { "Abs",
            { true, [](std::int64_t x) { return x < 0 ? wrapSub(0, x) : x; }, [](double x) { return std::fabs(x); } } },
        { "Neg", { true, [](std::int64_t x) { return wrapSub(0, x); }, [](double x) { return -x; } } },
        { "Sign", { true, [](std::int64_t x) -> std::int64_t { return (x > 0) - (x < 0); }, sign } },
        { "Relu",
            { true, [](std::int64_t x) { return std::max<std::int64_t>(x, 0); },
                [](double x) { return x < 0 ? 0.0 : x; } } },
        { "Floor", { true, identity, [](double x) { return std::floor(x); } } },
        { "Ceil", { true, identity, [](double x) { return std::ceil(x); } } },
        { "Round", { true, identity, [](double x) { return std::nearbyint(x); } } }, // halves to even
        { "Sqrt", { false, nullptr, [](double x) { return std::sqrt(x); } } },
        { "Exp", { false, nullptr, [](double x) { return std::exp(x); } } },
        { "Log", { false, nullptr, [](double x) { return std::log(x); } } },
        { "Erf", { false, nullptr, [](double x) { return std::erf(x); } } },
        { "Tanh", { false, nullptr, [](double x) { return std::tanh(x); } } },
        { "Sigmoid", { false, nullptr, [](double x) { return 1.0 / (1.0 + std::exp(-x)); } } },
        { "Reciprocal", { false, nullptr, [](double x) { return 1.0 / x; } } },
        { "Sin", { false, nullptr, [](double x) { return std::sin(x); } } },
        { "Cos", { false, nullptr, [](double x) { return std::cos(x); } } },
    };
    return ops;
}

ConstPtr unary(const Unary& u, const ConstTensor& x)
{
    // Float results are rounded from the double of the float input.
    if (x.integer && u.keepsIntegers)
        return mapBroadcast({ &x }, true, [&](const auto& o) { return u.onInt(x.ints[o[0]]); });
    return mapBroadcast({ &x }, false, [&](const auto& o) { return u.onReal(x.at(o[0])); });
}

} // namespace

void addElementwiseFolders(FolderTable& t)
{
    for (const char* op : { "Add", "Sub", "Mul", "Div", "Pow", "Mod" })
        t[op] = [](const auto& node, const auto& in, int) {
            return one(binary(node.op_type(), input(in, 0, "first"), input(in, 1, "second"), &node));
        };
    for (const char* op : { "Min", "Max", "Sum", "Mean" })
        t[op] = [](const auto& node, const auto& in, int) { return one(variadic(node.op_type(), in)); };
    for (const char* op : { "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual" })
        t[op] = [](const auto& node, const auto& in, int) {
            return one(compare(node.op_type(), input(in, 0, "first"), input(in, 1, "second")));
        };
    for (const char* op : { "And", "Or", "Xor" })
        t[op] = [](const auto& node, const auto& in, int) {
            return one(logical(node.op_type(), input(in, 0, "first"), input(in, 1, "second")));
        };
    t["Not"] = [](const auto&, const auto& in, int) {
        const auto& x = input(in, 0, "data");
        return one(mapBroadcast({ &x }, true, [&](const auto& o) -> std::int64_t { return x.at(o[0]) == 0.0; }));
    };
    t["Where"] = [](const auto&, const auto& in, int) {
        return one(where(input(in, 0, "condition"), input(in, 1, "X"), input(in, 2, "Y")));
    };
    t["Clip"] = [](const auto& node, const auto& in, int opset) { return one(clip(node, in, opset)); };
    for (const auto& [name, u] : unaryOps())
        t[name] = [&op = u](const auto&, const auto& in, int) { return one(unary(op, input(in, 0, "data"))); };
}

} // namespace opsched::onnx_import::folding
