// TimeRuler: 1-2-5 steps, the unit and decimals of the labels, minor ticks, and what the ruler does
// with degenerate axes.
#include "timeline/time_ruler.h"

#include <QTest>

#include <cmath>
#include <string>

using namespace opsched;

class TestTimeRuler : public QObject {
    Q_OBJECT

private slots:
    void niceSteps_data();
    void niceSteps();
    void formatsTimes_data();
    void formatsTimes();
    void formatsDurations_data();
    void formatsDurations();
    void ticksForAxes_data();
    void ticksForAxes();
    void majorsAreFarEnoughApartAndAligned();
    void degenerateAxes();
};

void TestTimeRuler::niceSteps_data()
{
    QTest::addColumn<double>("minimum");
    QTest::addColumn<double>("step");
    QTest::newRow("1") << 1.0 << 1.0;
    QTest::newRow("1.01 -> 2") << 1.01 << 2.0;
    QTest::newRow("2 stays 2") << 2.0 << 2.0;
    QTest::newRow("2e-6 stays 2e-6") << 2e-6 << 2e-6;
    QTest::newRow("2.5 -> 5") << 2.5 << 5.0;
    QTest::newRow("5.1 -> 10") << 5.1 << 10.0;
    QTest::newRow("0.03 -> 0.05") << 0.03 << 0.05;
    QTest::newRow("7e-9 -> 1e-8") << 7e-9 << 1e-8;
    QTest::newRow("1.2e-4 -> 2e-4") << 1.2e-4 << 2e-4;
    QTest::newRow("zero") << 0.0 << 0.0;
    QTest::newRow("negative") << -1.0 << 0.0;
    QTest::newRow("nan") << std::nan("") << 0.0;
}

void TestTimeRuler::niceSteps()
{
    QFETCH(double, minimum);
    QFETCH(double, step);
    const double got = niceStep(minimum);
    if (step == 0)
        QCOMPARE(got, 0.0);
    else
        QVERIFY2(std::abs(got - step) <= step * 1e-9, qPrintable(QString::number(got, 'g', 17)));
}

void TestTimeRuler::formatsTimes_data()
{
    QTest::addColumn<double>("seconds");
    QTest::addColumn<double>("magnitude");
    QTest::addColumn<double>("resolution");
    QTest::addColumn<QString>("text");
    QTest::newRow("ms, one decimal") << 0.0125 << 0.0125 << 0.0005 << "12.5 ms";
    QTest::newRow("ms, whole") << 0.012 << 0.02 << 0.002 << "12 ms";
    QTest::newRow("ms with us resolution") << 0.012001 << 0.02 << 1e-6 << "12.001 ms";
    QTest::newRow("us") << 250e-6 << 900e-6 << 50e-6 << "250 us";
    QTest::newRow("us, fractional") << 2.5e-6 << 9e-6 << 0.5e-6 << "2.5 us";
    QTest::newRow("ns") << 40e-9 << 900e-9 << 10e-9 << "40 ns";
    QTest::newRow("s") << 1.5 << 3.0 << 0.5 << "1.5 s";
    QTest::newRow("zero in ms") << 0.0 << 0.01 << 0.002 << "0 ms";
    QTest::newRow("no negative zero") << -1e-12 << 0.01 << 0.001 << "0 ms";
}

void TestTimeRuler::formatsTimes()
{
    QFETCH(double, seconds);
    QFETCH(double, magnitude);
    QFETCH(double, resolution);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(formatTime(seconds, magnitude, resolution)), text);
}

void TestTimeRuler::formatsDurations_data()
{
    QTest::addColumn<double>("seconds");
    QTest::addColumn<QString>("text");
    QTest::newRow("ms") << 1.234e-3 << "1.23 ms";
    QTest::newRow("tens of ms") << 12.34e-3 << "12.3 ms";
    QTest::newRow("us") << 456e-6 << "456 us";
    QTest::newRow("ns") << 12e-9 << "12 ns";
    QTest::newRow("s") << 2.0 << "2.00 s";
    QTest::newRow("zero") << 0.0 << "0 ns";
    // A difference that rounds to nothing has no sign (the Diff view showed "-0 ns").
    QTest::newRow("negative zero") << -0.0 << "0 ns";
    QTest::newRow("rounds to zero") << -0.3e-9 << "0 ns";
    QTest::newRow("negative") << -1.234e-3 << "-1.23 ms";
}

void TestTimeRuler::formatsDurations()
{
    QFETCH(double, seconds);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(formatDuration(seconds)), text);
}

