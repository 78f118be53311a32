#pragma once

#include "graph/shape.h"
#include "util/index.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace opsched {

enum class TensorRole : std::uint8_t { Input, Activation, Weight };

// Weight values: either stored (imported models) or generated on demand from a seed (built-in
// networks), so opening NasNet does not allocate hundreds of megabytes it may never use.
class WeightData {
public:
    static std::shared_ptr<const WeightData> stored(std::vector<float> values);
    // Uniform in [-scale, scale], a function of the seed alone. With a row of n > 1, each n
    // consecutive values are then shifted to sum to rowSum: a conv whose filters (rows of n =
    // fan-in values) all have one sum passes a mean its input channels share as one value, which
    // the zoo's convs drop (a sum of 0) as a BatchNorm after them would (core/zoo/signal_scale.h).
    static std::shared_ptr<const WeightData> seeded(
        std::uint64_t seed, float scale, std::size_t row = 0, float rowSum = 0.0F);

    bool isSeeded() const { return seeded_; }
    std::uint64_t seed() const { return seed_; }
    float scale() const { return scale_; }
    std::size_t row() const { return row_; }
    float rowSum() const { return rowSum_; }
    // The values for a tensor of `count` elements.
    std::vector<float> values(std::size_t count) const;

private:
    bool seeded_ = false;
    std::uint64_t seed_ = 0;
    float scale_ = 0;
    std::size_t row_ = 0;
    float rowSum_ = 0;
    std::vector<float> values_;
};

struct Tensor {
    TensorId id;
    std::string name;
    Shape shape;
    DataType dtype = DataType::Float32;
    TensorRole role = TensorRole::Activation;
    OpId producer; // invalid for graph inputs and weights
    std::shared_ptr<const WeightData> weight; // weights only

    std::int64_t bytes() const { return shape.elements() * byteSize(dtype); }
};

} // namespace opsched
