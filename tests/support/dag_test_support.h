// Shared helpers for the core graph tests: random DAG generators and brute-force references that
// are simple enough to trust (DFS, exhaustive enumeration) to check the real algorithms against.
#pragma once

#include "graph/dag.h"
#include "graph/reachability.h"
#include "graph/shape.h"
#include "util/index.h"
#include "util/random.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <ostream>
#include <utility>
#include <vector>

namespace opsched {

// Readable GoogleTest failure messages ("1x64x56x56" rather than raw bytes).
inline void PrintTo(const Shape& s, std::ostream* os)
{
    *os << (s.dims.empty() ? std::string("[]") : s.toString());
}
template <typename Tag> void PrintTo(const Index<Tag>& i, std::ostream* os)
{
    *os << "#" << i.value();
}

} // namespace opsched

namespace opsched::test {

using Edges = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

// A random permutation of 0..n-1 (Fisher-Yates on SplitMix64).
inline std::vector<std::uint32_t> randomPermutation(std::size_t n, SplitMix64& rng)
{
    std::vector<std::uint32_t> p(n);
    std::iota(p.begin(), p.end(), 0U);
    for (std::size_t i = n; i > 1; --i)
        std::swap(p[i - 1], p[rng.below(i)]);
    return p;
}

// Random DAG: every pair i < j of a hidden order gets the edge with probability `density`. With
// `shuffle`, node labels are permuted so that index order is not a topological order.
inline Dag randomDag(std::size_t n, double density, std::uint64_t seed, bool shuffle = true)
{
    SplitMix64 rng(seed);
    std::vector<std::uint32_t> label(n);
    std::iota(label.begin(), label.end(), 0U);
    if (shuffle)
        label = randomPermutation(n, rng);
    Edges edges;
    for (std::uint32_t i = 0; i < n; ++i)
        for (std::uint32_t j = i + 1; j < n; ++j)
            if (rng.uniform() < density)
                edges.emplace_back(label[i], label[j]);
    return Dag::fromEdges(n, edges);
}

// Random small DAGs joined in series through single nodes (which become cut nodes), so block
// detection has something to find. Labels are shuffled.
inline Dag randomSeriesDag(int pieces, std::size_t maxPiece, double density, std::uint64_t seed)
{
    SplitMix64 rng(seed);
    Edges edges;
    std::uint32_t n = 0;
    std::uint32_t join = n++;
    for (int p = 0; p < pieces; ++p) {
        const auto size = static_cast<std::uint32_t>(1 + rng.below(maxPiece));
        const std::uint32_t first = n;
        n += size;
        std::vector<bool> hasPred(size, false), hasSucc(size, false);
        for (std::uint32_t i = 0; i < size; ++i)
            for (std::uint32_t j = i + 1; j < size; ++j)
                if (rng.uniform() < density) {
                    edges.emplace_back(first + i, first + j);
                    hasSucc[i] = hasPred[j] = true;
                }
        const std::uint32_t next = n++;
        for (std::uint32_t i = 0; i < size; ++i) {
            if (!hasPred[i])
                edges.emplace_back(join, first + i);
            if (!hasSucc[i])
                edges.emplace_back(first + i, next);
        }
        join = next;
    }
    const auto label = randomPermutation(n, rng);
    for (auto& [u, v] : edges) {
        u = label[u];
        v = label[v];
    }
    return Dag::fromEdges(n, edges);
}

inline Dag chainDag(std::size_t n)
{
    Edges edges;
    for (std::uint32_t i = 0; i + 1 < n; ++i)
        edges.emplace_back(i, i + 1);
    return Dag::fromEdges(n, edges);
}

inline bool hasEdge(const Dag& dag, std::uint32_t u, std::uint32_t v)
{
    const auto& s = dag.successors[u];
    return std::binary_search(s.begin(), s.end(), v);
}

// reach[u][v]: a path of length >= 1 leads from u to v (plain DFS from every node).
inline std::vector<std::vector<char>> bruteReach(const Dag& dag)
{
    const std::size_t n = dag.size();
    std::vector<std::vector<char>> reach(n, std::vector<char>(n, 0));
    for (std::uint32_t s = 0; s < n; ++s) {
        std::vector<std::uint32_t> stack(dag.successors[s].begin(), dag.successors[s].end());
        while (!stack.empty()) {
            const auto u = stack.back();
            stack.pop_back();
            if (reach[s][u])
                continue;
            reach[s][u] = 1;
            for (auto v : dag.successors[u])
                stack.push_back(v);
        }
    }
    return reach;
}

inline bool bruteComparable(const std::vector<std::vector<char>>& reach, std::uint32_t a, std::uint32_t b)
{
    return a == b || reach[a][b] || reach[b][a];
}

// Every consecutive pair of `path` is an edge (and, with `closed`, the last leads back to the first).
inline bool isPath(const Dag& dag, const std::vector<std::uint32_t>& path, bool closed = false)
{
    for (std::size_t i = 0; i + 1 < path.size(); ++i)
        if (!hasEdge(dag, path[i], path[i + 1]))
            return false;
    return !closed || (!path.empty() && hasEdge(dag, path.back(), path.front()));
}

} // namespace opsched::test
