// TimelineView against the frame budget: 100,000 spans repaint in under 16 ms, with op rows
// alone and with a kernel row under every stream (folding and binary search do the work).
#include "timeline/timeline_view.h"

#include "common/group_colour.h"

#include <QElapsedTimer>
#include <QImage>
#include <QPainter>
#include <QTest>

#include <algorithm>
#include <cmath>

#include <algorithm>
#include <vector>

using namespace opsched;

class TestTimelineView : public QObject {
    Q_OBJECT

private slots:
    void repaints100kSpansInAFrame_data();
    void repaints100kSpansInAFrame();
    void survivesOddData();
    void opKindsGetDistinctColours();
    void mappingsColourByDeviceAsTheDagDoes();
    void scrollsAndCollapses();
};

void TestTimelineView::repaints100kSpansInAFrame_data()
{
    QTest::addColumn<bool>("kernelRows");
    QTest::addColumn<bool>("flows");
    QTest::newRow("op rows") << false << false;
    QTest::newRow("op and kernel rows") << true << false;
    QTest::newRow("op rows, 10k flows and a range") << false << true;
}

void TestTimelineView::repaints100kSpansInAFrame()
{
    QFETCH(bool, kernelRows);
    QFETCH(bool, flows);
    constexpr int kStreams = 8, kSpans = 100000;
    const int rows = kernelRows ? 2 * kStreams : kStreams;
    auto data = std::make_shared<TimelineData>();
    double t = 0;
    for (int i = 0; i < kSpans; ++i) {
        const double d = 1e-6 * (1 + (i * 7919) % 50); // 1..50 us
        const int row = i % rows;
        const auto id = static_cast<std::uint32_t>(kernelRows && row % 2 ? data->kernels.size() : i);
        if (kernelRows && row % 2)
            data->kernels.push_back({ "k" + std::to_string(i), static_cast<std::uint32_t>(i), 64, {} });
        data->rows.addSpan(static_cast<std::size_t>(row), { t, t + d, id, static_cast<std::uint32_t>(i % 13) });
        if (row == rows - 1)
            t += d;
    }
    data->rows.finish();
    for (int r = 0; r < rows; ++r) {
        data->rowNames.push_back("row " + std::to_string(r));
        data->rowKinds.push_back(kernelRows && r % 2 ? TimelineRowKind::Kernels : TimelineRowKind::Ops);
    }
    data->latency = data->rows.lastEnd();
    QCOMPARE(data->rows.spanCount(), std::size_t(kSpans));
    if (flows) {
        // Every tenth span waits for the span before it on the next row.
        for (int r = 0; r < rows; ++r) {
            const auto& from = data->rows.row(static_cast<std::size_t>(r));
            for (std::size_t i = 0; i + 1 < from.size(); i += 10)
                data->flows.push_back({ from[i].end, from[i + 1].start, static_cast<std::uint32_t>(r),
                    static_cast<std::uint32_t>((r + 1) % rows) });
        }
        std::sort(data->flows.begin(), data->flows.end(),
            [](const TimelineFlow& a, const TimelineFlow& b) { return a.from < b.from; });
        QVERIFY(data->flows.size() >= 9000);
    }

    TimelineView view;
    view.resize(1600, 400);
    view.setData(data, [](std::uint32_t id) { return QStringLiteral("op %1").arg(id); });
    if (flows) {
        view.setShowFlows(true);
        view.setSelection(data->latency * 0.2, data->latency * 0.7);
    }
    QImage image(1600, 400, QImage::Format_ARGB32_Premultiplied);
    std::vector<qint64> ns;
    for (int i = 0; i < 21; ++i) {
        QElapsedTimer timer;
        timer.start();
        QPainter p(&image);
        view.render(p, image.size());
        p.end();
        ns.push_back(timer.nsecsElapsed());
    }
    std::sort(ns.begin(), ns.end());
    const double medianMs = static_cast<double>(ns[ns.size() / 2]) / 1e6;
    qInfo("%d spans on %d rows, whole run visible: %.2f ms per repaint (median of 21)", kSpans, rows, medianMs);
    QVERIFY2(medianMs < 16.0, qPrintable(QStringLiteral("%1 ms").arg(medianMs)));
}

void TestTimelineView::survivesOddData()
{
    // Data no source should produce, drawn and measured without a crash: no rows, rows without
    // names or kinds, flows and a critical path naming rows and ops that do not exist.
    TimelineView view;
    view.resize(600, 200);
    QImage image(600, 200, QImage::Format_ARGB32);
    auto paint = [&] {
        QPainter p(&image);
        view.render(p, image.size());
    };
    auto empty = std::make_shared<TimelineData>();
    empty->rows.finish();
    view.setData(empty);
    paint();
    QCOMPARE(view.rowAt(TimelineView::kRulerHeight + 1), -1);
    QCOMPARE(view.setSearchText(QStringLiteral("x")), 0);
    view.setSelection(0, 1);
    view.zoomToSelection();

    auto odd = std::make_shared<TimelineData>();
    odd->rows.addSpan(0, { 0, 1e-3, 7, 0 });
    odd->rows.addSpan(3, { 2e-4, 5e-4, 99, 1 }); // rows 1 and 2 empty
    odd->rows.finish();
    odd->rowKinds = { TimelineRowKind::Ops, TimelineRowKind::Kernels }; // fewer kinds than rows
    odd->flows = { { 1e-4, 3e-4, 0, 40 }, { 1e-4, 3e-4, 50, 0 } }; // rows that do not exist
    odd->criticalPath = { 12345 };
    odd->latency = 1e-3;
    view.setData(odd);
    view.setShowFlows(true);
    view.setShowCriticalPath(true);
    QVERIFY(!view.revealOp(424242));
    QVERIFY(view.revealOp(7));
    paint();
    QCOMPARE(view.setSearchText(QStringLiteral("op")), 2); // "op 7", and row 3's span is an op row too
    view.nextMatch();
    paint();
    QVERIFY(view.describeAt(QPoint(TimelineView::kLabelWidth + 10, view.rowTop(1) + 3)).isEmpty()); // an empty row
    QVERIFY(
        view.describeAt(QPoint(TimelineView::kLabelWidth + 10, view.rowTop(0) + 3)).startsWith(QStringLiteral("op 7")));
    view.setData(nullptr);
    paint();
}

