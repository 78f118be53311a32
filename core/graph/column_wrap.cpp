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

// The columns `wanted` columns would give: runs of whole layers, cut after a layer g only where no
// edge jumps over the gap (jumping[g] == 0), each at least `layers / wanted` layers, the last at
// least a third of that.
std::vector<Column> cutColumns(std::size_t layers, const std::vector<int>& jumping, int wanted)
{
    const std::size_t perColumn = (layers + static_cast<std::size_t>(wanted) - 1) / static_cast<std::size_t>(wanted);
    std::vector<Column> columns { { 0, 0 } };
    for (std::size_t g = 0; g + 1 < layers; ++g)
        if (g + 1 - columns.back().first >= perColumn && jumping[g] == 0 && layers - (g + 1) >= perColumn / 3) {
            columns.back().last = g;
            columns.push_back({ g + 1, 0 });
        }
    columns.back().last = layers - 1;
    return columns;
}

// Each column's horizontal extent (its nodes and the edges inside it).
void measureColumns(const LayeredLayout& layout, std::vector<Column>& columns, std::vector<std::size_t>& columnOfLayer)
{
    columnOfLayer.assign(layout.layerCount, 0);
    for (std::size_t c = 0; c < columns.size(); ++c)
        for (std::size_t l = columns[c].first; l <= columns[c].last; ++l)
            columnOfLayer[l] = c;
    for (std::uint32_t v = 0; v < layout.nodes.size(); ++v) {
        Column& c = columns[columnOfLayer[layout.nodes[v].layer]];
        c.minX = std::min(c.minX, layout.left(v));
        c.maxX = std::max(c.maxX, layout.right(v));
    }
    for (const LayoutEdge& e : layout.edges) {
        const std::size_t from = columnOfLayer[layout.nodes[e.from].layer];
        if (from != columnOfLayer[layout.nodes[e.to].layer])
            continue;
        for (const LayoutPoint& p : e.points) {
            columns[from].minX = std::min(columns[from].minX, p.x);
            columns[from].maxX = std::max(columns[from].maxX, p.x);
        }
    }
}

// How large the drawing can be shown in a viewport `aspect` times wider than high (its height 1).
double fittedScale(const std::vector<Column>& columns, double pitch, double layerGap, double gap, double aspect)
{
    double width = -gap, height = 0;
    for (const Column& c : columns) {
        width += (c.maxX - c.minX) + gap;
        height = std::max(height, static_cast<double>(c.last - c.first + 1) * pitch - layerGap);
    }
    return std::min(aspect / std::max(width, 1.0), 1.0 / std::max(height, 1.0));
}

} // namespace

LayeredLayout wrapIntoColumns(LayeredLayout layout, const ColumnWrapOptions& options)
{
    const auto& o = layout.options;
    const double pitch = o.nodeHeight + o.layerGap;
    const std::size_t layers = layout.layerCount;
    if (layers < 8 || layout.width <= 0)
        return layout;

    // A gap after layer g can be cut when no edge jumps over it (from <= g, to >= g + 2).
    std::vector<int> jumping(layers + 1, 0);
    for (const LayoutEdge& e : layout.edges) {
        const std::size_t a = layout.nodes[e.from].layer, b = layout.nodes[e.to].layer;
        for (std::size_t g = a; g + 1 < b; ++g)
            ++jumping[g];
    }
    // The number of columns that lets the drawing be shown largest in the viewport: more columns
    // make it shorter but wider (and cuts fall only where no edge jumps, so the columns differ in
    // height and width); a column more must gain 5% of scale.
    std::vector<Column> columns { { 0, layers - 1 } };
    std::vector<std::size_t> columnOfLayer;
    measureColumns(layout, columns, columnOfLayer);
    double best = fittedScale(columns, pitch, o.layerGap, options.columnGap, options.aspect);
    for (int wanted = 2; wanted <= options.maxColumns; ++wanted) {
        std::vector<Column> candidate = cutColumns(layers, jumping, wanted);
        if (candidate.size() <= columns.size())
            continue;
        std::vector<std::size_t> candidateOfLayer;
        measureColumns(layout, candidate, candidateOfLayer);
        const double scale = fittedScale(candidate, pitch, o.layerGap, options.columnGap, options.aspect);
        if (scale > best * 1.05) {
            best = scale;
            columns = std::move(candidate);
            columnOfLayer = std::move(candidateOfLayer);
        }
    }
    if (columns.size() < 2)
        return layout;

    auto columnOf = [&](std::uint32_t v) -> Column& { return columns[columnOfLayer[layout.nodes[v].layer]]; };
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
