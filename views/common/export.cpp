#include "common/export.h"

#include "engine/results/result_export.h"

#include <QFont>
#include <QFontMetrics>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>

namespace opsched {

namespace {

// Draws the header line and moves the drawing below it.
std::function<void(QPainter&, const QSize&)> withHeader(
    const std::function<void(QPainter&, const QSize&)>& draw, const QString& header, int height)
{
    return [draw, header, height](QPainter& p, const QSize& size) {
        p.fillRect(QRect(0, 0, size.width(), height), Qt::white);
        p.setPen(Qt::black);
        p.drawText(QRect(6, 0, size.width() - 12, height), Qt::AlignLeft | Qt::AlignVCenter, header);
        p.save();
        p.translate(0, height);
        draw(p, QSize(size.width(), size.height() - height));
        p.restore();
    };
}

} // namespace

QString exportImage(const QString& file, const QSize& plotSize,
    const std::function<void(QPainter&, const QSize&)>& plot, const QString& header)
{
    const int headerHeight = header.isEmpty() ? 0 : QFontMetrics(QFont()).height() + 8;
    const QSize size(plotSize.width(), plotSize.height() + headerHeight);
    const auto draw = header.isEmpty() ? plot : withHeader(plot, header, headerHeight);
    if (file.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive)) {
        QSvgGenerator svg;
        svg.setFileName(file);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setTitle(header.isEmpty() ? QStringLiteral("opsched") : header);
        QPainter p;
        if (!p.begin(&svg))
            return QObject::tr("cannot write %1").arg(file);
        draw(p, size);
        p.end();
        return {};
    }
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    {
        QPainter p(&image);
        draw(p, size);
    }
    if (!image.save(file))
        return QObject::tr("cannot write %1 (unknown image format or no permission)").arg(file);
    return {};
}

QString exportSchedule(const QString& file, const Graph* graph, const ScheduleResult& result)
{
    try {
        writeResultSchedule(file.toStdString(), graph, result);
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

QString exportTrace(
    const QString& file, TraceExport format, const Graph* graph, const QString& modelRef, const ScheduleResult& result)
{
    try {
        writeResultTrace(file.toStdString(),
            format == TraceExport::ChromeTrace ? TraceFormat::ChromeTrace : TraceFormat::KernelsCsv, graph,
            modelRef.toStdString(), result);
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace opsched
