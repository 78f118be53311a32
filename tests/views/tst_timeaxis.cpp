// TimeAxis: the time<->pixel mapping shared by the timeline and the warps chart. Data-driven.
#include "engine/timeline/time_axis.h"

#include <QTest>

using opsched::TimeAxis;

class TestTimeAxis : public QObject {
    Q_OBJECT

private slots:
    void mapping_data()
    {
        QTest::addColumn<double>("start");
        QTest::addColumn<double>("end");
        QTest::addColumn<double>("width");
        QTest::addColumn<double>("time");
        QTest::addColumn<double>("x");
        QTest::newRow("origin") << 0.0 << 1.0 << 100.0 << 0.0 << 0.0;
        QTest::newRow("end") << 0.0 << 1.0 << 100.0 << 1.0 << 100.0;
        QTest::newRow("middle") << 0.0 << 2e-3 << 1000.0 << 1e-3 << 500.0;
        QTest::newRow("offset") << 5e-6 << 15e-6 << 200.0 << 10e-6 << 100.0;
        QTest::newRow("left of view") << 1.0 << 2.0 << 100.0 << 0.5 << -50.0;
        QTest::newRow("right of view") << 1.0 << 2.0 << 100.0 << 3.0 << 200.0;
    }
    void mapping()
    {
        QFETCH(double, start);
        QFETCH(double, end);
        QFETCH(double, width);
        QFETCH(double, time);
        QFETCH(double, x);
        const TimeAxis axis(start, end, width);
        QVERIFY(qAbs(axis.toX(time) - x) < 1e-9);
        QVERIFY(qAbs(axis.toTime(x) - time) < 1e-15 + 1e-12 * qAbs(time));
    }

    void zoomKeepsTheAnchor_data()
    {
        QTest::addColumn<double>("factor");
        QTest::addColumn<double>("anchorX");
        QTest::newRow("in at left") << 2.0 << 0.0;
        QTest::newRow("in at middle") << 4.0 << 400.0;
        QTest::newRow("out at right") << 0.5 << 800.0;
        QTest::newRow("in off-centre") << 1.25 << 123.0;
    }
    void zoomKeepsTheAnchor()
    {
        QFETCH(double, factor);
        QFETCH(double, anchorX);
        const TimeAxis axis(0.0, 8e-3, 800.0);
        const TimeAxis zoomed = axis.zoomed(factor, anchorX);
        QVERIFY(qAbs(zoomed.toTime(anchorX) - axis.toTime(anchorX)) < 1e-15);
        QVERIFY(qAbs(zoomed.duration() - axis.duration() / factor) < 1e-15);
        QCOMPARE(zoomed.width(), axis.width());
    }

    void panMovesByPixels()
    {
        const TimeAxis axis(0.0, 1e-3, 1000.0);
        const TimeAxis moved = axis.panned(250.0);
        QVERIFY(qAbs(moved.start() - 0.25e-3) < 1e-15);
        QVERIFY(qAbs(moved.duration() - axis.duration()) < 1e-15);
        QVERIFY(qAbs(moved.panned(-250.0).start() - axis.start()) < 1e-15);
    }

    void clampKeepsTheViewInsideTheData_data()
    {
        QTest::addColumn<double>("start");
        QTest::addColumn<double>("end");
        QTest::addColumn<double>("expectedStart");
        QTest::addColumn<double>("expectedEnd");
        QTest::newRow("inside") << 0.2 << 0.4 << 0.2 << 0.4;
        QTest::newRow("before") << -0.3 << 0.2 << 0.0 << 0.5;
        QTest::newRow("after") << 0.8 << 1.3 << 0.5 << 1.0;
        QTest::newRow("wider than data") << -1.0 << 3.0 << 0.0 << 1.0;
    }
    void clampKeepsTheViewInsideTheData()
    {
        QFETCH(double, start);
        QFETCH(double, end);
        QFETCH(double, expectedStart);
        QFETCH(double, expectedEnd);
        const TimeAxis c = TimeAxis(start, end, 500.0).clamped(0.0, 1.0);
        QVERIFY2(qAbs(c.start() - expectedStart) < 1e-12, qPrintable(QString::number(c.start())));
        QVERIFY2(qAbs(c.end() - expectedEnd) < 1e-12, qPrintable(QString::number(c.end())));
    }

    void clampLimitsTheZoom()
    {
        const TimeAxis deep = TimeAxis(0.0, 1e-3, 500.0).zoomed(1e12, 10.0).clamped(0.0, 1e-3, 1e-9);
        QVERIFY(deep.duration() >= 1e-9 * 0.999);
    }

    void degenerateInputsStayUsable()
    {
        const TimeAxis a(1.0, 1.0, 0.0); // empty range, zero width
        QVERIFY(a.duration() > 0);
        QVERIFY(a.width() >= 1.0);
        QCOMPARE(a.zoomed(-1.0, 0.0), a); // a nonsensical factor changes nothing
    }
};

QTEST_APPLESS_MAIN(TestTimeAxis)
#include "tst_timeaxis.moc"
