// Exports: view images (PNG, SVG) and schedule files the CLI reads back; the comparison view.
#include "common/export.h"
#include "engine/results/schedule_result.h"
#include "schedules/compare_view.h"
#include "schedules/schedule_results_model.h"
#include "timeline/timeline_view.h"

#include "model/model_ref.h"
#include "schedule/schedule_file.h"

#include <QFile>
#include <QImage>
#include <QPainter>
#include <QTemporaryDir>
#include <QTest>

using namespace opsched;

class TestExport : public QObject {
    Q_OBJECT

private slots:
    void timelineAsPngAndSvg()
    {
        const Graph g = loadModel("zoo:googlenet");
        ScheduleRequest request;
        request.scheduler = "greedy";
        const auto result = computeScheduleResult(g, request);
        TimelineView view;
        view.resize(900, 200);
        view.setData(result->timeline, [](std::uint32_t id) { return QString::number(id); });
        QTemporaryDir dir;
        const auto draw = [&](QPainter& p, const QSize& s) { view.render(p, s); };

        const QString png = dir.filePath(QStringLiteral("timeline.png"));
        QCOMPARE(exportImage(png, QSize(900, 200), draw), QString());
        const QImage image(png);
        QCOMPARE(image.size(), QSize(900, 200));
        // Something other than the background was drawn.
        const QRgb background = image.pixel(899, 199);
        bool drawn = false;
        for (int x = TimelineView::kLabelWidth; x < 900 && !drawn; x += 3)
            drawn = image.pixel(x, 12) != background;
        QVERIFY(drawn);

        const QString svg = dir.filePath(QStringLiteral("timeline.svg"));
        QCOMPARE(exportImage(svg, QSize(900, 200), draw), QString());
        QFile f(svg);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        QVERIFY(text.contains("<svg"));
        QVERIFY(text.contains("<rect") || text.contains("<path"));

        QVERIFY(!exportImage(dir.filePath(QStringLiteral("no/such/dir/x.png")), QSize(10, 10), draw).isEmpty());
    }

    void scheduleRoundTrips()
    {
        const Graph g = loadModel("zoo:squeezenet");
        QTemporaryDir dir;
        for (const char* scheduler : { "ios", "nimble" }) {
            ScheduleRequest request;
            request.scheduler = scheduler;
            const auto result = computeScheduleResult(g, request);
            const QString file = dir.filePath(QStringLiteral("%1.json").arg(QLatin1String(scheduler)));
            QCOMPARE(exportSchedule(file, &g, *result), QString());
            const ScheduleDocument doc = readScheduleFile(g, file.toStdString());
            QCOMPARE(doc.scheduler, std::string(scheduler));
            QVERIFY(doc.executablePlan(g) == result->output.plan);
            QVERIFY(qAbs(*doc.latencyMs - result->latency * 1e3) < 1e-9);
        }
    }

    void comparisonDrawsOneBarPerResult()
    {
        const Graph g = loadModel("zoo:squeezenet");
        ScheduleResultsModel model;
        CompareView view;
        view.setModel(&model);
        QImage empty(600, 200, QImage::Format_ARGB32);
        {
            QPainter p(&empty);
            view.render(p, empty.size());
        }
        for (const char* s : { "sequential", "greedy", "ios" }) {
            ScheduleRequest r;
            r.scheduler = s;
            model.add(computeScheduleResult(g, r));
        }
        QImage image(600, 200, QImage::Format_ARGB32);
        {
            QPainter p(&image);
            view.render(p, image.size());
        }
        QVERIFY(image != empty);
    }
};

QTEST_MAIN(TestExport)
#include "tst_imageexport.moc"
