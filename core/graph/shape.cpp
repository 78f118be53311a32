#include "graph/shape.h"

namespace opsched {

const char* toString(DataType t)
{
    switch (t) {
    case DataType::Float32:
        return "float32";
    case DataType::Float16:
        return "float16";
    case DataType::Int64:
        return "int64";
    }
    return "unknown";
}

std::int64_t byteSize(DataType t)
{
    switch (t) {
    case DataType::Float32:
        return 4;
    case DataType::Float16:
        return 2;
    case DataType::Int64:
        return 8;
    }
    return 4;
}

std::int64_t Shape::elements() const
{
    std::int64_t n = 1;
    for (auto d : dims)
        n *= d;
    return n;
}

Shape Shape::withBatch(std::int64_t n) const
{
    Shape s = *this;
    if (!s.dims.empty())
        s.dims[0] = n;
    return s;
}

std::string Shape::toString() const
{
    std::string out;
    for (std::size_t i = 0; i < dims.size(); ++i) {
        if (i)
            out += 'x';
        out += std::to_string(dims[i]);
    }
    return out;
}

} // namespace opsched
