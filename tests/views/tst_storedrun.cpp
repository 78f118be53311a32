// Stored runs in the views: the timeline of a run record (op rows, kernel rows under them, stages,
// warps), the run as a result, the way back (a computed result recorded like the profiler does),
// the Chrome trace and CSV exports, and the kernel rows in the timeline widget.
#include "common/export.h"
#include "engine/results/schedule_result.h"
#include "engine/results/stored_run.h"
#include "timeline/timeline_view.h"

#include "model/model_ref.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPainter>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <set>

using namespace opsched;

class TestStoredRun : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void recordsAComputedResultLikeTheProfiler();
    void timelineHasAKernelRowUnderEachStream();
    void opBoxesCoverTheirKernels();
    void resultCarriesTheRunsNumbers();
    void runsWithoutKernelsHaveNoRows();
    void mappingRunsNameTheirRowsAfterTheDevices();
    void exportsChromeTraceAndCsv();
    void exportsTheStoredSchedule();
    void viewStacksRowsAndDescribesKernels();

private:
    std::shared_ptr<const Graph> graph_;
    std::shared_ptr<const ScheduleResult> ios_;
    store::RunRecord run_;
};

void TestStoredRun::initTestCase()
{
    graph_ = std::make_shared<const Graph>(loadModel("zoo:squeezenet"));
    ScheduleRequest request;
    request.scheduler = "ios";
    request.device = "sim:h100";
    ios_ = computeScheduleResult(*graph_, request);
    run_ = recordFromResult(*graph_, "zoo:squeezenet", *ios_);
}

void TestStoredRun::recordsAComputedResultLikeTheProfiler()
{
    QCOMPARE(QString::fromStdString(run_.device.key), QStringLiteral("sim:h100"));
    QCOMPARE(QString::fromStdString(run_.model.ref), QStringLiteral("zoo:squeezenet"));
    QCOMPARE(run_.model.ops.size(), graph_->opCount());
    QVERIFY(run_.schedule);
    QCOMPARE(QString::fromStdString(run_.schedule->scheduler), QStringLiteral("ios"));
    QVERIFY(!run_.kernels.empty());
    QVERIFY(!run_.warps.empty());
    QVERIFY(!run_.stages.empty());
    QCOMPARE(run_.latenciesNs.size(), std::size_t(1));
    // Simulated again the same way, so the latency agrees with the window's.
    QVERIFY(std::abs(run_.latenciesNs.front() * 1e-9 - ios_->latency) < 1e-9);
}

void TestStoredRun::timelineHasAKernelRowUnderEachStream()
{
    const auto timeline = timelineFromRun(run_);
    std::set<std::int64_t> streams;
    for (const auto& k : run_.kernels)
        streams.insert(k.streamId);
    QCOMPARE(timeline->rows.rowCount(), 2 * streams.size());
    QCOMPARE(timeline->rowKinds.size(), timeline->rows.rowCount());
    std::size_t kernelSpans = 0;
    for (std::size_t r = 0; r < timeline->rows.rowCount(); ++r) {
        QCOMPARE(timeline->rowKind(r), r % 2 ? TimelineRowKind::Kernels : TimelineRowKind::Ops);
        if (r % 2)
            kernelSpans += timeline->rows.row(r).size();
    }
    QCOMPARE(kernelSpans, run_.kernels.size());
    QCOMPARE(timeline->kernels.size(), run_.kernels.size());
    QCOMPARE(timeline->stages.size(), run_.stages.size());
    QCOMPARE(timeline->warps.size(), run_.warps.size());
    QCOMPARE(timeline->opLabels.size(), graph_->opCount());
    QCOMPARE(QString::fromStdString(timeline->opLabels[0]).section('\n', 0, 0),
        QString::fromStdString(graph_->op(OpId(0)).name));
    QVERIFY(timeline->maxWarps > 0);
}

