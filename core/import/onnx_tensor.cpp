#include "import/onnx_tensor.h"

#include "import/import_error.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace opsched::onnx_import {
namespace {

float halfToFloat(std::uint16_t h)
{
    const std::uint32_t sign = (h & 0x8000U) << 16;
    const std::uint32_t exponent = (h >> 10) & 0x1FU;
    const std::uint32_t mantissa = h & 0x3FFU;
    if (exponent == 0) // zero or subnormal: mantissa * 2^-24
        return (sign ? -1.0F : 1.0F) * std::ldexp(static_cast<float>(mantissa), -24);
    if (exponent == 31)
        return std::bit_cast<float>(sign | 0x7F800000U | (mantissa << 13));
    return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

float bfloatToFloat(std::uint16_t b)
{
    return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

// Raw data is little-endian, as on every host opsched builds for.
template <typename Raw, typename Out, typename Convert>
void fromRaw(const std::string& raw, std::size_t count, std::vector<Out>& out, Convert convert)
{
    out.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
        Raw r;
        std::memcpy(&r, raw.data() + i * sizeof(Raw), sizeof(Raw));
        out[i] = convert(r);
    }
}

template <typename Field, typename Out, typename Convert>
void fromField(const Field& field, std::size_t count, std::vector<Out>& out, Convert convert)
{
    out.resize(count);
    for (std::size_t i = 0; i < count; ++i)
        out[i] = convert(field.Get(static_cast<int>(i)));
}

} // namespace

std::vector<std::int64_t> ConstTensor::toInts() const
{
    if (integer)
        return ints;
    // Saturating, as the conversion of NaN or out-of-range floats is undefined otherwise.
    constexpr float limit = 9.2e18F;
    std::vector<std::int64_t> out(floats.size());
    for (std::size_t i = 0; i < floats.size(); ++i)
        out[i] = std::isnan(floats[i]) ? 0 : static_cast<std::int64_t>(std::clamp(floats[i], -limit, limit));
    return out;
}

std::vector<float> ConstTensor::toFloats() const
{
    if (!integer)
        return floats;
    std::vector<float> out(ints.size());
    for (std::size_t i = 0; i < ints.size(); ++i)
        out[i] = static_cast<float>(ints[i]);
    return out;
}

ConstTensor ConstTensor::ofInts(std::vector<std::int64_t> dims, std::vector<std::int64_t> values)
{
    ConstTensor t;
    t.dims = std::move(dims);
    t.integer = true;
    t.ints = std::move(values);
    return t;
}

ConstTensor ConstTensor::ofFloats(std::vector<std::int64_t> dims, std::vector<float> values)
{
    ConstTensor t;
    t.dims = std::move(dims);
    t.floats = std::move(values);
    return t;
}

std::int64_t checkedElements(const std::vector<std::int64_t>& dims, std::int64_t limit, const std::string& what)
{
    std::int64_t n = 1;
    for (auto d : dims) {
        if (d < 0)
            throw ImportError(what + " has a negative dimension: " + dimsToString(dims));
        if (d != 0 && n > limit / d)
            throw ImportError(what + " is too large: " + dimsToString(dims));
        n *= d;
    }
    if (n > limit)
        throw ImportError(what + " is too large: " + dimsToString(dims));
    return n;
}

const char* dataTypeName(int onnxType)
{
    using T = onnx::TensorProto;
    switch (onnxType) {
    case T::FLOAT:
        return "float32";
    case T::UINT8:
        return "uint8";
    case T::INT8:
        return "int8";
    case T::UINT16:
        return "uint16";
    case T::INT16:
        return "int16";
    case T::INT32:
        return "int32";
    case T::INT64:
        return "int64";
    case T::STRING:
        return "string";
    case T::BOOL:
        return "bool";
    case T::FLOAT16:
        return "float16";
    case T::DOUBLE:
        return "float64";
    case T::UINT32:
        return "uint32";
    case T::UINT64:
        return "uint64";
    case T::COMPLEX64:
        return "complex64";
    case T::COMPLEX128:
        return "complex128";
    case T::BFLOAT16:
        return "bfloat16";
    default:
        return "undefined";
    }
}

std::string dimsToString(const std::vector<std::int64_t>& dims)
{
    if (dims.empty())
        return "scalar";
    std::string out;
    for (std::size_t i = 0; i < dims.size(); ++i)
        out += (i ? "x" : "") + std::to_string(dims[i]);
    return out;
}

ConstTensor decodeTensor(const onnx::TensorProto& proto, const std::string& what)
{
    using T = onnx::TensorProto;
    if (proto.data_location() == T::EXTERNAL)
        throw ImportError(what + " keeps its data in an external file, which opsched does not read");
    const int type = proto.data_type();
    const std::size_t bytes = elementBytes(type);
    if (bytes == 0)
        throw ImportError(what + " has data type " + dataTypeName(type) + ", which opsched cannot read");

    ConstTensor t;
    t.dims.assign(proto.dims().begin(), proto.dims().end());
    const auto count
        = static_cast<std::size_t>(checkedElements(t.dims, std::numeric_limits<std::int32_t>::max(), what));
    t.integer = !(type == T::FLOAT || type == T::DOUBLE || type == T::FLOAT16 || type == T::BFLOAT16);
    t.type = type;

    if (proto.has_raw_data()) {
        const std::string& raw = proto.raw_data();
        if (raw.size() != count * bytes)
            throw ImportError(what + " holds " + std::to_string(raw.size()) + " bytes of data, expected "
                + std::to_string(count * bytes) + " for shape " + dimsToString(t.dims));
        auto same = [](auto v) { return v; };
        switch (type) {
        case T::FLOAT:
            fromRaw<float>(raw, count, t.floats, same);
            break;
        case T::DOUBLE:
            fromRaw<double>(raw, count, t.floats, [](double v) { return static_cast<float>(v); });
            break;
        case T::FLOAT16:
            fromRaw<std::uint16_t>(raw, count, t.floats, halfToFloat);
            break;
        case T::BFLOAT16:
            fromRaw<std::uint16_t>(raw, count, t.floats, bfloatToFloat);
            break;
        case T::INT64:
            fromRaw<std::int64_t>(raw, count, t.ints, same);
            break;
        case T::UINT64:
            fromRaw<std::uint64_t>(raw, count, t.ints, [](std::uint64_t v) { return static_cast<std::int64_t>(v); });
            break;
        case T::INT32:
            fromRaw<std::int32_t>(raw, count, t.ints, same);
            break;
        case T::UINT32:
            fromRaw<std::uint32_t>(raw, count, t.ints, same);
            break;
        case T::INT16:
            fromRaw<std::int16_t>(raw, count, t.ints, same);
            break;
        case T::UINT16:
            fromRaw<std::uint16_t>(raw, count, t.ints, same);
            break;
        case T::INT8:
            fromRaw<std::int8_t>(raw, count, t.ints, same);
            break;
        default:
            fromRaw<std::uint8_t>(raw, count, t.ints, same);
            break; // UINT8, BOOL
        }
        return t;
    }

    // Typed fields: float_data, double_data, int64_data, uint64_data; int32_data holds every
    // narrower type (float16 and bfloat16 as their bit patterns).
    auto checkCount = [&](int available) {
        if (static_cast<std::size_t>(available) != count)
            throw ImportError(what + " holds " + std::to_string(available) + " values, expected "
                + std::to_string(count) + " for shape " + dimsToString(t.dims));
    };
    auto same = [](auto v) { return v; };
    switch (type) {
    case T::FLOAT:
        checkCount(proto.float_data_size());
        fromField(proto.float_data(), count, t.floats, same);
        break;
    case T::DOUBLE:
        checkCount(proto.double_data_size());
        fromField(proto.double_data(), count, t.floats, [](double v) { return static_cast<float>(v); });
        break;
    case T::FLOAT16:
    case T::BFLOAT16:
        checkCount(proto.int32_data_size());
        fromField(proto.int32_data(), count, t.floats, [type](std::int32_t v) {
            const auto bits = static_cast<std::uint16_t>(v);
            return type == T::FLOAT16 ? halfToFloat(bits) : bfloatToFloat(bits);
        });
        break;
    case T::INT64:
        checkCount(proto.int64_data_size());
        fromField(proto.int64_data(), count, t.ints, same);
        break;
    case T::UINT32:
    case T::UINT64:
        checkCount(proto.uint64_data_size());
        fromField(proto.uint64_data(), count, t.ints, [](std::uint64_t v) { return static_cast<std::int64_t>(v); });
        break;
    default:
        checkCount(proto.int32_data_size());
        fromField(proto.int32_data(), count, t.ints, [](std::int32_t v) { return static_cast<std::int64_t>(v); });
        break;
    }
    return t;
}

std::size_t elementBytes(int type)
{
    using T = onnx::TensorProto;
    switch (type) {
    case T::FLOAT:
    case T::INT32:
    case T::UINT32:
        return 4;
    case T::DOUBLE:
    case T::INT64:
    case T::UINT64:
        return 8;
    case T::FLOAT16:
    case T::BFLOAT16:
    case T::INT16:
    case T::UINT16:
        return 2;
    case T::INT8:
    case T::UINT8:
    case T::BOOL:
        return 1;
    default:
        return 0;
    }
}

} // namespace opsched::onnx_import
