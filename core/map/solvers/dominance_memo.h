// Partial schedules seen by the exact search, kept per set of scheduled tasks, so that a partial
// schedule another one dominates is not extended (see exact_search.cpp for why that is sound).
// A state is a vector of values (each the earlier the better) and a potential (the sum of its
// starts); one dominates another on the same set when none of its values is later and its
// potential is strictly lower.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace opsched::map {

class DominanceMemo {
public:
    // Stores at most `maxValues` doubles in all; beyond that it still answers, from what it holds.
    explicit DominanceMemo(std::size_t maxValues)
        : maxValues_(maxValues)
    {
    }

    // Whether a stored state on `set` dominates one whose values are `query`: every stored value
    // <= its counterpart in `query` and a potential below `potential` by more than rounding.
    bool dominated(std::uint64_t set, std::span<const double> query, double potential) const;
    // Stores a state on `set` (values of the same length for every state on one set). States it
    // dominates are kept: dropping them measured slower (moving the others) and answers the same.
    void store(std::uint64_t set, std::span<const double> values, double potential);

    std::size_t states() const { return states_; }
    std::size_t values() const { return values_; }

private:
    struct Bucket {
        std::vector<double> entries; // per state: its potential, then its values
        std::uint32_t width = 0; // 1 + values per state
    };
    std::unordered_map<std::uint64_t, Bucket> buckets_;
    std::size_t maxValues_, values_ = 0, states_ = 0;
};

} // namespace opsched::map
