#include "exec/cpu/memory_plan.h"

#include <algorithm>
#include <numeric>

namespace opsched::cpu {
namespace {

std::int64_t alignUp(std::int64_t n)
{
    return (n + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}

bool liveTogether(const Block& a, const Block& b)
{
    return a.first <= b.last && b.first <= a.last;
}

// Best fit in the given order: each block goes to the smallest gap left among the placed blocks
// it conflicts with, else after all of them.
Placement placeInOrder(const std::vector<std::int64_t>& bytes, const std::vector<std::size_t>& order,
    const std::function<bool(std::size_t, std::size_t)>& conflict)
{
    Placement out;
    out.offsets.assign(bytes.size(), 0);
    std::vector<std::size_t> placed;
    struct Range {
        std::int64_t begin, end;
    };
    std::vector<Range> busy;
    for (auto i : order) {
        const std::int64_t size = alignUp(std::max<std::int64_t>(bytes[i], 1));
        busy.clear();
        for (auto j : placed)
            if (conflict(i, j))
                busy.push_back({ out.offsets[j], out.offsets[j] + alignUp(std::max<std::int64_t>(bytes[j], 1)) });
        std::sort(busy.begin(), busy.end(), [](const Range& a, const Range& b) { return a.begin < b.begin; });

        std::int64_t best = -1, bestGap = 0, cursor = 0;
        for (const auto& r : busy) {
            if (r.begin > cursor) {
                const std::int64_t gap = r.begin - cursor;
                if (gap >= size && (best < 0 || gap < bestGap)) {
                    best = cursor;
                    bestGap = gap;
                }
            }
            cursor = std::max(cursor, r.end);
        }
        out.offsets[i] = best >= 0 ? best : cursor;
        out.peakBytes = std::max(out.peakBytes, out.offsets[i] + size);
        placed.push_back(i);
    }
    return out;
}

} // namespace

Placement placeBlocks(const std::vector<Block>& blocks)
{
    const std::size_t n = blocks.size();
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    // Largest first; ties by birth so the result does not depend on the sort's stability.
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        if (blocks[a].bytes != blocks[b].bytes)
            return blocks[a].bytes > blocks[b].bytes;
        if (blocks[a].first != blocks[b].first)
            return blocks[a].first < blocks[b].first;
        return a < b;
    });
    std::vector<std::int64_t> bytes(n);
    for (std::size_t i = 0; i < n; ++i)
        bytes[i] = blocks[i].bytes;
    return placeInOrder(bytes, order, [&](std::size_t i, std::size_t j) { return liveTogether(blocks[i], blocks[j]); });
}

Placement placeBlocks(
    const std::vector<std::int64_t>& bytes, const std::function<bool(std::size_t, std::size_t)>& conflict)
{
    std::vector<std::size_t> order(bytes.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return bytes[a] > bytes[b]; });
    return placeInOrder(bytes, order, conflict);
}

std::vector<std::string> placementConflicts(const std::vector<Block>& blocks, const Placement& placement)
{
    std::vector<std::string> problems;
    if (placement.offsets.size() != blocks.size())
        return { "placement has " + std::to_string(placement.offsets.size()) + " offsets for "
            + std::to_string(blocks.size()) + " blocks" };
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        const std::int64_t ai = placement.offsets[i], bi = ai + blocks[i].bytes;
        if (ai % kArenaAlignment != 0 || bi > placement.peakBytes)
            problems.push_back("block " + std::to_string(i) + " is misaligned or outside the arena");
        for (std::size_t j = i + 1; j < blocks.size(); ++j) {
            const std::int64_t aj = placement.offsets[j], bj = aj + blocks[j].bytes;
            if (liveTogether(blocks[i], blocks[j]) && ai < bj && aj < bi)
                problems.push_back(
                    "blocks " + std::to_string(i) + " and " + std::to_string(j) + " are live together and share bytes");
        }
    }
    return problems;
}

} // namespace opsched::cpu
