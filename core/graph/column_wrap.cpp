#include "graph/column_wrap.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace opsched {
namespace {

struct Column {
    std::size_t first = 0, last = 0; // layers
    double minX = std::numeric_limits<double>::max(), maxX = std::numeric_limits<double>::lowest();
    double dx = 0, dy = 0;
};

} // namespace

LayeredLayout wrapIntoColumns(LayeredLayout layout, const ColumnWrapOptions& options)
{
    const auto& o = layout.options;
    const double pitch = o.nodeHeight + o.layerGap;
    const std::size_t layers = layout.layerCount;
    if (layers < 8 || layout.width <= 0)
        return layout;
    // Columns k such that k columns of width w and height h/k are about `aspect` wide to 1 high.
    const double ideal = std::sqrt(layout.height * options.aspect / layout.width);
    const int wanted = std::clamp(static_cast<int>(std::floor(ideal)), 1, options.maxColumns);
    if (wanted < 2)
        return layout;

    // A gap after layer g can be cut when no edge jumps over it (from <= g, to >= g + 2).
    std::vector<int> jumping(layers + 1, 0);
    for (const LayoutEdge& e : layout.edges) {
        const std::size_t a = layout.nodes[e.from].layer, b = layout.nodes[e.to].layer;
        for (std::size_t g = a; g + 1 < b; ++g)
            ++jumping[g];
    }
    const std::size_t perColumn = (layers + static_cast<std::size_t>(wanted) - 1) / static_cast<std::size_t>(wanted);
    std::vector<Column> columns { { 0, 0 } };
    for (std::size_t g = 0; g + 1 < layers; ++g)
        if (g + 1 - columns.back().first >= perColumn && jumping[g] == 0 && layers - (g + 1) >= perColumn / 3) {
            columns.back().last = g;
            columns.push_back({ g + 1, 0 });
        }
    columns.back().last = layers - 1;
    if (columns.size() < 2)
        return layout;

    std::vector<std::size_t> columnOfLayer(layers);
    for (std::size_t c = 0; c < columns.size(); ++c)
        for (std::size_t l = columns[c].first; l <= columns[c].last; ++l)
            columnOfLayer[l] = c;
    auto columnOf = [&](std::uint32_t v) -> Column& { return columns[columnOfLayer[layout.nodes[v].layer]]; };
    for (std::uint32_t v = 0; v < layout.nodes.size(); ++v) {
        Column& c = columnOf(v);
        c.minX = std::min(c.minX, layout.left(v));
        c.maxX = std::max(c.maxX, layout.right(v));
    }
    for (const LayoutEdge& e : layout.edges)
        if (columnOfLayer[layout.nodes[e.from].layer] == columnOfLayer[layout.nodes[e.to].layer])
            for (const LayoutPoint& p : e.points) {
                Column& c = columnOf(e.from);
                c.minX = std::min(c.minX, p.x);
                c.maxX = std::max(c.maxX, p.x);
            }
    double x = 0, height = 0;
    for (Column& c : columns) {
        c.dx = x - c.minX;
        c.dy = -static_cast<double>(c.first) * pitch;
        x += (c.maxX - c.minX) + options.columnGap;
        height = std::max(height, static_cast<double>(c.last - c.first + 1) * pitch - o.layerGap);
    }
    for (std::uint32_t v = 0; v < layout.nodes.size(); ++v) {
        const Column& c = columnOf(v);
        layout.nodes[v].x += c.dx;
        layout.nodes[v].y += c.dy;
    }
    for (LayoutEdge& e : layout.edges) {
        const std::size_t from = columnOfLayer[layout.nodes[e.from].layer];
        const std::size_t to = columnOfLayer[layout.nodes[e.to].layer];
        if (from == to) {
            for (LayoutPoint& p : e.points) {
                p.x += columns[from].dx;
                p.y += columns[from].dy;
            }
            continue;
        }
        // Down from the source, along the bottom into the gap after its column, up the gap to
        // above the next column, and across to the target.
        const double sx = layout.nodes[e.from].x, sy = layout.bottom(e.from);
        const double tx = layout.nodes[e.to].x, ty = layout.top(e.to);
        const double gapX = columns[from].maxX + columns[from].dx + options.columnGap / 2;
        const double below = sy + o.layerGap / 3, above = ty - o.layerGap / 3;
        e.points = { { sx, sy }, { sx, below }, { gapX, below }, { gapX, above }, { tx, above }, { tx, ty } };
    }
    // (Cross-column routes reach a third of a layer gap above the first row: inside any margin.)
    layout.width = x - options.columnGap;
    layout.height = height;
    return layout;
}

} // namespace opsched