void TestTimeRuler::ticksForAxes_data()
{
    QTest::addColumn<double>("start");
    QTest::addColumn<double>("end");
    QTest::addColumn<double>("width");
    QTest::addColumn<double>("step");
    QTest::addColumn<QString>("unit");
    QTest::addColumn<QString>("firstLabel");
    QTest::addColumn<QString>("secondLabel");
    // 10 ms over 1000 px, majors >= 80 px apart: 0.8 ms -> 1 ms.
    QTest::newRow("10 ms") << 0.0 << 10e-3 << 1000.0 << 1e-3 << "ms"
                           << "0 ms"
                           << "1 ms";
    // 3 ms over 1000 px: 0.24 ms -> 0.5 ms, labels with one decimal.
    QTest::newRow("3 ms") << 0.0 << 3e-3 << 1000.0 << 0.5e-3 << "ms"
                          << "0.0 ms"
                          << "0.5 ms";
    // Zoomed deep into a 12 ms run: labels keep the ms unit and gain decimals.
    QTest::newRow("12 ms + 40 us") << 12e-3 << 12.04e-3 << 800.0 << 5e-6 << "ms"
                                   << "12.000 ms"
                                   << "12.005 ms";
    QTest::newRow("900 us") << 0.0 << 900e-6 << 900.0 << 100e-6 << "us"
                            << "0 us"
                            << "100 us";
    QTest::newRow("2 us") << 0.0 << 2e-6 << 1000.0 << 200e-9 << "us"
                          << "0.0 us"
                          << "0.2 us";
    QTest::newRow("800 ns") << 0.0 << 800e-9 << 1000.0 << 100e-9 << "ns"
                            << "0 ns"
                            << "100 ns";
    QTest::newRow("offset start") << 3.3e-3 << 7.3e-3 << 1000.0 << 0.5e-3 << "ms"
                                  << "3.5 ms"
                                  << "4.0 ms";
}

void TestTimeRuler::ticksForAxes()
{
    QFETCH(double, start);
    QFETCH(double, end);
    QFETCH(double, width);
    QFETCH(double, step);
    QFETCH(QString, unit);
    QFETCH(QString, firstLabel);
    QFETCH(QString, secondLabel);
    const TimeRuler r = makeRuler(TimeAxis(start, end, width));
    QVERIFY2(std::abs(r.step - step) < step * 1e-9, qPrintable(QString::number(r.step, 'g', 17)));
    QCOMPARE(QString::fromStdString(r.unit), unit);
    const auto majors = r.majors();
    QVERIFY(majors.size() >= 2);
    QCOMPARE(QString::fromStdString(majors[0]->label), firstLabel);
    QCOMPARE(QString::fromStdString(majors[1]->label), secondLabel);
    // Every tick inside the axis, ascending, x matching time.
    const TimeAxis axis(start, end, width);
    for (std::size_t i = 0; i < r.ticks.size(); ++i) {
        QVERIFY(r.ticks[i].time >= start - step * 1e-6 && r.ticks[i].time <= end + step * 1e-6);
        QVERIFY(std::abs(r.ticks[i].x - axis.toX(r.ticks[i].time)) < 1e-6);
        if (i > 0)
            QVERIFY(r.ticks[i].time > r.ticks[i - 1].time);
        QCOMPARE(r.ticks[i].label.empty(), !r.ticks[i].major);
    }
}

void TestTimeRuler::majorsAreFarEnoughApartAndAligned()
{
    // Across many zoom levels: majors are >= the asked spacing apart but less than 2.5x it (the
    // next 1-2-5 step), land on multiples of the step, and labels never repeat.
    for (double duration = 1e-8; duration < 10; duration *= 1.37) {
        const TimeAxis axis(duration * 0.3, duration * 1.3, 1200);
        const TimeRuler r = makeRuler(axis, 90);
        const auto majors = r.majors();
        const double px = r.step / axis.secondsPerPixel();
        QVERIFY2(px >= 90 - 1e-6 && px < 90 * 2.5 + 1e-6, qPrintable(QString::number(px)));
        QVERIFY(!majors.empty());
        for (std::size_t i = 0; i < majors.size(); ++i) {
            const double k = majors[i]->time / r.step;
            QVERIFY(std::abs(k - std::round(k)) < 1e-6);
            if (i > 0)
                QVERIFY2(majors[i]->label != majors[i - 1]->label, majors[i]->label.c_str());
        }
        if (r.minorStep > 0)
            QVERIFY(r.minorStep / axis.secondsPerPixel() >= 6 - 1e-9);
    }
}

void TestTimeRuler::degenerateAxes()
{
    // TimeAxis never has zero duration or width; the ruler still gives few, finite ticks.
    const TimeRuler tiny = makeRuler(TimeAxis(0.5, 0.5, 0));
    QVERIFY(tiny.ticks.size() <= 3);
    for (const auto& t : tiny.ticks)
        QVERIFY(std::isfinite(t.x));
    const TimeRuler huge = makeRuler(TimeAxis(0, 1e6, 100000), 1);
    QVERIFY(huge.ticks.size() <= 100001);
}

QTEST_APPLESS_MAIN(TestTimeRuler)
#include "tst_timeruler.moc"
