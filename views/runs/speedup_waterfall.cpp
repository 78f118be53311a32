#include "runs/speedup_waterfall.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace opsched {
namespace {

constexpr double kMs = 1e-6; // ns -> ms
constexpr int kMargin = 8;
constexpr int kAxisWidth = 56; // the ms scale on the left

QString shortLabel(const std::string& key)
{
    if (key == "shared_kernels")
        return QObject::tr("shared");
    if (key == "only_a_kernels")
        return QObject::tr("only A");
    if (key == "only_b_kernels")
        return QObject::tr("only B");
    if (key == "overlap")
        return QObject::tr("overlap");
    if (key == "launch_idle")
        return QObject::tr("launch");
    if (key == "sync_idle")
        return QObject::tr("barrier");
    if (key == "gap_idle")
        return QObject::tr("gap");
    if (key == "variation")
        return QObject::tr("variation");
    return QString::fromStdString(key);
}

} // namespace

SpeedupWaterfall::SpeedupWaterfall(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("speedupWaterfall"));
    setMouseTracking(false);
}

void SpeedupWaterfall::setBreakdown(const std::optional<analysis::SpeedupBreakdown>& breakdown, const QString& message)
{
    breakdown_ = breakdown;
    message_ = message;
    selected_.clear();
    update();
}

std::vector<SpeedupWaterfall::Bar> SpeedupWaterfall::bars(const QSize& size) const
{
    std::vector<Bar> out;
    if (!breakdown_)
        return out;
    const auto& r = *breakdown_;
    const double a = r.a.latencyNs * kMs, b = r.b.latencyNs * kMs;
    out.push_back({ QStringLiteral("a"), tr("A"), 0, a, {} });
    double level = a;
    double top = std::max(a, b);
    for (const auto& t : r.terms) {
        const double next = level - t.ns * kMs;
        out.push_back({ QString::fromStdString(t.key), shortLabel(t.key), level, next, {} });
        level = next;
        top = std::max(top, level);
    }
    out.push_back({ QStringLiteral("b"), tr("B"), 0, b, {} });
    // Bars side by side over the plot, each level on one linear ms scale from 0 to the top.
    const QFontMetrics fm(font());
    const double plotLeft = kAxisWidth, plotRight = size.width() - kMargin;
    const double plotTop = kMargin, plotBottom = size.height() - kMargin - fm.height() * 2;
    const double slot = (plotRight - plotLeft) / static_cast<double>(out.size());
    auto y = [&](double ms) { return plotBottom - (top > 0 ? ms / top : 0.0) * (plotBottom - plotTop); };
    for (std::size_t i = 0; i < out.size(); ++i) {
        Bar& bar = out[i];
        const double x = plotLeft + slot * static_cast<double>(i) + slot * 0.15;
        const double y0 = y(std::max(bar.fromMs, bar.toMs)), y1 = y(std::min(bar.fromMs, bar.toMs));
        bar.rect = QRectF(x, y0, slot * 0.7, std::max(1.0, y1 - y0)); // a zero term still shows as a line
    }
    return out;
}

QString SpeedupWaterfall::csv() const
{
    QString text = QStringLiteral("term,label,ms,share\n");
    if (!breakdown_)
        return text;
    const auto& r = *breakdown_;
    auto quoted = [](QString s) {
        return QLatin1Char('"') + s.replace(QLatin1Char('"'), QStringLiteral("\"\"")) + QLatin1Char('"');
    };
    text += QStringLiteral("latency_a,%1,%2,\n").arg(quoted(tr("latency of A"))).arg(r.a.latencyNs * kMs, 0, 'g', 9);
    for (const auto& t : r.terms)
        text += QStringLiteral("%1,%2,%3,%4\n")
                    .arg(QString::fromStdString(t.key), quoted(QString::fromStdString(t.label)))
                    .arg(t.ns * kMs, 0, 'g', 9)
                    .arg(r.differenceNs != 0 ? t.ns / r.differenceNs : 0.0, 0, 'g', 6);
    text += QStringLiteral("latency_b,%1,%2,\n").arg(quoted(tr("latency of B"))).arg(r.b.latencyNs * kMs, 0, 'g', 9);
    return text;
}

