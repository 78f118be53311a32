// TimelineView against the frame budget: 100,000 spans repaint in under 16 ms, with op rows
// alone and with a kernel row under every stream (folding and binary search do the work).
#include "timeline_view.h"

#include <QElapsedTimer>
#include <QImage>
#include <QPainter>
#include <QTest>

#include <algorithm>
#include <vector>

using namespace opsched;

class TestTimelineView : public QObject {
    Q_OBJECT

private slots:
    void repaints100kSpansInAFrame_data();
    void repaints100kSpansInAFrame();
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
            data->kernels.push_back({"k" + std::to_string(i), static_cast<std::uint32_t>(i), 64, {}});
        data->rows.addSpan(static_cast<std::size_t>(row), {t, t + d, id, static_cast<std::uint32_t>(i % 13)});
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
                data->flows.push_back({from[i].end, from[i + 1].start, static_cast<std::uint32_t>(r),
                                       static_cast<std::uint32_t>((r + 1) % rows)});
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

QTEST_MAIN(TestTimelineView)
#include "tst_timelineview.moc"
