#include "graph/tensor.h"

#include "util/random.h"

namespace opsched {

std::shared_ptr<const WeightData> WeightData::stored(std::vector<float> values)
{
    auto w = std::make_shared<WeightData>();
    w->values_ = std::move(values);
    return w;
}

std::shared_ptr<const WeightData> WeightData::seeded(std::uint64_t seed, float scale, std::size_t row, float rowSum)
{
    auto w = std::make_shared<WeightData>();
    w->seeded_ = true;
    w->seed_ = seed;
    w->scale_ = scale;
    w->row_ = row > 1 ? row : 0;
    w->rowSum_ = rowSum;
    return w;
}

std::vector<float> WeightData::values(std::size_t count) const
{
    if (!seeded_) {
        std::vector<float> out(
            values_.begin(), values_.begin() + static_cast<std::ptrdiff_t>(std::min(count, values_.size())));
        out.resize(count, 0.0F);
        return out;
    }
    SplitMix64 rng(seed_);
    std::vector<float> out(count);
    for (auto& v : out)
        v = static_cast<float>((rng.uniform() * 2.0 - 1.0) * scale_);
    if (row_ == 0)
        return out;
    for (std::size_t first = 0; first + row_ <= count; first += row_) {
        double sum = 0.0;
        for (std::size_t i = first; i < first + row_; ++i)
            sum += out[i];
        const auto shift = static_cast<float>((rowSum_ - sum) / static_cast<double>(row_));
        for (std::size_t i = first; i < first + row_; ++i)
            out[i] += shift;
    }
    return out;
}

} // namespace opsched
