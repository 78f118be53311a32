// Small, fast, seedable generators. Results must be identical on every platform and compiler,
// so the standard library's distributions (implementation-defined) are not used.
#pragma once

#include <cstdint>
#include <string_view>

namespace opsched {

// SplitMix64: used to derive independent seeds and as a stream generator.
class SplitMix64 {
public:
    explicit SplitMix64(std::uint64_t seed)
        : state_(seed)
    {
    }

    std::uint64_t next()
    {
        std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    // Uniform in [0, 1).
    double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
    // Uniform integer in [0, bound).
    std::uint64_t below(std::uint64_t bound) { return bound ? next() % bound : 0; }

private:
    std::uint64_t state_;
};

// FNV-1a, to turn names into seeds (a weight's values depend on its name, not on build order).
inline std::uint64_t hashString(std::string_view s, std::uint64_t seed = 0xCBF29CE484222325ULL)
{
    std::uint64_t h = seed;
    for (unsigned char c : s) {
        h ^= c;
        h *= 0x100000001B3ULL;
    }
    return h;
}

} // namespace opsched