void TestStoredRun::opBoxesCoverTheirKernels()
{
    const auto timeline = timelineFromRun(run_);
    // Every kernel lies inside a box of its op on the op row above it.
    for (std::size_t r = 1; r < timeline->rows.rowCount(); r += 2)
        for (const TimelineSpan& k : timeline->rows.row(r)) {
            const std::uint32_t op = timeline->kernels[k.id].op;
            bool covered = false;
            for (const TimelineSpan& box : timeline->rows.row(r - 1))
                covered = covered || (box.id == op && box.start <= k.start + 1e-12 && k.end <= box.end + 1e-12);
            QVERIFY2(covered, qPrintable(QString::fromStdString(timeline->kernels[k.id].name)));
        }
    // The same rows as the window's own simulated timeline of the result: op boxes and kernels
    // per stream, kernels named alike.
    const TimelineData& window = *ios_->timeline;
    QCOMPARE(timeline->rows.rowCount(), window.rows.rowCount());
    QCOMPARE(timeline->rowNames, window.rowNames);
    QCOMPARE(timeline->kernels.size(), window.kernels.size());
    for (std::size_t r = 0; r < timeline->rows.rowCount(); ++r) {
        QCOMPARE(timeline->rowKind(r), window.rowKind(r));
        QCOMPARE(timeline->rows.row(r).size(), window.rows.row(r).size());
        if (window.rowKind(r) != TimelineRowKind::Kernels)
            continue;
        auto names = [](const TimelineData& data, std::size_t row) {
            std::vector<std::string> out;
            for (const TimelineSpan& k : data.rows.row(row))
                out.push_back(data.kernels[k.id].name);
            std::sort(out.begin(), out.end());
            return out;
        };
        QCOMPARE(names(*timeline, r), names(window, r));
    }
    QVERIFY(std::abs(timeline->rows.lastEnd() - ios_->timeline->rows.lastEnd()) < 1e-8);
}

void TestStoredRun::resultCarriesTheRunsNumbers()
{
    const auto result = resultFromRun(run_);
    QCOMPARE(QString::fromStdString(result->request.scheduler), QStringLiteral("ios"));
    QCOMPARE(QString::fromStdString(result->request.device), QStringLiteral("sim:h100"));
    QCOMPARE(result->batch, std::int64_t(1));
    QVERIFY(std::abs(result->latency - ios_->latency) < 1e-9);
    QVERIFY(std::abs(result->averageActiveWarps - ios_->averageActiveWarps) < 1e-6 * ios_->averageActiveWarps);
    QCOMPARE(result->output.plan.streams, ios_->output.plan.streams);
    QVERIFY(result->stored);
    QVERIFY(result->timeline);
}

void TestStoredRun::mappingRunsNameTheirRowsAfterTheDevices()
{
    // As profile --mapping stores it: stream u is device u, the devices in the schedule's params.
    store::RunRecord run;
    run.model.ops
        = nlohmann::json::array({ { { "name", "a" }, { "type", "Conv" } }, { { "name", "b" }, { "type", "Conv" } } });
    store::ScheduleRecord schedule;
    schedule.scheduler = "map:heft";
    schedule.params["devices"] = { "cpu:0", "cpu:1" };
    run.schedule = schedule;
    for (std::int64_t s = 0; s < 2; ++s) {
        store::KernelRecord k;
        k.start = s * 1000;
        k.end = k.start + 500;
        k.streamId = s;
        k.opId = s;
        k.launchId = s;
        k.shortName = s ? "b" : "a";
        run.kernels.push_back(k);
    }
    const auto timeline = timelineFromRun(run);
    QStringList names;
    for (std::size_t r = 0; r < timeline->rowNames.size(); ++r)
        if (timeline->rowKind(r) == TimelineRowKind::Ops)
            names << QString::fromStdString(timeline->rowNames[r]);
    QCOMPARE(names, (QStringList { QStringLiteral("cpu:0"), QStringLiteral("cpu:1") }));
}

void TestStoredRun::runsWithoutKernelsHaveNoRows()
{
    store::RunRecord failed;
    failed.status = store::RunStatus::Failed;
    failed.error = "no GPU";
    const auto result = resultFromRun(failed);
    QCOMPARE(result->timeline->rows.rowCount(), std::size_t(0));
    QCOMPARE(result->latency, 0.0);
    QCOMPARE(QString::fromStdString(result->request.scheduler), QStringLiteral("(failed)"));
}