void SpeedupWaterfall::paintTo(QPainter& p, const QSize& size) const
{
    p.fillRect(QRect(QPoint(0, 0), size), palette().base());
    p.setFont(font());
    const QFontMetrics fm(font());
    if (!breakdown_) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(QRect(QPoint(0, 0), size), Qt::AlignCenter | Qt::TextWordWrap,
            message_.isEmpty() ? tr("Pick two runs to see where their difference comes from.") : message_);
        return;
    }
    const std::vector<Bar> laid = bars(size);
    const double top = std::max_element(laid.begin(), laid.end(), [](const Bar& x, const Bar& y) {
        return std::max(x.fromMs, x.toMs) < std::max(y.fromMs, y.toMs);
    })->toMs;
    // The ms scale: 0 and the largest level.
    p.setPen(palette().color(QPalette::Text));
    const double bottom = laid.front().rect.bottom();
    p.drawLine(QPointF(kAxisWidth - 4, bottom), QPointF(size.width() - kMargin, bottom));
    p.drawText(QRectF(0, bottom - fm.height() / 2.0, kAxisWidth - 6, fm.height()), Qt::AlignRight, QStringLiteral("0"));
    const double highest = std::max_element(laid.begin(), laid.end(), [](const Bar& x, const Bar& y) {
        return x.rect.top() > y.rect.top();
    })->rect.top();
    p.drawText(QRectF(0, highest - fm.height() / 2.0, kAxisWidth - 6, fm.height()), Qt::AlignRight,
        tr("%1 ms").arg(std::max(top, laid.back().toMs), 0, 'g', 3));
    for (std::size_t i = 0; i < laid.size(); ++i) {
        const Bar& bar = laid[i];
        const bool ends = bar.key == QLatin1String("a") || bar.key == QLatin1String("b");
        QColor fill = ends           ? QColor(0x5b, 0x7d, 0xb1)
            : bar.toMs <= bar.fromMs ? QColor(0x4c, 0xa8, 0x5a)
                                     : QColor(0xd0, 0x5a, 0x4e);
        if (bar.key == selected_)
            fill = fill.darker(140);
        p.fillRect(bar.rect, fill);
        // The step to the next bar: where the level continues.
        if (i + 1 < laid.size() && !ends) {
            p.setPen(QPen(palette().color(QPalette::Mid), 1, Qt::DotLine));
            const double yTo = bar.toMs <= bar.fromMs ? bar.rect.bottom() : bar.rect.top();
            p.drawLine(QPointF(bar.rect.right(), yTo), QPointF(laid[i + 1].rect.left(), yTo));
        }
        p.setPen(palette().color(QPalette::Text));
        const double change = ends ? bar.toMs : bar.fromMs - bar.toMs;
        // Three decimals of a millisecond: a term of a few nanoseconds reads as 0, not as 5e-06.
        const QString value = ends ? QString::number(change, 'f', 3)
                                   : (change >= 0 ? QStringLiteral("+") : QString()) + QString::number(change, 'f', 3);
        const QRectF under(bar.rect.left() - bar.rect.width() * 0.2, bottom + 2, bar.rect.width() * 1.4, fm.height());
        p.drawText(under, Qt::AlignHCenter | Qt::AlignTop,
            fm.elidedText(bar.label, Qt::ElideRight, static_cast<int>(under.width())));
        p.drawText(under.translated(0, fm.height()), Qt::AlignHCenter | Qt::AlignTop, value);
    }
}

void SpeedupWaterfall::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    paintTo(p, size());
}

std::optional<SpeedupWaterfall::Bar> SpeedupWaterfall::barAt(const QPointF& pos) const
{
    for (const Bar& bar : bars())
        if (QRectF(bar.rect.left(), 0, bar.rect.width(), height()).contains(pos)) // the whole column
            return bar;
    return std::nullopt;
}

void SpeedupWaterfall::mousePressEvent(QMouseEvent* event)
{
    if (const auto bar = barAt(event->position())) {
        selected_ = bar->key;
        update();
        emit termClicked(bar->key);
    }
}

bool SpeedupWaterfall::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip && breakdown_) {
        auto* help = static_cast<QHelpEvent*>(event);
        if (const auto bar = barAt(help->pos())) {
            QString text;
            if (bar->key == QLatin1String("a") || bar->key == QLatin1String("b"))
                text = tr("latency of %1: %2 ms").arg(bar->label).arg(bar->toMs, 0, 'f', 4);
            else
                for (const auto& t : breakdown_->terms)
                    if (QString::fromStdString(t.key) == bar->key)
                        text = tr("%1: %2 ms, %3% of the difference")
                                   .arg(QString::fromStdString(t.label))
                                   .arg(t.ns * kMs, 0, 'f', 4)
                                   .arg(breakdown_->differenceNs != 0 ? 100 * t.ns / breakdown_->differenceNs : 0.0, 0,
                                       'f', 1);
            QToolTip::showText(help->globalPos(), text, this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QWidget::event(event);
}

QSize SpeedupWaterfall::sizeHint() const
{
    return { 640, 170 };
}

QSize SpeedupWaterfall::minimumSizeHint() const
{
    return { 320, 110 };
}

} // namespace opsched
