#include "dag/op_table_model.h"

#include "model/model_ref.h"

#include <QAbstractItemModelTester>
#include <QTest>

using opsched::OpTableModel;

namespace {

std::shared_ptr<const opsched::Graph> load(const char* ref, std::int64_t batch = 1)
{
    return std::make_shared<const opsched::Graph>(opsched::loadModel(ref, batch));
}

} // namespace

class TestOpTableModel : public QObject {
    Q_OBJECT

private slots:
    void emptyWithoutGraph();
    void passesModelTesterAcrossResets();
    void squeezenetCells();
    void inputsNamePredecessors();
    void sortRoleGivesNumbers();
    void headers();
    void rowCountMatchesOps_data();
    void rowCountMatchesOps();
};

void TestOpTableModel::emptyWithoutGraph()
{
    OpTableModel model;
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.columnCount(), int(OpTableModel::ColumnCount));
    QVERIFY(!model.graph());
}

void TestOpTableModel::passesModelTesterAcrossResets()
{
    OpTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);

    model.setGraph(load("zoo:squeezenet"));
    QCOMPARE(model.rowCount(), 50);
    model.setGraph(load("zoo:inception_v3"));
    QCOMPARE(model.rowCount(), int(model.graph()->opCount()));
    model.setGraph(nullptr);
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(!model.data(model.index(0, 0)).isValid());
}

void TestOpTableModel::squeezenetCells()
{
    OpTableModel model;
    model.setGraph(load("zoo:squeezenet"));

    QCOMPARE(model.data(model.index(0, OpTableModel::NameColumn)).toString(), QStringLiteral("conv1"));
    QCOMPARE(model.data(model.index(0, OpTableModel::TypeColumn)).toString(), QStringLiteral("Conv"));
    QCOMPARE(model.data(model.index(0, OpTableModel::ShapeColumn)).toString(), QStringLiteral("1x96x112x112"));
    // 356,450,304 FLOP and 5,475,840 bytes (`opsched-cli info zoo:squeezenet --json`).
    QCOMPARE(model.data(model.index(0, OpTableModel::GflopColumn)).toString(), QStringLiteral("0.356"));
    QCOMPARE(model.data(model.index(0, OpTableModel::MegabytesColumn)).toString(), QStringLiteral("5.48"));
    QCOMPARE(model.data(model.index(0, OpTableModel::InputsColumn)).toString(), QString());
    QVERIFY(!model.data(model.index(0, OpTableModel::NameColumn), Qt::ToolTipRole).toString().isEmpty());

    // A batch shows in every shape.
    model.setGraph(load("zoo:squeezenet", 4));
    QCOMPARE(model.data(model.index(0, OpTableModel::ShapeColumn)).toString(), QStringLiteral("4x96x112x112"));
}

void TestOpTableModel::inputsNamePredecessors()
{
    OpTableModel model;
    model.setGraph(load("zoo:squeezenet"));
    const auto concat = model.graph()->findOp("fire2.concat");
    QVERIFY(concat);
    const int row = int(concat->value());
    QCOMPARE(model.data(model.index(row, OpTableModel::InputsColumn)).toString(),
        QStringLiteral("fire2.expand3x3, fire2.expand1x1"));
}

void TestOpTableModel::sortRoleGivesNumbers()
{
    OpTableModel model;
    model.setGraph(load("zoo:squeezenet"));
    const QModelIndex flops = model.index(0, OpTableModel::GflopColumn);
    const QVariant raw = flops.data(OpTableModel::SortRole);
    QCOMPARE(raw.typeId(), QMetaType::Double);
    QCOMPARE(raw.toDouble(), 356450304.0);
    QCOMPARE(model.index(0, OpTableModel::MegabytesColumn).data(OpTableModel::SortRole).toDouble(), 5475840.0);
    const QVariant elements = model.index(0, OpTableModel::ShapeColumn).data(OpTableModel::SortRole);
    QCOMPARE(elements.typeId(), QMetaType::LongLong);
    QCOMPARE(elements.toLongLong(), 96LL * 112 * 112);
    // Text columns sort by their text.
    QCOMPARE(model.index(0, OpTableModel::NameColumn).data(OpTableModel::SortRole).toString(), QStringLiteral("conv1"));
}

void TestOpTableModel::headers()
{
    OpTableModel model;
    const QStringList expected { "Name", "Type", "Output shape", "GFLOP", "MB moved", "Inputs" };
    for (int c = 0; c < expected.size(); ++c)
        QCOMPARE(model.headerData(c, Qt::Horizontal).toString(), expected[c]);
}

void TestOpTableModel::rowCountMatchesOps_data()
{
    QTest::addColumn<QString>("ref");
    QTest::addColumn<int>("ops");
    // Counts as `opsched-cli info` reports them.
    QTest::newRow("squeezenet") << "zoo:squeezenet" << 50;
    QTest::newRow("inception_v3") << "zoo:inception_v3" << 120;
    QTest::newRow("googlenet") << "zoo:googlenet" << 81;
    QTest::newRow("randwire") << "zoo:randwire" << 121;
    QTest::newRow("nasnet_a") << "zoo:nasnet_a" << 375;
    QTest::newRow("random") << "zoo:random?ops=30&width=4&seed=7" << 30;
}

void TestOpTableModel::rowCountMatchesOps()
{
    QFETCH(QString, ref);
    QFETCH(int, ops);
    OpTableModel model;
    model.setGraph(load(ref.toUtf8().constData()));
    QCOMPARE(model.rowCount(), ops);
    QCOMPARE(model.rowCount(), int(model.graph()->opCount()));
}

QTEST_MAIN(TestOpTableModel)
#include "tst_optablemodel.moc"