void TestStoredRun::exportsChromeTraceAndCsv()
{
    QTemporaryDir dir;
    const QString trace = dir.filePath(QStringLiteral("t.trace.json"));
    QCOMPARE(
        exportTrace(trace, TraceExport::ChromeTrace, graph_.get(), QStringLiteral("zoo:squeezenet"), *ios_), QString());
    QFile f(trace);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject doc = QJsonDocument::fromJson(f.readAll()).object();
    int complete = 0;
    for (const auto& e : doc.value(QStringLiteral("traceEvents")).toArray())
        complete += e.toObject().value(QStringLiteral("ph")).toString() == QStringLiteral("X")
            && e.toObject().value(QStringLiteral("cat")).toString() == QStringLiteral("op");
    std::set<std::int64_t> launches; // one event per launch, merged ones included
    for (const auto& k : run_.kernels)
        launches.insert(*k.launchId);
    QCOMPARE(complete, static_cast<int>(launches.size()));
    QCOMPARE(doc.value(QStringLiteral("otherData")).toObject().value(QStringLiteral("scheduler")).toString(),
        QStringLiteral("ios"));

    // The stored run exports as stored, without the model.
    const QString csv = dir.filePath(QStringLiteral("k.csv"));
    QCOMPARE(exportTrace(csv, TraceExport::KernelsCsv, nullptr, QString(), *resultFromRun(run_)), QString());
    QFile c(csv);
    QVERIFY(c.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = c.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), static_cast<int>(run_.kernels.size()) + 1);
    QVERIFY(lines.first().contains("start"));

    // Nothing to export from: a computed result needs its model.
    QVERIFY(!exportTrace(csv, TraceExport::KernelsCsv, nullptr, QString(), *ios_).isEmpty());
    QVERIFY(!exportTrace(dir.filePath(QStringLiteral("no/such/dir/x.csv")), TraceExport::KernelsCsv, graph_.get(),
        QStringLiteral("zoo:squeezenet"), *ios_)
                 .isEmpty());
}

void TestStoredRun::exportsTheStoredSchedule()
{
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("s.json"));
    QCOMPARE(exportSchedule(file, nullptr, *resultFromRun(run_)), QString());
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject doc = QJsonDocument::fromJson(f.readAll()).object();
    QCOMPARE(doc.value(QStringLiteral("format")).toString(), QStringLiteral("opsched-schedule"));
    QCOMPARE(doc.value(QStringLiteral("scheduler")).toString(), QStringLiteral("ios"));
}

void TestStoredRun::viewStacksRowsAndDescribesKernels()
{
    TimelineView view;
    view.resize(1200, 400);
    const auto timeline = timelineFromRun(run_);
    view.setData(timeline);
    // Op rows are taller than kernel rows, stacked without gaps.
    QCOMPARE(view.rowHeight(0), TimelineView::kRowHeight);
    QCOMPARE(view.rowHeight(1), TimelineView::kKernelRowHeight);
    QCOMPARE(view.rowTop(1), view.rowTop(0) + TimelineView::kRowHeight);
    QCOMPARE(view.rowAt(view.rowTop(1) + 2), 1);
    QCOMPARE(view.rowAt(view.rowTop(1)), 1);
    const std::size_t last = timeline->rows.rowCount() - 1;
    QCOMPARE(view.rowAt(view.rowTop(last) + view.rowHeight(last)), -1); // below the last row
    QCOMPARE(view.rowAt(-5), -1);
    QCOMPARE(view.rowAt(100000), -1);

    // Hovering the middle of the first kernel on stream row 0 names the kernel and its op.
    const TimelineSpan& k = timeline->rows.row(1).front();
    const int x = TimelineView::kLabelWidth + static_cast<int>(view.axis().toX((k.start + k.end) / 2));
    const QString text = view.describeAt(QPoint(x, view.rowTop(1) + 5));
    QVERIFY2(text.startsWith(QStringLiteral("kernel ")), qPrintable(text));
    const QString opName = QString::fromStdString(timeline->opLabels[timeline->kernels[k.id].op]).section('\n', 0, 0);
    QVERIFY2(text.contains(opName), qPrintable(text));

    // Clicking a kernel selects its op.
    QSignalSpy clicked(&view, &TimelineView::spanClicked);
    QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(x, view.rowTop(1) + 5));
    QCOMPARE(clicked.size(), 1);
    QCOMPARE(clicked.at(0).at(0).toUInt(), timeline->kernels[k.id].op);

    // And it paints (kernel rows included) without trouble.
    QImage image(view.size(), QImage::Format_ARGB32);
    QPainter p(&image);
    view.render(p, view.size());
}

QTEST_MAIN(TestStoredRun)
#include "tst_storedrun.moc"
