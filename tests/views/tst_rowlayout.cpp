// RowLayout: heights, collapsing a stream's kernel rows, lookups by pixel, and 500 streams.
#include "timeline/row_layout.h"

#include <QTest>

using namespace opsched;

namespace {

using K = TimelineRowKind;

std::vector<K> streams(std::size_t n, std::size_t kernelRowsEach)
{
    std::vector<K> kinds;
    for (std::size_t s = 0; s < n; ++s) {
        kinds.push_back(K::Ops);
        for (std::size_t k = 0; k < kernelRowsEach; ++k)
            kinds.push_back(K::Kernels);
    }
    return kinds;
}

} // namespace

class TestRowLayout : public QObject {
    Q_OBJECT

private slots:
    void heights_data();
    void heights();
    void rowAtEveryPixel();
    void collapseHidesOnlyItsStream();
    void rowsInAWindow();
    void fiveHundredStreams();
    void empty();
};

void TestRowLayout::heights_data()
{
    QTest::addColumn<int>("streamCount");
    QTest::addColumn<int>("kernelRows");
    QTest::addColumn<bool>("collapseAll");
    QTest::addColumn<int>("contentHeight");
    QTest::newRow("1 stream, kernels") << 1 << 1 << false << 22 + 15;
    QTest::newRow("4 streams, kernels") << 4 << 1 << false << 4 * 37;
    QTest::newRow("4 streams collapsed") << 4 << 1 << true << 4 * 22;
    QTest::newRow("36 streams, ops only") << 36 << 0 << false << 36 * 22;
    QTest::newRow("36 streams collapsed") << 36 << 1 << true << 36 * 22;
    QTest::newRow("2 kernel rows each") << 3 << 2 << false << 3 * (22 + 30);
}

void TestRowLayout::heights()
{
    QFETCH(int, streamCount);
    QFETCH(int, kernelRows);
    QFETCH(bool, collapseAll);
    QFETCH(int, contentHeight);
    const auto kinds = streams(static_cast<std::size_t>(streamCount), static_cast<std::size_t>(kernelRows));
    const RowLayout layout(kinds, std::vector<bool>(kinds.size(), collapseAll));
    QCOMPARE(layout.rowCount(), kinds.size());
    QCOMPARE(layout.contentHeight(), contentHeight);
    for (std::size_t r = 0; r < kinds.size(); ++r) {
        if (kinds[r] == K::Ops) {
            QCOMPARE(layout.height(r), 22);
            QCOMPARE(layout.streamRow(r), static_cast<int>(r));
            QCOMPARE(layout.hasChildren(r), kernelRows > 0);
        } else
            QCOMPARE(layout.height(r), collapseAll ? 0 : 15);
        if (r > 0)
            QCOMPARE(layout.top(r), layout.bottom(r - 1));
    }
}

void TestRowLayout::rowAtEveryPixel()
{
    const auto kinds = streams(5, 1);
    std::vector<bool> collapsed(kinds.size(), false);
    collapsed[2] = true; // stream 1
    const RowLayout layout(kinds, collapsed);
    for (int y = -3; y < layout.contentHeight() + 3; ++y) {
        const int r = layout.rowAt(y);
        if (y < 0 || y >= layout.contentHeight()) {
            QCOMPARE(r, -1);
            continue;
        }
        QVERIFY(r >= 0);
        const auto row = static_cast<std::size_t>(r);
        QVERIFY(layout.shown(row));
        QVERIFY2(layout.top(row) <= y && y < layout.bottom(row), qPrintable(QString::number(y)));
    }
    QVERIFY(!layout.shown(3)); // stream 1's kernel row
}

void TestRowLayout::collapseHidesOnlyItsStream()
{
    const auto kinds = streams(3, 2);
    std::vector<bool> collapsed(kinds.size(), false);
    collapsed[3] = true; // the second stream's op row
    const RowLayout layout(kinds, collapsed);
    QVERIFY(layout.isCollapsed(3));
    QVERIFY(!layout.isCollapsed(0));
    QCOMPARE(layout.height(1), 15);
    QCOMPARE(layout.height(4), 0);
    QCOMPARE(layout.height(5), 0);
    QCOMPARE(layout.height(7), 15);
    QCOMPARE(layout.streamRow(5), 3);
    QCOMPARE(layout.contentHeight(), 3 * 22 + 4 * 15);
    // Collapse flags on kernel rows mean nothing.
    std::vector<bool> onKernelRow(kinds.size(), false);
    onKernelRow[1] = true;
    QCOMPARE(RowLayout(kinds, onKernelRow).contentHeight(), 3 * 22 + 6 * 15);
}

void TestRowLayout::rowsInAWindow()
{
    const auto kinds = streams(10, 1);
    const RowLayout layout(kinds, {});
    // Pixels 30..80: rows 0 (0-22) no; 1 (22-37) yes; ... up to the row containing 79.
    const auto [first, last] = layout.rowsIn(30, 80);
    QCOMPARE(first, std::size_t(1));
    QVERIFY(layout.top(last - 1) < 80 && (last == layout.rowCount() || layout.top(last) >= 80));
    const auto [f2, l2] = layout.rowsIn(-100, 0);
    QCOMPARE(l2, f2);
    const auto [f3, l3] = layout.rowsIn(0, 100000);
    QCOMPARE(f3, std::size_t(0));
    QCOMPARE(l3, layout.rowCount());
}

void TestRowLayout::fiveHundredStreams()
{
    const auto kinds = streams(500, 1);
    RowLayout layout(kinds, {});
    QCOMPARE(layout.contentHeight(), 500 * 37);
    // The last stream is where arithmetic says, and findable by pixel.
    QCOMPARE(layout.top(998), 499 * 37);
    QCOMPARE(layout.rowAt(499 * 37 + 10), 998);
    QCOMPARE(layout.rowAt(499 * 37 + 25), 999);
    const auto [first, last] = layout.rowsIn(499 * 37 - 1, 499 * 37 + 400);
    QCOMPARE(first, std::size_t(997));
    QCOMPARE(last, std::size_t(1000));
}

void TestRowLayout::empty()
{
    const RowLayout layout({}, {});
    QCOMPARE(layout.rowCount(), std::size_t(0));
    QCOMPARE(layout.contentHeight(), 0);
    QCOMPARE(layout.rowAt(0), -1);
    const auto [first, last] = layout.rowsIn(0, 100);
    QCOMPARE(first, last);
    // Kernel rows before any op row belong to no stream and always show.
    const RowLayout orphan({ K::Kernels, K::Ops, K::Kernels }, { false, true, false });
    QCOMPARE(orphan.streamRow(0), -1);
    QCOMPARE(orphan.height(0), 15);
    QCOMPARE(orphan.height(2), 0);
}

QTEST_APPLESS_MAIN(TestRowLayout)
#include "tst_rowlayout.moc"
