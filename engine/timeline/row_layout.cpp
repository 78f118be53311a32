#include "engine/timeline/row_layout.h"

#include <algorithm>

namespace opsched {

RowLayout::RowLayout(
    const std::vector<TimelineRowKind>& kinds, const std::vector<bool>& collapsed, int opRowHeight, int kernelRowHeight)
{
    const std::size_t n = kinds.size();
    tops_.reserve(n);
    heights_.reserve(n);
    owner_.reserve(n);
    collapsed_.assign(n, false);
    hasChildren_.assign(n, false);
    int y = 0;
    int owner = -1;
    for (std::size_t r = 0; r < n; ++r) {
        const bool ops = kinds[r] == TimelineRowKind::Ops;
        if (ops) {
            owner = static_cast<int>(r);
            collapsed_[r] = r < collapsed.size() && collapsed[r];
        } else if (owner >= 0)
            hasChildren_[static_cast<std::size_t>(owner)] = true;
        const bool hidden = !ops && owner >= 0 && collapsed_[static_cast<std::size_t>(owner)];
        const int h = hidden ? 0 : std::max(1, ops ? opRowHeight : kernelRowHeight);
        tops_.push_back(y);
        heights_.push_back(h);
        owner_.push_back(owner);
        y += h;
    }
}

int RowLayout::rowAt(int y) const
{
    if (tops_.empty() || y < 0 || y >= contentHeight())
        return -1;
    // The last row starting at or above y; hidden rows have zero height and share a top with the
    // next shown row, so take the last of equal tops that is shown.
    auto it = std::upper_bound(tops_.begin(), tops_.end(), y);
    auto r = static_cast<std::size_t>(it - tops_.begin()) - 1;
    while (r > 0 && heights_[r] == 0)
        --r;
    return heights_[r] > 0 && y < bottom(r) ? static_cast<int>(r) : -1;
}

std::pair<std::size_t, std::size_t> RowLayout::rowsIn(int y0, int y1) const
{
    // First row whose bottom is below y0; first row whose top is at or below y1.
    std::size_t first = static_cast<std::size_t>(std::upper_bound(tops_.begin(), tops_.end(), y0) - tops_.begin());
    if (first > 0)
        --first;
    while (first < tops_.size() && bottom(first) <= y0)
        ++first;
    const auto last = static_cast<std::size_t>(std::lower_bound(tops_.begin(), tops_.end(), y1) - tops_.begin());
    return { first, std::max(first, last) };
}

bool RowLayout::hasChildren(std::size_t row) const
{
    return row < hasChildren_.size() && hasChildren_[row];
}

bool RowLayout::isCollapsed(std::size_t row) const
{
    return row < collapsed_.size() && collapsed_[row];
}

} // namespace opsched
