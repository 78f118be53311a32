// RunDiff: ops matched by id across two timelines, start and duration deltas, stream changes, ops
// present in one run only, and the sortable diff model.
#include "runs/run_diff.h"

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QTest>

using namespace opsched;

namespace {

constexpr double us = 1e-6;

struct Op {
    std::uint32_t id;
    std::int64_t stream;
    double start, end; // us
};

std::shared_ptr<TimelineData> timeline(const std::vector<Op>& ops, std::vector<std::int64_t> streams)
{
    auto d = std::make_shared<TimelineData>();
    StreamRowsBuilder rows(*d, std::move(streams));
    for (const Op& op : ops)
        rows.addOp(op.stream, op.start * us, op.end * us, op.id, 0);
    d->rows.finish();
    d->latency = d->rows.lastEnd();
    return d;
}

} // namespace

class TestRunDiff : public QObject {
    Q_OBJECT

private slots:
    void diffs_data();
    void diffs();
    void placementsUseStreamIds();
    void mergedLaunchesAndRepeats();
    void modelShowsAndSorts();
};

void TestRunDiff::diffs_data()
{
    QTest::addColumn<double>("startA");
    QTest::addColumn<double>("endA");
    QTest::addColumn<qint64>("streamA");
    QTest::addColumn<double>("startB");
    QTest::addColumn<double>("endB");
    QTest::addColumn<qint64>("streamB");
    QTest::addColumn<double>("startDelta");
    QTest::addColumn<double>("durationDelta");
    QTest::addColumn<bool>("moved");
    QTest::newRow("identical") << 0.0 << 10.0 << qint64(0) << 0.0 << 10.0 << qint64(0) << 0.0 << 0.0 << false;
    QTest::newRow("later in B") << 0.0 << 10.0 << qint64(0) << 5.0 << 15.0 << qint64(0) << 5.0 << 0.0 << false;
    QTest::newRow("earlier and longer in B")
        << 20.0 << 30.0 << qint64(1) << 10.0 << 25.0 << qint64(1) << -10.0 << 5.0 << false;
    QTest::newRow("other stream") << 0.0 << 10.0 << qint64(0) << 0.0 << 8.0 << qint64(3) << 0.0 << -2.0 << true;
}

void TestRunDiff::diffs()
{
    QFETCH(double, startA);
    QFETCH(double, endA);
    QFETCH(qint64, streamA);
    QFETCH(double, startB);
    QFETCH(double, endB);
    QFETCH(qint64, streamB);
    QFETCH(double, startDelta);
    QFETCH(double, durationDelta);
    QFETCH(bool, moved);
    // Op 0 varies; op 1 is the same in both, a fixed reference.
    const auto a = timeline({ { 0, streamA, startA, endA }, { 1, 0, 40, 50 } }, { 0, 1, 3 });
    const auto b = timeline({ { 0, streamB, startB, endB }, { 1, 0, 40, 50 } }, { 0, 1, 3 });
    const RunDiff d = diffRuns(*a, *b);
    QCOMPARE(d.ops.size(), std::size_t(2));
    const OpDiff& op = d.ops[0];
    QCOMPARE(op.op, 0U);
    QVERIFY(op.inBoth());
    QCOMPARE(op.a->stream, streamA);
    QCOMPARE(op.b->stream, streamB);
    QVERIFY(std::abs(op.startDelta() - startDelta * us) < 1e-12);
    QVERIFY(std::abs(op.durationDelta() - durationDelta * us) < 1e-12);
    QCOMPARE(op.streamChanged(), moved);
    QCOMPARE(d.streamChanges, std::size_t(moved ? 1 : 0));
    QVERIFY(!d.ops[1].streamChanged());
    QCOMPARE(d.ops[1].startDelta(), 0.0);
    QCOMPARE(d.onlyInA + d.onlyInB, std::size_t(0));
    QCOMPARE(d.latencyA, 50 * us);
    QCOMPARE(d.ops[0].name, std::string("op 0"));
}

void TestRunDiff::placementsUseStreamIds()
{
    // Streams 4 and 9: the placement says 9, not "the second op row".
    const auto a = timeline({ { 0, 4, 0, 1 }, { 1, 9, 0, 1 } }, { 4, 9 });
    const auto p = opPlacements(*a);
    QCOMPARE(p.size(), std::size_t(2));
    QCOMPARE(p[1]->stream, std::int64_t(9));
    // Without rowStreams (an older source), the op row's position.
    TimelineData bare;
    bare.rows.addSpan(0, { 0, 1, 0, 0 });
    bare.rows.addSpan(1, { 0, 1, 1, 0 });
    bare.rows.finish();
    const auto q = opPlacements(bare);
    QCOMPARE(q[1]->stream, std::int64_t(1));
}

void TestRunDiff::mergedLaunchesAndRepeats()
{
    // Op 2 only in A, op 3 only in B; ops 0 and 1 merged into one launch in B share its span.
    const auto a = timeline({ { 0, 0, 0, 5 }, { 1, 1, 0, 6 }, { 2, 0, 6, 9 } }, { 0, 1 });
    const auto b = timeline({ { 0, 0, 0, 7 }, { 1, 0, 0, 7 }, { 3, 1, 7, 9 } }, { 0, 1 });
    RunDiff d = diffRuns(*a, *b, [](std::uint32_t id) { return "n" + std::to_string(id); });
    QCOMPARE(d.ops.size(), std::size_t(4));
    QCOMPARE(d.onlyInA, std::size_t(1));
    QCOMPARE(d.onlyInB, std::size_t(1));
    QCOMPARE(d.streamChanges, std::size_t(1)); // op 1: stream 1 -> 0
    QVERIFY(!d.ops[2].b);
    QVERIFY(!d.ops[3].a);
    QCOMPARE(d.ops[3].name, std::string("n3"));
    QCOMPARE(d.ops[2].startDelta(), 0.0); // not in both: no delta
    // Empty timelines diff to nothing.
    TimelineData empty;
    empty.rows.finish();
    QVERIFY(diffRuns(empty, empty).ops.empty());
}

void TestRunDiff::modelShowsAndSorts()
{
    RunDiffModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(RunDiffModel::SortRole);
    QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const auto a = timeline({ { 0, 0, 0, 5 }, { 1, 1, 0, 6 }, { 2, 0, 6, 9 } }, { 0, 1 });
    const auto b = timeline({ { 0, 0, 0, 7 }, { 1, 0, 2, 7 }, { 3, 1, 7, 9 } }, { 0, 1 });
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
