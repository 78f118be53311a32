// fitName: op names in narrow boxes keep their distinctive end, in the DAG and the timeline alike.
#include "common/name_fit.h"
#include "common/name_fit_delegate.h"
#include "common/sortable_table_model.h"

#include <QFontMetrics>
#include <QGuiApplication>
#include <QStandardItemModel>
#include <QStyleOptionViewItem>
#include <QTest>

using opsched::distinctEndings;

namespace {

// The delegate's text for a cell of `width` pixels.
class ShownText : public opsched::NameFitDelegate {
public:
    QString at(const QModelIndex& index, int width) const
    {
        QStyleOptionViewItem option;
        option.rect = QRect(0, 0, width, 20);
        option.fontMetrics = QFontMetrics(QGuiApplication::font());
        initStyleOption(&option, index);
        return option.text;
    }
};

} // namespace
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

    // BERT's ops: every layer has "attn.scores"; the ending that tells them apart keeps the layer.
    void distinctEndingsKeepWhatDiffers_data()
    {
        QTest::addColumn<QStringList>("names");
        QTest::addColumn<QStringList>("endings");
        QTest::newRow("layers") << QStringList { "encoder.layer3.attn.scores", "encoder.layer4.attn.scores",
            "encoder.layer3.ffn.gelu" }
                                << QStringList { "layer3.attn.scores", "layer4.attn.scores", "gelu" };
        QTest::newRow("slash paths") << QStringList { "/encoder/layers.0/mlp/MatMul", "/encoder/layers.1/mlp/MatMul",
            "/head/MatMul" } << QStringList { "0/mlp/MatMul", "1/mlp/MatMul", "head/MatMul" };
        QTest::newRow("unique last components") << QStringList { "Mixed_5b.branch1x1", "Mixed_5b.branch5x5_1" }
                                                << QStringList { "branch1x1", "branch5x5_1" };
        QTest::newRow("a name twice stays whole")
            << QStringList { "a.x", "a.x", "b.x" } << QStringList { "a.x", "a.x", "b.x" };
    }
    void distinctEndingsKeepWhatDiffers()
    {
        QFETCH(QStringList, names);
        QFETCH(QStringList, endings);
        const std::vector<QString> got = distinctEndings(std::vector<QString>(names.begin(), names.end()));
        QCOMPARE(QStringList(got.begin(), got.end()), endings);
    }

    // Narrow boxes of two layers' "scores" read apart: the distinct ending, or its middle elided.
    void narrowBoxesOfTwoLayersDiffer()
    {
        const QFontMetrics fm(QGuiApplication::font());
        const std::vector<QString> names { QStringLiteral("bert.encoder.layer3.attention.self.scores"),
            QStringLiteral("bert.encoder.layer4.attention.self.scores") };
        const auto endings = distinctEndings(names);
        for (const char* room : { "layer3.attention.self.scores", "layer3.att…scores", "layer3…ores" }) {
            const int width = fm.horizontalAdvance(QString::fromUtf8(room));
            const QString a = fitName(names[0], endings[0], fm, width), b = fitName(names[1], endings[1], fm, width);
            QVERIFY2(a != b, qPrintable(a + " / " + b));
            QVERIFY(fm.horizontalAdvance(a) <= width);
            QVERIFY2(a.startsWith(QStringLiteral("layer3")) || a.startsWith(QStringLiteral("lay")), qPrintable(a));
        }
        // Context-free, the last component alone: the two read the same.
        const int width = fm.horizontalAdvance(QStringLiteral("scores"));
        QCOMPARE(fitName(names[0], fm, width), fitName(names[1], fm, width));
    }

    // Tables (the kernel table, the Diff's ops) fit names through the delegate: two layers' rows
    // read apart where Qt's middle elision gave both "/encoder/l…p.0/MatMul".
    void delegateKeepsWhatDiffers()
    {
        QStandardItemModel model(2, 1);
        const QStringList names { "/encoder/layers/encoder_layer_3/mlp/mlp.0/MatMul",
            "/encoder/layers/encoder_layer_4/mlp/mlp.0/MatMul" };
        const auto endings = distinctEndings(std::vector<QString>(names.begin(), names.end()));
        for (int r = 0; r < 2; ++r) {
            model.setData(model.index(r, 0), names[r]);
            model.setData(
                model.index(r, 0), endings[static_cast<std::size_t>(r)], opsched::SortableTableModel::DistinctNameRole);
        }
        const QFontMetrics fm(QGuiApplication::font());
        const ShownText delegate;
        const int width = fm.horizontalAdvance(QStringLiteral("/encoder/l…p.0/MatMul")) + 8;
        const QString a = delegate.at(model.index(0, 0), width), b = delegate.at(model.index(1, 0), width);
        QVERIFY2(a != b, qPrintable(a + " / " + b));
        QVERIFY2(a.contains(QLatin1Char('3')) && b.contains(QLatin1Char('4')), qPrintable(a + " / " + b));
        QCOMPARE(
            fm.elidedText(names[0], Qt::ElideMiddle, width - 8), fm.elidedText(names[1], Qt::ElideMiddle, width - 8));
        QCOMPARE(delegate.at(model.index(0, 0), 2000), names[0]); // room enough: the whole name
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
