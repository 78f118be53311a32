// The DAG view's hierarchy: opening and closing name scopes, folding repeats, the breadcrumb, and
// how a group box is labelled, coloured and described.
#include "dag/dag_view.h"

#include "common/group_colour.h"
#include "common/name_fit.h"
#include "timeline/timeline_view.h" // spanColour

#include <QPainter>
#include <QRegularExpression>

#include <algorithm>
#include <map>

namespace opsched {
namespace {

constexpr double kCrumbLeft = 6;
constexpr double kCrumbTop = 4;
const QString kCrumbSeparator = QStringLiteral("  \u203a  ");

// "l3.attn" for scope l3 > attn: the path without a leading separator, what tells it apart.
QString displayPath(const NameScope& scope)
{
    QString path = QString::fromStdString(scope.path);
    while (path.startsWith(QLatin1Char('/')))
        path.remove(0, 1);
    return path.isEmpty() ? QString::fromStdString(scope.name) : path;
}

QString countOf(std::size_t n, const char* one, const char* many)
{
    return QStringLiteral("%1 %2").arg(n).arg(QLatin1String(n == 1 ? one : many));
}

} // namespace

bool DagView::isExpanded(int scope) const
{
    return scope == 0
        || (scope > 0 && static_cast<std::size_t>(scope) < expanded_.size()
            && expanded_[static_cast<std::size_t>(scope)]);
}

void DagView::expandScope(int scope)
{
    if (!graph_ || scope <= 0 || static_cast<std::size_t>(scope) >= scopes_->size())
        return;
    for (int s : scopes_->pathTo(scope))
        expanded_[static_cast<std::size_t>(s)] = true;
    focus_ = scope;
    zoomOnto_ = scope;
    centreOn_ = OpId();
    relayout();
    emit scopesChanged();
}

void DagView::collapseScope(int scope)
{
    if (!graph_ || scope <= 0 || static_cast<std::size_t>(scope) >= scopes_->size())
        return;
    for (std::size_t s = 1; s < scopes_->size(); ++s)
        if (scopes_->contains(scope, static_cast<int>(s)))
            expanded_[s] = false;
    focus_ = scopes_->scopes[static_cast<std::size_t>(scope)].parent;
    centreOn_ = OpId();
    zoomOnto_ = focus_ > 0 ? focus_ : -1;
    if (focus_ <= 0)
        autoFit_ = true;
    relayout();
    emit scopesChanged();
}

void DagView::expandAll()
{
    if (!graph_)
        return;
    expanded_ = allExpanded(*scopes_);
    focus_ = 0;
    zoomOnto_ = -1;
    autoFit_ = true;
    relayout();
    emit scopesChanged();
}

void DagView::setFoldRepeats(bool fold)
{
    if (fold == foldRepeats_)
        return;
    foldRepeats_ = fold;
    if (!graph_)
        return;
    relayout();
    emit scopesChanged();
}

void DagView::openScopesOf(OpId op)
{
    const int inner = scopes_->scopeOf[op.value()];
    for (int s : scopes_->pathTo(inner))
        expanded_[static_cast<std::size_t>(s)] = true;
    focus_ = inner;
}

std::uint32_t DagView::nodeOfOp(OpId op) const
{
    if (!view_ || !op.valid() || op.value() >= view_->nodeOf.size())
        return op.value();
    return view_->nodeOf[op.value()];
}

bool DagView::isGroup(std::uint32_t node) const
{
    return view_ && node < view_->nodes.size() && view_->nodes[node].kind != ScopeNode::Kind::Op;
}

void DagView::afterLayout()
{
    if (!layout_ || !view_)
        return;
    if (centreOn_.valid()) {
        // An op picked elsewhere, now in a box of its own: centred at a scale its label reads at.
        const std::uint32_t v = nodeOfOp(centreOn_);
        centreOn_ = OpId();
        zoomOnto_ = -1;
        if (v < layout_->nodes.size()) {
            const double s
                = std::max(fitTransform(size()).scale, std::min(1.0, 0.8 * width() / layout_->options.nodeWidth));
            const QPointF centre(layout_->nodes[v].x, layout_->nodes[v].y);
            scale_ = s;
            offset_ = QPointF(width() / 2.0, height() / 2.0) - centre * s;
            autoFit_ = false;
        }
        return;
    }
    if (zoomOnto_ < 0)
        return;
    // The scope just opened: its boxes fill the view (never larger than natural size).
    const int scope = zoomOnto_;
    zoomOnto_ = -1;
    QRectF area;
    for (std::uint32_t v = 0; v < view_->nodes.size(); ++v) {
        const ScopeNode& node = view_->nodes[v];
        if (!scopes_->contains(scope, scopes_->scopeOf[node.ops.front()]))
            continue;
        area |= QRectF(QPointF(layout_->left(v), layout_->top(v)), QPointF(layout_->right(v), layout_->bottom(v)));
    }
    if (area.isEmpty())
        return;
    area.adjust(-20, -20, 20, 20);
    const double crumbs = breadcrumbHeight();
    const double legend = legendRect(size()).height() + 6;
    const double w = std::max(1.0, width() - 2.0 * 16);
    const double h = std::max(1.0, height() - 2.0 * 16 - crumbs - legend);
    const double s = std::min({ w / area.width(), h / area.height(), 1.0 });
    scale_ = s;
    offset_ = QPointF(width() / 2.0, crumbs + (height() - crumbs - legend) / 2.0) - area.center() * s;
    autoFit_ = false;
}

double DagView::breadcrumbHeight() const
{
    return scopes_->size() > 1 ? QFontMetrics(font()).height() + 2 * kCrumbTop : 0;
}

std::vector<QRectF> DagView::breadcrumbRects() const
{
    std::vector<QRectF> rects;
    if (scopes_->size() <= 1)
        return rects;
    const QFontMetrics fm(font());
    double x = kCrumbLeft;
    const auto add = [&](const QString& text) {
        const double w = fm.horizontalAdvance(text);
        rects.emplace_back(x, kCrumbTop, w, fm.height());
        x += w + fm.horizontalAdvance(kCrumbSeparator);
    };
    add(tr("graph"));
    for (int s : scopes_->pathTo(focus_))
        add(QString::fromStdString(scopes_->scopes[static_cast<std::size_t>(s)].name));
    return rects;
}

void DagView::drawBreadcrumb(QPainter& p) const
{
    const std::vector<QRectF> rects = breadcrumbRects();
    if (rects.empty())
        return;
    const QFontMetrics fm(p.font());
    const std::vector<int> path = scopes_->pathTo(focus_);
    QColor back = palette().base().color();
    back.setAlpha(225);
    const QString hint
        = tr("click a group to open it · Backspace or right click closes · R %1 repeats · C critical path")
              .arg(foldRepeats_ ? tr("unfolds") : tr("folds"));
    const double end = rects.back().right() + 24 + fm.horizontalAdvance(hint);
    p.fillRect(QRectF(0, 0, std::max(end, static_cast<double>(width())), breadcrumbHeight()), back);
    for (std::size_t i = 0; i < rects.size(); ++i) {
        const QString text = i == 0
            ? tr("graph")
            : QString::fromStdString(scopes_->scopes[static_cast<std::size_t>(path[i - 1])].name);
        const bool last = i + 1 == rects.size();
        // Every part but the last is a link up.
        p.setPen(last ? palette().text().color() : palette().link().color());
        p.drawText(QPointF(rects[i].left(), rects[i].top() + fm.ascent()), text);
        if (!last) {
            p.setPen(palette().placeholderText().color());
            p.drawText(QPointF(rects[i].right(), rects[i].top() + fm.ascent()), kCrumbSeparator);
        }
    }
    p.setPen(palette().placeholderText().color());
    p.drawText(QPointF(rects.back().right() + 24, kCrumbTop + fm.ascent()), hint);
}

void DagView::drawFocusTint(QPainter& p, const QSize& size, const ViewTransform& t) const
{
    if (focus_ <= 0 || !view_ || !layout_)
        return;
    QColor tint = palette().highlight().color();
    tint.setAlpha(38);
    const double pad = 10 * t.scale;
    p.setPen(Qt::NoPen);
    p.setBrush(tint);
    p.setRenderHint(QPainter::Antialiasing, true);
    const QRectF visible(QPointF(0, 0), QSizeF(size));
    for (std::uint32_t v = 0; v < view_->nodes.size(); ++v) {
        if (!scopes_->contains(focus_, scopes_->scopeOf[view_->nodes[v].ops.front()]))
            continue;
        const QRectF box(QPointF(layout_->left(v), layout_->top(v)) * t.scale + t.offset,
            QPointF(layout_->right(v), layout_->bottom(v)) * t.scale + t.offset);
        if (box.intersects(visible))
            p.drawRoundedRect(box.adjusted(-pad, -pad, pad, pad), pad, pad);
    }
}

void DagView::setCriticalPath(std::vector<OpId> path)
{
    criticalPath_.clear();
    critical_.assign(graph_ ? graph_->opCount() : 0, 0);
    for (OpId op : path)
        if (op.valid() && op.value() < critical_.size()) {
            critical_[op.value()] = 1;
            criticalPath_.push_back(op);
        }
    update();
}

void DagView::setShowCriticalPath(bool show)
{
    if (show == showCritical_)
        return;
    showCritical_ = show;
    update();
    emit scopesChanged();
}

bool DagView::onCriticalPath(std::uint32_t node) const
{
    if (!view_ || node >= view_->nodes.size() || critical_.empty())
        return false;
    const auto& ops = view_->nodes[node].ops;
    return std::any_of(ops.begin(), ops.end(), [&](std::uint32_t op) { return critical_[op] != 0; });
}

void DagView::drawCriticalPath(QPainter& p, const QSize& size, const ViewTransform& t) const
{
    // Dark, thick and outside the boxes, so it reads on every fill colour (red on red Conv did not).
    if (!showCritical_ || criticalPath_.empty() || !view_ || !layout_)
        return;
    const QColor ink(25, 25, 35);
    auto map = [&](double x, double y) { return QPointF(x * t.scale + t.offset.x(), y * t.scale + t.offset.y()); };
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setBrush(Qt::NoBrush);
    // Edges between consecutive ops of the chain that lie in different boxes.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> hops;
    for (std::size_t i = 0; i + 1 < criticalPath_.size(); ++i) {
        const std::uint32_t a = nodeOfOp(criticalPath_[i]), b = nodeOfOp(criticalPath_[i + 1]);
        if (a != b)
            hops.emplace_back(a, b);
    }
    std::sort(hops.begin(), hops.end());
    p.setPen(QPen(ink, 3.0));
    for (const LayoutEdge& e : layout_->edges) {
        if (!std::binary_search(hops.begin(), hops.end(), std::make_pair(e.from, e.to)))
            continue;
        QPolygonF line;
        for (const LayoutPoint& pt : e.points)
            line << map(pt.x, pt.y);
        p.drawPolyline(line);
    }
    const QRectF visible(QPointF(0, 0), QSizeF(size));
    p.setPen(QPen(ink, 3.0));
    for (std::uint32_t v = 0; v < view_->nodes.size(); ++v) {
        if (!onCriticalPath(v))
            continue;
        const QRectF box(map(layout_->left(v), layout_->top(v)), map(layout_->right(v), layout_->bottom(v)));
        if (box.intersects(visible))
            p.drawRoundedRect(box.adjusted(-3, -3, 3, 3), 6, 6);
    }
}

QString DagView::nodeTitle(std::uint32_t node) const
{
    if (!view_ || node >= view_->nodes.size())
        return {};
    const ScopeNode& n = view_->nodes[node];
    if (n.kind == ScopeNode::Kind::Op)
        return QString::fromStdString(graph_->op(OpId(n.op)).name);
    if (n.kind == ScopeNode::Kind::Stack)
        return QString::fromStdString(stackRangeLabel(*scopes_, n)) + QStringLiteral(" \u00d7%1").arg(n.scopes.size());
    const auto scope = static_cast<std::size_t>(n.scopes.front());
    return scope < scopeTitles_.size() ? scopeTitles_[scope] : displayPath(scopes_->scopes[scope]);
}

std::vector<QString> scopeTitles(const NameScopes& scopes)
{
    std::vector<QString> paths;
    for (const NameScope& scope : scopes.scopes)
        paths.push_back(displayPath(scope));
    std::vector<QString> titles = distinctEndings(paths);
    // A bare index says nothing ("6" of "features/features.6", "5/attn"): one component more.
    for (std::size_t s = 0; s < titles.size(); ++s) {
        QString& title = titles[s];
        const qsizetype cut = title.indexOf(QRegularExpression(QStringLiteral("[./]")));
        const QString first = cut < 0 ? title : title.left(cut);
        bool number = !first.isEmpty();
        for (QChar c : first)
            number = number && c.isDigit();
        if (!number || title.size() >= paths[s].size())
            continue;
        const qsizetype start = paths[s].size() - title.size() - 1; // the separator before it
        if (start <= 0)
            continue;
        const qsizetype before = std::max(
            paths[s].lastIndexOf(QLatin1Char('.'), start - 1), paths[s].lastIndexOf(QLatin1Char('/'), start - 1));
        title = paths[s].mid(before + 1);
    }
    return titles;
}

QString DagView::nodeDetail(std::uint32_t node) const
{
    if (!view_ || node >= view_->nodes.size())
        return {};
    const ScopeNode& n = view_->nodes[node];
    if (n.kind == ScopeNode::Kind::Op)
        return describe(OpId(n.op));
    // Ops by kind (most first), work, and where they run.
    std::map<OpKind, std::size_t> kinds;
    double flops = 0, bytes = 0;
    int firstStage = -1, lastStage = -1;
    std::map<int, std::size_t> devices;
    for (std::uint32_t op : n.ops) {
        const Op& o = graph_->op(OpId(op));
        ++kinds[o.kind];
        flops += o.cost.flops;
        bytes += o.cost.bytes();
        const int stage = stageOf(OpId(op));
        if (stage >= 0) {
            firstStage = firstStage < 0 ? stage : std::min(firstStage, stage);
            lastStage = std::max(lastStage, stage);
        }
        if (deviceOf(OpId(op)) >= 0)
            ++devices[deviceOf(OpId(op))];
    }
    std::vector<std::pair<std::size_t, OpKind>> byCount;
    for (const auto& [kind, count] : kinds)
        byCount.emplace_back(count, kind);
    std::sort(byCount.begin(), byCount.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    QStringList mix;
    for (const auto& [count, kind] : byCount)
        mix << QStringLiteral("%1 %2").arg(QString::fromUtf8(toString(kind))).arg(count);
    QString text = n.kind == ScopeNode::Kind::Stack
        ? tr("%1: %2 alike scopes, %3")
              .arg(nodeTitle(node))
              .arg(n.scopes.size())
              .arg(countOf(n.ops.size(), "op", "ops"))
        : tr("%1: %2").arg(nodeTitle(node), countOf(n.ops.size(), "op", "ops"));
    text += QLatin1Char('\n') + mix.join(QStringLiteral(", "));
    text += QLatin1Char('\n') + tr("%1 GFLOP, %2 MB moved").arg(flops / 1e9, 0, 'f', 3).arg(bytes / 1e6, 0, 'f', 1);
    if (firstStage >= 0)
        text += QLatin1Char('\n')
            + (firstStage == lastStage ? tr("stage %1").arg(firstStage)
                                       : tr("stages %1\u2013%2").arg(firstStage).arg(lastStage));
    if (!devices.empty()) {
        QStringList on;
        for (const auto& [d, count] : devices)
            on << QStringLiteral("%1 (%2)")
                      .arg(static_cast<std::size_t>(d) < deviceNames_.size()
                              ? QString::fromStdString(deviceNames_[static_cast<std::size_t>(d)])
                              : QString::number(d))
                      .arg(count);
        text += QLatin1Char('\n') + tr("on %1").arg(on.join(QStringLiteral(", ")));
    }
    const auto onPath = std::count_if(
        n.ops.begin(), n.ops.end(), [&](std::uint32_t op) { return op < critical_.size() && critical_[op] != 0; });
    if (onPath > 0)
        text += QLatin1Char('\n') + tr("%1 of its ops on the critical path").arg(onPath);
    text += QLatin1Char('\n')
        + (n.kind == ScopeNode::Kind::Stack ? tr("Click to open the first of them") : tr("Click to open"));
    return text;
}

std::vector<std::pair<QColor, double>> DagView::nodeMix(std::uint32_t node) const
{
    std::vector<std::pair<QColor, double>> mix;
    if (!view_ || node >= view_->nodes.size())
        return mix;
    const ScopeNode& n = view_->nodes[node];
    std::map<int, std::size_t> counts; // by device, stage or kind: the dimension the boxes are coloured by
    for (std::uint32_t op : n.ops) {
        const OpId id(op);
        ++counts[hasDevices() ? deviceOf(id) : hasSchedule() ? stageOf(id) : static_cast<int>(graph_->op(id).kind)];
    }
    for (const auto& [key, count] : counts) {
        const QColor colour
            = hasDevices() || hasSchedule() ? groupColour(key) : spanColour(static_cast<std::uint32_t>(key));
        mix.emplace_back(colour, static_cast<double>(count) / static_cast<double>(n.ops.size()));
    }
    return mix;
}

QColor DagView::nodeColour(std::uint32_t node) const
{
    if (!isGroup(node))
        return view_ && node < view_->nodes.size() ? opColour(OpId(view_->nodes[node].op)) : QColor();
    // The share that is largest, lightened: a group reads as a container of its ops.
    const auto mix = nodeMix(node);
    const auto top
        = std::max_element(mix.begin(), mix.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    return top == mix.end() ? QColor() : top->first.lighter(125);
}

void DagView::drawGroup(QPainter& p, std::uint32_t node, const QRectF& box, bool twoLines, bool oneLine) const
{
    const ScopeNode& n = view_->nodes[node];
    const QColor fill = nodeColour(node);
    const bool selectedInside = selected_.valid() && nodeOfOp(selected_) == node;
    const QColor border = selectedInside ? palette().highlight().color() : fill.darker(170);
    const double r = std::min(6.0, box.height() / 4);
    // Sheets behind the box: one for a scope, more for a stack (it stands for several).
    const int sheets = n.kind == ScopeNode::Kind::Stack ? 2 : 1;
    const double step = std::clamp(box.height() / 10, 1.0, 4.0);
    for (int k = sheets; k >= 1; --k) {
        p.setPen(QPen(fill.darker(170), 1));
        p.setBrush(fill.lighter(110));
        p.drawRoundedRect(box.translated(k * step, -k * step), r, r);
    }
    p.setPen(QPen(border, selectedInside ? 3 : 1.5));
    p.setBrush(fill);
    p.drawRoundedRect(box, r, r);

    // The mix along the bottom edge, in the colours the ops would have.
    const double stripe = std::clamp(box.height() / 7, 1.0, 6.0);
    double x = box.left() + r;
    const double span = box.width() - 2 * r;
    for (const auto& [colour, share] : nodeMix(node)) {
        p.fillRect(QRectF(x, box.bottom() - stripe - 1, span * share, stripe), colour);
        x += span * share;
    }
    if (!oneLine)
        return;

    const QFontMetrics fm(p.font());
    const QRectF text = box.adjusted(5, 2, -5, -2 - stripe);
    const QString title = nodeTitle(node);
    const QString ops = countOf(n.ops.size(), "op", "ops");
    QFont bold = p.font();
    bold.setBold(true);
    const QFontMetrics boldFm(bold);
    p.setPen(Qt::black);
    if (twoLines) {
        const QRectF top(text.left(), text.top(), text.width(), text.height() / 2);
        const QRectF bottom(text.left(), text.center().y(), text.width(), text.height() / 2);
        p.save();
        p.setFont(bold);
        p.drawText(top, Qt::AlignCenter, fitName(title, title, boldFm, static_cast<int>(text.width())));
        p.restore();
        QString second = ops;
        int firstStage = -1, lastStage = -1;
        for (std::uint32_t op : n.ops) {
            const int st = stageOf(OpId(op));
            if (st >= 0) {
                firstStage = firstStage < 0 ? st : std::min(firstStage, st);
                lastStage = std::max(lastStage, st);
            }
        }
        if (firstStage >= 0)
            second += firstStage == lastStage ? tr(" · stage %1").arg(firstStage)
                                              : tr(" · stages %1\u2013%2").arg(firstStage).arg(lastStage);
        else if (!hasDevices()) {
            double flops = 0;
            for (std::uint32_t op : n.ops)
                flops += graph_->op(OpId(op)).cost.flops;
            second += flops >= 1e7 ? tr(" · %1 GFLOP").arg(flops / 1e9, 0, 'f', flops >= 1e10 ? 1 : 2)
                                   : tr(" · %1 MFLOP").arg(flops / 1e6, 0, 'f', flops >= 1e5 ? 1 : 3);
        }
        p.drawText(bottom, Qt::AlignCenter, fm.elidedText(second, Qt::ElideRight, static_cast<int>(text.width())));
    } else {
        p.save();
        p.setFont(bold);
        p.drawText(text, Qt::AlignCenter, fitName(title, title, boldFm, static_cast<int>(text.width())));
        p.restore();
    }
}

} // namespace opsched
