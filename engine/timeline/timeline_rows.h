// Spans on rows (streams), prepared for drawing: sorted by start, found by binary search for the
// visible range, and spans narrower than a few pixels folded into one (as tracy and hotspot do),
// so repainting costs what is visible, not what was recorded.
#pragma once

#include "engine/timeline/time_axis.h"

#include <cstdint>
#include <string>
#include <vector>

namespace opsched {

struct TimelineSpan {
    double start = 0; // seconds
    double end = 0;
    std::uint32_t id = 0; // caller's handle (an op id, a kernel index)
    std::uint32_t colour = 0; // caller's colour class (op kind, stage)
};

// What to draw for one row: real spans, and folded runs of spans too small to tell apart.
struct DrawItem {
    double x0 = 0, x1 = 0; // pixels
    std::uint32_t first = 0; // index of the first span it covers (in the row)
    std::uint32_t count = 1; // spans it covers; > 1 means folded
};

class TimelineRows {
public:
    // `row` spans may overlap only if they never do within one stream; they are sorted here.
    void addSpan(std::size_t row, TimelineSpan span);
    void finish(); // sorts rows; call after adding
    // At least `count` rows, the new ones empty: a stream (device) with nothing on it keeps its row.
    void ensureRows(std::size_t count);

    std::size_t rowCount() const { return rows_.size(); }
    const std::vector<TimelineSpan>& row(std::size_t r) const { return rows_[r]; }
    std::size_t spanCount() const;
    double firstStart() const { return firstStart_; }
    double lastEnd() const { return lastEnd_; }

    // Index range [first, last) of the spans of `row` that overlap [t0, t1].
    std::pair<std::size_t, std::size_t> visible(std::size_t row, double t0, double t1) const;

    // Draw items for one row on `axis`: spans narrower than `foldPx` that touch each other (gaps
    // under `foldPx` too) become one folded item.
    std::vector<DrawItem> layout(std::size_t row, const TimeAxis& axis, double foldPx = 3.0) const;

    // The span under pixel x of row, if any (for hover).
    const TimelineSpan* spanAt(std::size_t row, const TimeAxis& axis, double x) const;

private:
    std::vector<std::vector<TimelineSpan>> rows_;
    // Largest end among spans [0..i] of each row: lower_bound on it finds the first span that
    // may reach into the view even when an earlier, long span covers later short ones.
    std::vector<std::vector<double>> maxEnd_;
    double firstStart_ = 0, lastEnd_ = 0;
};

} // namespace opsched
