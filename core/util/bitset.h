// A fixed-size bitset whose size is chosen at run time (graphs have more than 64 ops).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace opsched {

class DynamicBitset {
public:
    DynamicBitset() = default;
    explicit DynamicBitset(std::size_t bits)
        : bits_(bits)
        , words_((bits + 63) / 64, 0)
    {
    }

    std::size_t size() const { return bits_; }

    void set(std::size_t i) { words_[i / 64] |= (std::uint64_t { 1 } << (i % 64)); }
    void reset(std::size_t i) { words_[i / 64] &= ~(std::uint64_t { 1 } << (i % 64)); }
    bool test(std::size_t i) const { return (words_[i / 64] >> (i % 64)) & 1U; }

    std::size_t count() const
    {
        std::size_t n = 0;
        for (auto w : words_)
            n += static_cast<std::size_t>(std::popcount(w));
        return n;
    }
    bool none() const
    {
        for (auto w : words_)
            if (w)
                return false;
        return true;
    }
    bool any() const { return !none(); }

    DynamicBitset& operator|=(const DynamicBitset& o)
    {
        for (std::size_t i = 0; i < words_.size(); ++i)
            words_[i] |= o.words_[i];
        return *this;
    }
    DynamicBitset& operator&=(const DynamicBitset& o)
    {
        for (std::size_t i = 0; i < words_.size(); ++i)
            words_[i] &= o.words_[i];
        return *this;
    }
    // Removes the bits of o (set difference).
    DynamicBitset& subtract(const DynamicBitset& o)
    {
        for (std::size_t i = 0; i < words_.size(); ++i)
            words_[i] &= ~o.words_[i];
        return *this;
    }
    bool intersects(const DynamicBitset& o) const
    {
        for (std::size_t i = 0; i < words_.size(); ++i)
            if (words_[i] & o.words_[i])
                return true;
        return false;
    }
    bool isSubsetOf(const DynamicBitset& o) const
    {
        for (std::size_t i = 0; i < words_.size(); ++i)
            if (words_[i] & ~o.words_[i])
                return false;
        return true;
    }

    // Calls f(index) for every set bit, in increasing order.
    template <typename F> void forEach(F&& f) const
    {
        for (std::size_t w = 0; w < words_.size(); ++w) {
            std::uint64_t word = words_[w];
            while (word) {
                const int bit = std::countr_zero(word);
                f(w * 64 + static_cast<std::size_t>(bit));
                word &= word - 1;
            }
        }
    }

    const std::vector<std::uint64_t>& words() const { return words_; }

    friend bool operator==(const DynamicBitset&, const DynamicBitset&) = default;

private:
    std::size_t bits_ = 0;
    std::vector<std::uint64_t> words_;
};

} // namespace opsched
