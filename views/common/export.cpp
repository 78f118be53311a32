#include "common/export.h"

#include "engine/results/schedule_result.h"
#include "engine/results/stored_run.h"

#include "export/export.h"

#include "schedule/schedule_file.h"
#include "util/error.h"

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
        if (result.stored) {
            profiler::writeTextFile(
                file.toStdString(), profiler::exportRun(*result.stored, profiler::ExportFormat::Schedule));
            return {};
        }
        if (result.mappingFile) { // a mapping: its file, as `opsched-cli map -o` writes it
            profiler::writeTextFile(file.toStdString(), result.mappingFile->dump(2) + "\n");
            return {};
        }
        if (result.mapping)
            return QObject::tr("a throughput mapping has no schedule file here: `opsched-cli map --objective "
                               "throughput -o FILE` writes one (File > Open Mapping reads it)");
        if (!graph)
            return QObject::tr("open the model first");
        ScheduleDocument doc = result.output.schedule
            ? makeScheduleDocument(*graph, *result.output.schedule, result.request.scheduler)
            : makePlanDocument(*graph, result.output.plan, result.request.scheduler);
        doc.device = result.request.device;
        doc.params = result.output.params;
        doc.params["cuda_graph"] = result.request.cudaGraph;
        doc.latencyMs = result.latency * 1e3;
        writeScheduleFile(file.toStdString(), toJson(*graph, doc));
    } catch (const Error& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

QString exportTrace(
    const QString& file, TraceExport format, const Graph* graph, const QString& modelRef, const ScheduleResult& result)
{
    try {
        if (!result.stored && !graph)
            return QObject::tr("open the model first");
        const store::RunRecord run
            = result.stored ? *result.stored : recordFromResult(*graph, modelRef.toStdString(), result);
        const auto f
            = format == TraceExport::ChromeTrace ? profiler::ExportFormat::ChromeTrace : profiler::ExportFormat::Csv;
        profiler::writeTextFile(file.toStdString(), profiler::exportRun(run, f));
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace opsched
