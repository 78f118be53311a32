// Where each timeline row lies vertically: a stream's op row, with its kernel rows under it unless
// the stream is collapsed. A value type over the row kinds and the collapsed streams; rows keep
// their heights however many streams there are (the view scrolls), so 36 or 500 streams stay
// readable. Lookups are binary searches, so only the rows on screen are visited.
#pragma once

#include "engine/timeline/timeline_data.h"

#include <utility>
#include <vector>

namespace opsched {

class RowLayout {
public:
    RowLayout() = default;
    // One entry per row. A kernel row belongs to the op row above it; kernel rows before any op row
    // have no stream and are always shown. `collapsed[r]` (for op rows; missing entries: expanded)
    // hides the kernel rows of row r's stream.
    RowLayout(const std::vector<TimelineRowKind>& kinds, const std::vector<bool>& collapsed, int opRowHeight = 22,
        int kernelRowHeight = 15);

    std::size_t rowCount() const { return heights_.size(); }
    int top(std::size_t row) const { return tops_[row]; }
    int height(std::size_t row) const { return heights_[row]; } // 0: hidden
    int bottom(std::size_t row) const { return tops_[row] + heights_[row]; }
    bool shown(std::size_t row) const { return heights_[row] > 0; }
    int contentHeight() const { return tops_.empty() ? 0 : tops_.back() + heights_.back(); }

    // The shown row covering content pixel y, or -1 (above, below, or none).
    int rowAt(int y) const;
    // Rows [first, last) that intersect content pixels [y0, y1).
    std::pair<std::size_t, std::size_t> rowsIn(int y0, int y1) const;

    // The op row a row belongs to (itself for op rows); -1 for kernel rows before any op row.
    int streamRow(std::size_t row) const { return owner_[row]; }
    // Whether op row `row` has kernel rows that a collapse would hide.
    bool hasChildren(std::size_t row) const;
    bool isCollapsed(std::size_t row) const;

private:
    std::vector<int> tops_;
    std::vector<int> heights_;
    std::vector<int> owner_;
    std::vector<bool> collapsed_;
    std::vector<bool> hasChildren_;
};

} // namespace opsched
