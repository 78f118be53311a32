// TimelineRows: visible range by binary search and folding of sub-pixel spans.
#include "engine/timeline/timeline_rows.h"

#include <QTest>

using namespace opsched;

class TestTimelineRows : public QObject {
    Q_OBJECT

private slots:
    void visibleRange_data()
    {
        QTest::addColumn<double>("t0");
        QTest::addColumn<double>("t1");
        QTest::addColumn<int>("first");
        QTest::addColumn<int>("last");
        // Spans: [0,1) [2,3) [4,5) [6,7) [8,9)
        QTest::newRow("all") << -1.0 << 10.0 << 0 << 5;
        QTest::newRow("middle") << 2.5 << 4.5 << 1 << 3;
        QTest::newRow("gap only") << 1.2 << 1.8 << 1 << 1;
        QTest::newRow("touching ends") << 1.0 << 2.0 << 0 << 2;
        QTest::newRow("after") << 9.5 << 12.0 << 5 << 5;
        QTest::newRow("before") << -3.0 << -1.0 << 0 << 0;
    }
    void visibleRange()
    {
        QFETCH(double, t0);
        QFETCH(double, t1);
        QFETCH(int, first);
        QFETCH(int, last);
        TimelineRows rows;
        for (int i = 4; i >= 0; --i) // added out of order: finish() sorts
            rows.addSpan(0, { 2.0 * i, 2.0 * i + 1, static_cast<std::uint32_t>(i), 0 });
        rows.finish();
        const auto [f, l] = rows.visible(0, t0, t1);
        QCOMPARE(static_cast<int>(f), first);
        QCOMPARE(static_cast<int>(l), last);
    }

    void longSpanCoveringShortOnesIsFound()
    {
        TimelineRows rows;
        rows.addSpan(0, { 0.0, 10.0, 0, 0 });
        rows.addSpan(0, { 1.0, 2.0, 1, 0 });
        rows.finish();
        const auto [f, l] = rows.visible(0, 5.0, 6.0);
        QCOMPARE(static_cast<int>(f), 0);
        QCOMPARE(static_cast<int>(l), 2);
    }

    void tinySpansFold()
    {
        TimelineRows rows;
        // 1000 spans of 1 us back to back, then one long span.
        for (int i = 0; i < 1000; ++i)
            rows.addSpan(0, { i * 1e-6, (i + 1) * 1e-6, static_cast<std::uint32_t>(i), 0 });
        rows.addSpan(0, { 2e-3, 3e-3, 1000, 0 });
        rows.finish();
        const TimeAxis axis(0.0, 3e-3, 300.0); // 10 us per pixel: every short span is sub-pixel
        const auto items = rows.layout(0, axis, 3.0);
        QCOMPARE(static_cast<int>(items.size()), 2);
        QCOMPARE(static_cast<int>(items.front().count), 1000);
        QCOMPARE(static_cast<int>(items.back().count), 1);
        QVERIFY(qAbs(items.back().x1 - items.back().x0 - 100.0) < 1e-9);

        // Zoomed in, the same spans are drawn one by one.
        const TimeAxis zoomed(0.0, 20e-6, 400.0);
        const auto close = rows.layout(0, zoomed, 3.0);
        QCOMPARE(static_cast<int>(close.size()), 21); // [0,20us] touches spans 0..20
        for (const auto& item : close)
            QCOMPARE(static_cast<int>(item.count), 1);
    }

    void spanAtFindsTheNarrowest()
    {
        TimelineRows rows;
        rows.addSpan(0, { 0.0, 10.0, 7, 0 });
        rows.addSpan(0, { 4.0, 4.5, 8, 0 });
        rows.finish();
        const TimeAxis axis(0.0, 10.0, 100.0);
        QCOMPARE(rows.spanAt(0, axis, 42.0)->id, 8U);
        QCOMPARE(rows.spanAt(0, axis, 90.0)->id, 7U);
        QVERIFY(rows.spanAt(1, axis, 10.0) == nullptr);
    }

    void extents()
    {
        TimelineRows rows;
        rows.addSpan(2, { 3.0, 4.0, 0, 0 });
        rows.addSpan(0, { 1.0, 2.0, 1, 0 });
        rows.finish();
        QCOMPARE(static_cast<int>(rows.rowCount()), 3);
        QCOMPARE(rows.firstStart(), 1.0);
        QCOMPARE(rows.lastEnd(), 4.0);
        QCOMPARE(static_cast<int>(rows.spanCount()), 2);
    }
};

QTEST_APPLESS_MAIN(TestTimelineRows)
#include "tst_timelinerows.moc"
