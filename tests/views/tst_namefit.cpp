// fitName: op names in narrow boxes keep their distinctive end, in the DAG and the timeline alike.
#include "common/name_fit.h"

#include <QFontMetrics>
#include <QGuiApplication>
#include <QTest>

using opsched::fitName;

class TestNameFit : public QObject {
    Q_OBJECT

private slots:
    void fits_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("room"); // the box is as wide as this text
        QTest::addColumn<QString>("expected");
        QTest::newRow("whole") << "conv1"
                               << "conv1"
                               << "conv1";
        QTest::newRow("last component") << "Mixed_5b.branch3x3dbl_2"
                                        << "branch3x3dbl_2"
                                        << "branch3x3dbl_2";
        QTest::newRow("slash path") << "/features/denseblock1/conv2"
                                    << "conv2xx"
                                    << "conv2";
        QTest::newRow("too narrow: nothing") << "Mixed_5b.branch1x1"
                                             << "M"
                                             << "";
    }
    void fits()
    {
        QFETCH(QString, name);
        QFETCH(QString, room);
        QFETCH(QString, expected);
        const QFontMetrics fm(QGuiApplication::font());
        const QString got = fitName(name, fm, fm.horizontalAdvance(room));
        QCOMPARE(got, expected);
    }

    void longComponentKeepsItsEnd()
    {
        const QFontMetrics fm(QGuiApplication::font());
        const int room = fm.horizontalAdvance(QStringLiteral("…ter_4_left"));
        const QString got = fitName(QStringLiteral("cell_11_comb_iter_4_left"), fm, room);
        QVERIFY2(got.startsWith(QStringLiteral("…")) && got.endsWith(QStringLiteral("_4_left")), qPrintable(got));
        QVERIFY(fm.horizontalAdvance(got) <= room);
    }

    void twoBlocksStayApart()
    {
        // "Mix…" for both was the complaint: the fitted names of two blocks' branches differ.
        const QFontMetrics fm(QGuiApplication::font());
        const int room = fm.horizontalAdvance(QStringLiteral("branch5x5_1"));
        QVERIFY(fitName(QStringLiteral("Mixed_5c.branch5x5_1"), fm, room)
            != fitName(QStringLiteral("Mixed_5c.branch3x3_1"), fm, room));
    }
};

QTEST_MAIN(TestNameFit)
#include "tst_namefit.moc"
