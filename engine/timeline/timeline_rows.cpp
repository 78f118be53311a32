#include "engine/timeline/timeline_rows.h"

#include <algorithm>
#include <limits>

namespace opsched {

void TimelineRows::addSpan(std::size_t row, TimelineSpan span)
{
    if (rows_.size() <= row)
        rows_.resize(row + 1);
    rows_[row].push_back(span);
}

void TimelineRows::ensureRows(std::size_t count)
{
    if (rows_.size() < count)
        rows_.resize(count);
}

void TimelineRows::finish()
{
    firstStart_ = std::numeric_limits<double>::infinity();
    lastEnd_ = -std::numeric_limits<double>::infinity();
    maxEnd_.assign(rows_.size(), {});
    for (std::size_t r = 0; r < rows_.size(); ++r) {
        auto& spans = rows_[r];
        std::sort(spans.begin(), spans.end(), [](const TimelineSpan& a, const TimelineSpan& b) {
            return a.start < b.start || (a.start == b.start && a.end < b.end);
        });
        double m = -std::numeric_limits<double>::infinity();
        for (const auto& s : spans) {
            m = std::max(m, s.end);
            maxEnd_[r].push_back(m);
            firstStart_ = std::min(firstStart_, s.start);
            lastEnd_ = std::max(lastEnd_, s.end);
        }
    }
    if (firstStart_ > lastEnd_)
        firstStart_ = lastEnd_ = 0;
}

std::size_t TimelineRows::spanCount() const
{
    std::size_t n = 0;
    for (const auto& r : rows_)
        n += r.size();
    return n;
}

std::pair<std::size_t, std::size_t> TimelineRows::visible(std::size_t row, double t0, double t1) const
{
    const auto& spans = rows_[row];
    const auto& ends = maxEnd_[row];
    const auto first = static_cast<std::size_t>(std::lower_bound(ends.begin(), ends.end(), t0) - ends.begin());
    const auto last = static_cast<std::size_t>(
        std::upper_bound(spans.begin(), spans.end(), t1, [](double t, const TimelineSpan& s) { return t < s.start; })
        - spans.begin());
    return { first, std::max(first, last) };
}

std::vector<DrawItem> TimelineRows::layout(std::size_t row, const TimeAxis& axis, double foldPx) const
{
    std::vector<DrawItem> items;
    const auto [first, last] = visible(row, axis.start(), axis.end());
    const auto& spans = rows_[row];
    for (std::size_t i = first; i < last; ++i) {
        const double x0 = axis.toX(spans[i].start);
        const double x1 = axis.toX(spans[i].end);
        const bool tiny = x1 - x0 < foldPx;
        if (tiny && !items.empty()) {
            DrawItem& prev = items.back();
            const bool prevFoldable = prev.count > 1 || prev.x1 - prev.x0 < foldPx;
            if (prevFoldable && x0 - prev.x1 < foldPx) {
                prev.x1 = std::max(prev.x1, x1);
                ++prev.count;
                continue;
            }
        }
        items.push_back({ x0, x1, static_cast<std::uint32_t>(i), 1 });
    }
    return items;
}

const TimelineSpan* TimelineRows::spanAt(std::size_t row, const TimeAxis& axis, double x) const
{
    if (row >= rows_.size())
        return nullptr;
    const double t = axis.toTime(x);
    const double slack = axis.secondsPerPixel(); // a pixel either side, so thin spans can be hit
    const auto [first, last] = visible(row, t - slack, t + slack);
    const TimelineSpan* best = nullptr;
    for (std::size_t i = first; i < last; ++i) {
        const auto& s = rows_[row][i];
        if (s.start - slack <= t && t <= s.end + slack && (!best || s.end - s.start < best->end - best->start))
            best = &s;
    }
    return best;
}

} // namespace opsched
