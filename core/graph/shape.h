// Tensor shapes. Activations are NCHW (or N x features); dimension 0 is always the batch.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace opsched {

enum class DataType : std::uint8_t { Float32, Float16, Int64 };

const char* toString(DataType t);
std::int64_t byteSize(DataType t);

struct Shape {
    std::vector<std::int64_t> dims;

    Shape() = default;
    Shape(std::initializer_list<std::int64_t> d)
        : dims(d)
    {
    }
    explicit Shape(std::vector<std::int64_t> d)
        : dims(std::move(d))
    {
    }

    int rank() const { return static_cast<int>(dims.size()); }
    std::int64_t operator[](int i) const { return dims[static_cast<std::size_t>(i)]; }
    std::int64_t batch() const { return dims.empty() ? 1 : dims[0]; }
    std::int64_t channels() const { return rank() > 1 ? dims[1] : 1; }
    std::int64_t height() const { return rank() > 2 ? dims[2] : 1; }
    std::int64_t width() const { return rank() > 3 ? dims[3] : 1; }
    std::int64_t elements() const;

    Shape withBatch(std::int64_t n) const;
    // "1x64x56x56"
    std::string toString() const;

    friend bool operator==(const Shape&, const Shape&) = default;
};

// Free input dimensions given by the user (--shape): the whole shape of each named graph input;
// the name "" stands for the only input of a one-input model.
using InputShapes = std::map<std::string, std::vector<std::int64_t>>;

} // namespace opsched
