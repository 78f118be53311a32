// Hill climbing over weights that sum to 1 (each kept >= 0), for the speed-weighted work bounds
// (lower_bound.cpp, throughput_bound.cpp): the functions they maximise are concave, so exchange
// steps between two weights reach the maximum closely enough for a bound (any w gives a valid one).
#pragma once

#include <cstddef>
#include <vector>

namespace opsched::map {

// For each step size in turn, moves `step` of weight from one entry to another while that raises
// value(w) by more than a relative 1e-12, until no move does. `best` is value(w) on entry; returns
// the best value reached (w holds its weights).
template <class Value>
double climbSimplex(std::vector<double>& w, const Value& value, double best, const std::vector<double>& steps)
{
    const std::size_t k = w.size();
    for (double step : steps)
        for (bool moved = true; moved;) {
            moved = false;
            for (std::size_t a = 0; a < k; ++a)
                for (std::size_t b = 0; b < k; ++b) {
                    if (a == b || w[a] < step)
                        continue;
                    w[a] -= step;
                    w[b] += step;
                    const double v = value(w);
                    if (v > best * (1 + 1e-12)) {
                        best = v;
                        moved = true;
                    } else {
                        w[a] += step;
                        w[b] -= step;
                    }
                }
        }
    return best;
}

} // namespace opsched::map