void TestTimelineView::scrollsAndCollapses()
{
    // 40 streams with kernel rows in a short view: collapsed at first (more than 12 streams), the
    // scroll range is the rows' height less the view's, and expanding one stream adds its kernel row.
    auto data = std::make_shared<TimelineData>();
    std::vector<std::int64_t> streams;
    for (int s = 0; s < 40; ++s)
        streams.push_back(s);
    StreamRowsBuilder rows(*data, streams);
    for (int s = 0; s < 40; ++s) {
        rows.addOp(s, s * 1e-6, (s + 5) * 1e-6, static_cast<std::uint32_t>(s), 0);
        rows.addKernel(s, s * 1e-6, (s + 5) * 1e-6, 0, { "k", static_cast<std::uint32_t>(s), 32, {} });
    }
    data->rows.finish();
    data->latency = data->rows.lastEnd();
    TimelineView view;
    view.resize(800, 300);
    view.setData(data);
    QVERIFY(view.isCollapsed(0));
    QCOMPARE(view.layout().contentHeight(), 40 * TimelineView::kRowHeight);
    const int page = 300 - TimelineView::kRulerHeight;
    QCOMPARE(view.maxScrollY(), 40 * TimelineView::kRowHeight + 4 - page);
    view.setScrollY(100000);
    QCOMPARE(view.scrollY(), view.maxScrollY());
    view.setScrollY(-5);
    QCOMPARE(view.scrollY(), 0);
    view.setCollapsed(78, false); // the last stream
    QCOMPARE(view.maxScrollY(), 40 * TimelineView::kRowHeight + TimelineView::kKernelRowHeight + 4 - page);
    view.ensureRowVisible(79);
    QVERIFY(view.rowTop(79) + view.rowHeight(79) <= view.height());
    QCOMPARE(view.rowAt(view.rowTop(79) + 2), 79);
    view.setAllCollapsed(false);
    QCOMPARE(view.layout().contentHeight(), 40 * (TimelineView::kRowHeight + TimelineView::kKernelRowHeight));
    // A few streams start expanded.
    auto few = std::make_shared<TimelineData>();
    StreamRowsBuilder fewRows(*few, { 0, 1 });
    fewRows.addOp(0, 0, 1e-6, 0, 0);
    few->rows.finish();
    view.setData(few);
    QVERIFY(!view.isCollapsed(0));
    QCOMPARE(view.maxScrollY(), 0);
}

// Every op kind its own colour, far enough from every other kind's to tell apart (RGB distance);
// the pairs a network mixes (a transformer's Add and Reshape; Conv, Transpose and LayerNorm; Div
// and Gemm) once shared one.
void TestTimelineView::opKindsGetDistinctColours()
{
    const auto kinds = static_cast<std::uint32_t>(opsched::kLastOpKind) + 1;
    double closest = 1e9;
    for (std::uint32_t a = 0; a < kinds; ++a)
        for (std::uint32_t b = a + 1; b < kinds; ++b) {
            const QColor x = opsched::spanColour(a), y = opsched::spanColour(b);
            const double d = std::hypot(x.red() - y.red(), x.green() - y.green(), x.blue() - y.blue());
            QVERIFY2(d >= 20, qPrintable(QStringLiteral("%1 and %2: %3").arg(a).arg(b).arg(d)));
            closest = std::min(closest, d);
        }
    // Light enough for black labels: every kind's value above 60%.
    for (std::uint32_t k = 0; k < kinds; ++k)
        QVERIFY(opsched::spanColour(k).value() >= 150);
    QVERIFY(closest >= 20);
}

void TestTimelineView::mappingsColourByDeviceAsTheDagDoes()
{
    // Two devices each running a Conv: by op kind they would look alike; on a mapping's timeline
    // each takes its device's colour, the one the DAG gives that device.
    auto data = std::make_shared<TimelineData>();
    StreamRowsBuilder rows(*data, { 0, 1 });
    rows.addOp(0, 0.0, 1e-3, 0, 0);
    rows.addOp(1, 0.0, 1e-3, 1, 0);
    data->rows.finish();
    data->latency = 1e-3;
    auto sample = [&](bool byDevice, std::size_t row) {
        data->coloursByDevice = byDevice;
        TimelineView view;
        view.resize(600, 200);
        view.setData(data);
        QImage image(600, 200, QImage::Format_ARGB32);
        {
            QPainter p(&image);
            view.render(p, image.size());
        }
        return QColor(image.pixel(TimelineView::kLabelWidth + 200, view.rowTop(row) + 3));
    };
    QCOMPARE(sample(false, 0).rgb(), sample(false, 2).rgb()); // the same kind, the same colour
    QCOMPARE(sample(true, 0).rgb(), groupColour(0).rgb());
    QCOMPARE(sample(true, 2).rgb(), groupColour(1).rgb());
}

QTEST_MAIN(TestTimelineView)
#include "tst_timelineview.moc"
