// BarScale: the Compare view's latency axis, linear within one order of magnitude, log beyond. Data-driven.
#include "common/bar_scale.h"

#include <QTest>

#include <vector>

using opsched::BarScale;

Q_DECLARE_METATYPE(std::vector<double>)

class TestBarScale : public QObject {
    Q_OBJECT

private slots:
    void scale_data()
    {
        QTest::addColumn<std::vector<double>>("values");
        QTest::addColumn<bool>("logarithmic");
        QTest::addColumn<double>("low");
        QTest::addColumn<std::vector<double>>("ticks");
        QTest::newRow("one order: linear from 0")
            << std::vector<double> { 1e-3, 2e-3, 3e-3 } << false << 0.0 << std::vector<double> { 0, 1e-3, 2e-3, 3e-3 };
        QTest::newRow("exactly 10x stays linear")
            << std::vector<double> { 1.0, 10.0 } << false << 0.0 << std::vector<double> { 0, 2, 4, 6, 8, 10 };
        QTest::newRow("CPU beside GPU: log")
            << std::vector<double> { 0.46e-3, 61.6e-3 } << true << 1e-4 << std::vector<double> { 1e-4, 1e-3, 1e-2 };
        QTest::newRow("shortest on a decade starts one below")
            << std::vector<double> { 1.0, 100.0 } << true << 0.1 << std::vector<double> { 0.1, 1, 10, 100 };
        QTest::newRow("zeros and NaN ignored") << std::vector<double> { 0.0, std::nan(""), 5.0 } << false << 0.0
                                               << std::vector<double> { 0, 1, 2, 3, 4, 5 };
        QTest::newRow("nothing: 0..1") << std::vector<double> {} << false << 0.0
                                       << std::vector<double> { 0, 0.2, 0.4, 0.6, 0.8, 1.0 };
    }
    void scale()
    {
        QFETCH(std::vector<double>, values);
        QFETCH(bool, logarithmic);
        QFETCH(double, low);
        QFETCH(std::vector<double>, ticks);
        const BarScale s(values);
        QCOMPARE(s.logarithmic(), logarithmic);
        QVERIFY(qAbs(s.low() - low) <= 1e-12 * qMax(1.0, low));
        const auto got = s.ticks();
        QCOMPARE(got.size(), ticks.size());
        for (std::size_t i = 0; i < got.size(); ++i)
            QVERIFY2(qAbs(got[i] - ticks[i]) <= 1e-9 * qMax(1.0, qAbs(ticks[i])), qPrintable(QString::number(got[i])));
    }

    void lengthsAreMonotonicAndVisible_data()
    {
        QTest::addColumn<std::vector<double>>("values");
        QTest::newRow("linear") << std::vector<double> { 0.4e-3, 0.5e-3, 1.2e-3, 2.0e-3 };
        QTest::newRow("log") << std::vector<double> { 0.46e-3, 0.9e-3, 2.2e-3, 61.6e-3 };
    }
    void lengthsAreMonotonicAndVisible()
    {
        QFETCH(std::vector<double>, values);
        const BarScale s(values);
        const double width = 400;
        double previous = 0;
        for (const double v : values) {
            const double l = s.length(v, width);
            QVERIFY(l > previous);
            QVERIFY(l >= 1 && l <= width);
            previous = l;
        }
        QCOMPARE(s.length(values.back(), width), width); // the longest bar fills the space
        QCOMPARE(s.length(0, width), 0.0);
    }

    void logKeepsShortBarsApart()
    {
        // On a linear scale these GPU bars would be 3 and 6 px of 400: on the log one they differ by tens.
        const BarScale s({ 0.46e-3, 0.92e-3, 61.6e-3 });
        QVERIFY(s.length(0.92e-3, 400) - s.length(0.46e-3, 400) > 30);
    }
};

QTEST_APPLESS_MAIN(TestBarScale)
#include "tst_barscale.moc"
