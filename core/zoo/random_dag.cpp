// Random layered DAGs of identical conv units, for tests and for stressing the schedulers.
#include "zoo/net_builder.h"
#include "zoo/networks.h"

#include "util/error.h"
#include "util/random.h"

#include <algorithm>

namespace opsched::zoo {

Graph randomDag(std::int64_t batch, const RandomDagParams& params)
{
    if (params.ops < 1 || params.ops > 5000)
        throw ModelRefError("zoo:random: ops must be between 1 and 5000, got " + std::to_string(params.ops));
    if (params.width < 1 || params.width > 64)
        throw ModelRefError("zoo:random: width must be between 1 and 64, got " + std::to_string(params.width));

    SplitMix64 rng(params.seed);
    NetBuilder b("random", hashString("random-weights", params.seed));
    const auto input = b.input("input", Shape { batch, 32, 28, 28 });

    std::vector<TensorId> previousLevel { input };
    std::vector<TensorId> earlier; // all ops before the previous level
    int made = 0;
    for (int level = 0; made < params.ops; ++level) {
        const int count
            = std::min(params.ops - made, 1 + static_cast<int>(rng.below(static_cast<std::uint64_t>(params.width))));
        std::vector<TensorId> current;
        for (int i = 0; i < count; ++i) {
            // One input from the level just above keeps the levels honest; up to two more from
            // anywhere earlier add skip edges.
            InputTerm term { previousLevel[rng.below(previousLevel.size())] };
            if (level > 0) {
                const int extra = static_cast<int>(rng.below(3));
                for (int e = 0; e < extra; ++e) {
                    const auto& pool = (!earlier.empty() && rng.below(2)) ? earlier : previousLevel;
                    const auto t = pool[rng.below(pool.size())];
                    if (std::find(term.begin(), term.end(), t) == term.end())
                        term.push_back(t);
                }
            }
            current.push_back(b.conv("op" + std::to_string(made++), { term }, 32, 3, 1, 1));
        }
        if (level > 0)
            earlier.insert(earlier.end(), previousLevel.begin(), previousLevel.end());
        previousLevel = std::move(current);
    }
    return std::move(b).finish();
}

} // namespace opsched::zoo
