// The GPU kernel summary: grouping by name or op type, a range, shares, CSV, and the table model.
#include "timeline/kernel_stats.h"

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QTest>

using namespace opsched;

namespace {

constexpr double us = 1e-6;

std::shared_ptr<TimelineData> sample()
{
    auto d = std::make_shared<TimelineData>();
    StreamRowsBuilder rows(*d, { 0, 1 });
    rows.addOp(0, 0, 40 * us, 0, 0);
    rows.addKernel(0, 0 * us, 10 * us, 0, { "conv", 0, 64, {} });
    rows.addKernel(0, 10 * us, 30 * us, 0, { "conv", 0, 64, {} });
    rows.addKernel(0, 30 * us, 40 * us, 3, { "relu", 0, 64, {} });
    rows.addOp(1, 0, 40 * us, 1, 1);
    rows.addKernel(1, 0 * us, 20 * us, 1, { "gemm, \"tiled\"", 1, 32, {} });
    d->rows.finish();
    d->latency = 40 * us;
    return d;
}

} // namespace

class TestKernelStats : public QObject {
    Q_OBJECT

private slots:
    void summarisesByName();
    void summarisesARange_data();
    void summarisesARange();
    void groupsByOpType();
    void writesCsv();
    void modelSortsNumbers();
    void noKernelRows();
};

void TestKernelStats::summarisesByName()
{
    const auto rows = kernelSummary(*sample());
    QCOMPARE(rows.size(), std::size_t(3));
    // Largest total first.
    QCOMPARE(rows[0].name, std::string("conv"));
    QCOMPARE(rows[0].count, std::size_t(2));
    QVERIFY(std::abs(rows[0].total - 30 * us) < 1e-12);
    QVERIFY(std::abs(rows[0].average() - 15 * us) < 1e-12);
    QVERIFY(std::abs(rows[0].min - 10 * us) < 1e-12);
    QVERIFY(std::abs(rows[0].max - 20 * us) < 1e-12);
    QVERIFY(std::abs(rows[0].share - 0.5) < 1e-12); // 30 of 60 us
    QCOMPARE(rows[1].name, std::string("gemm, \"tiled\""));
    QCOMPARE(rows[2].name, std::string("relu"));
    double shares = 0;
    for (const auto& r : rows)
        shares += r.share;
    QVERIFY(std::abs(shares - 1.0) < 1e-12);
}

void TestKernelStats::summarisesARange_data()
{
    QTest::addColumn<double>("t0");
    QTest::addColumn<double>("t1");
    QTest::addColumn<int>("groups");
    QTest::addColumn<int>("kernels");
    QTest::newRow("all") << 0.0 << 40.0 << 3 << 4;
    QTest::newRow("first 5 us") << 0.0 << 5.0 << 2 << 2;
    QTest::newRow("the relu alone") << 32.0 << 38.0 << 1 << 1;
    QTest::newRow("reversed") << 38.0 << 32.0 << 1 << 1;
    QTest::newRow("nothing") << 50.0 << 60.0 << 0 << 0;
}

void TestKernelStats::summarisesARange()
{
    QFETCH(double, t0);
    QFETCH(double, t1);
    QFETCH(int, groups);
    QFETCH(int, kernels);
    const auto rows = kernelSummary(*sample(), std::make_pair(t0 * us, t1 * us));
    QCOMPARE(static_cast<int>(rows.size()), groups);
    std::size_t n = 0;
    for (const auto& r : rows)
        n += r.count;
    QCOMPARE(static_cast<int>(n), kernels);
}

void TestKernelStats::groupsByOpType()
{
    const auto rows = kernelSummary(*sample(), std::nullopt, KernelGrouping::ByOpType,
        [](std::uint32_t c) { return c == 0 ? std::string("Conv") : "type" + std::to_string(c); });
    QCOMPARE(rows.size(), std::size_t(3));
    QCOMPARE(rows[0].name, std::string("Conv"));
    QCOMPARE(rows[0].count, std::size_t(2));
    // Without names, the class number.
    const auto unnamed = kernelSummary(*sample(), std::nullopt, KernelGrouping::ByOpType);
    QCOMPARE(unnamed[0].name, std::string("type 0"));
}

void TestKernelStats::writesCsv()
{
    const std::string csv = kernelSummaryCsv(kernelSummary(*sample()));
    QCOMPARE(QString::fromStdString(csv).split('\n').first(),
        QStringLiteral("name,count,total_us,avg_us,min_us,max_us,time_percent"));
    QVERIFY2(csv.find("conv,2,30.000,15.000,10.000,20.000,50.00\n") != std::string::npos, csv.c_str());
    // Commas and quotes in a name are quoted as RFC 4180 says.
    QVERIFY2(csv.find("\"gemm, \"\"tiled\"\"\",1,20.000") != std::string::npos, csv.c_str());
    QCOMPARE(kernelSummaryCsv({}), std::string("name,count,total_us,avg_us,min_us,max_us,time_percent\n"));
}

void TestKernelStats::modelSortsNumbers()
{
    KernelStatsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(KernelStatsModel::SortRole);
    QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRows(kernelSummary(*sample()));
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.columnCount(), int(KernelStatsModel::ColumnCount));
    QCOMPARE(model.index(0, KernelStatsModel::TotalColumn).data().toString(), QStringLiteral("30.0 us"));
    QCOMPARE(model.index(0, KernelStatsModel::ShareColumn).data().toString(), QStringLiteral("50.0 %"));
    QCOMPARE(model.headerData(KernelStatsModel::AverageColumn, Qt::Horizontal).toString(), QStringLiteral("Avg"));
    // Ascending by count: the single launches first, conv (2) last.
    proxy.sort(KernelStatsModel::CountColumn, Qt::AscendingOrder);
    QCOMPARE(proxy.index(2, KernelStatsModel::NameColumn).data().toString(), QStringLiteral("conv"));
    // By minimum: relu's 10 us ties conv's 10 us min; gemm's 20 us is largest.
    proxy.sort(KernelStatsModel::MinColumn, Qt::DescendingOrder);
    QCOMPARE(proxy.index(0, KernelStatsModel::NameColumn).data().toString(), QStringLiteral("gemm, \"tiled\""));
    model.setRows({});
    QCOMPARE(proxy.rowCount(), 0);
}

void TestKernelStats::noKernelRows()
{
    TimelineData d;
    d.rows.addSpan(0, { 0, 1, 0, 0 });
    d.rows.finish();
    QVERIFY(kernelSummary(d).empty());
}

QTEST_APPLESS_MAIN(TestKernelStats)
#include "tst_kernelstats.moc"
