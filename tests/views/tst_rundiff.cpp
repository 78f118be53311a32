// RunDiffModel: the Diff view's sortable table over diffRuns (tests/engine/tst_run_diff.cpp).
#include "runs/run_diff_model.h"
#include "support/timeline_samples.h"

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QTest>

using namespace opsched;

namespace {

using test::opTimeline;
using test::us;

} // namespace

class TestRunDiff : public QObject {
    Q_OBJECT

private slots:
    void modelShowsAndSorts();
};

void TestRunDiff::modelShowsAndSorts()
{
    RunDiffModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(RunDiffModel::SortRole);
    QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const auto a = opTimeline({ { 0, 0, 0, 5 }, { 1, 1, 0, 6 }, { 2, 0, 6, 9 } }, { 0, 1 });
    const auto b = opTimeline({ { 0, 0, 0, 7 }, { 1, 0, 2, 7 }, { 3, 1, 7, 9 } }, { 0, 1 });
    model.setDiff(diffRuns(*a, *b));
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.columnCount(), int(RunDiffModel::ColumnCount));
    QCOMPARE(model.index(1, RunDiffModel::StartDeltaColumn).data().toString(), QStringLiteral("+2.00 us"));
    QCOMPARE(model.index(1, RunDiffModel::DurationDeltaColumn).data().toString(), QStringLiteral("-1.00 us"));
    QCOMPARE(model.index(1, RunDiffModel::StreamAColumn).data().toLongLong(), 1LL);
    QCOMPARE(model.index(1, RunDiffModel::StreamBColumn).data().toLongLong(), 0LL);
    QVERIFY(model.index(1, RunDiffModel::StreamBColumn).data(Qt::ForegroundRole).isValid()); // moved: marked
    QCOMPARE(model.index(2, RunDiffModel::StartBColumn).data().toString(), QStringLiteral("—"));
    QCOMPARE(model.index(3, 0).data(RunDiffModel::OpRole).toUInt(), 3U);
    // Largest duration change first.
    proxy.sort(RunDiffModel::DurationDeltaColumn, Qt::DescendingOrder);
    QCOMPARE(proxy.index(0, 0).data(RunDiffModel::OpRole).toUInt(), 0U); // +2 us
    model.setDiff({});
    QCOMPARE(proxy.rowCount(), 0);
}

QTEST_APPLESS_MAIN(TestRunDiff)
#include "tst_rundiff.moc"
