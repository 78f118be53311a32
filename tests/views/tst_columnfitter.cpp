// ColumnFitter: optional columns give way, in order, when a table is too narrow, and come back.
#include "common/column_fitter.h"

#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QStandardItemModel>
#include <QTableView>
#include <QTest>

class TestColumnFitter : public QObject {
    Q_OBJECT
private slots:
    void hidesOptionalColumnsInOrder_data();
    void hidesOptionalColumnsInOrder();
    void comesBackWhenWider();
};

namespace {

// A name column and five number columns of about the same width.
QStandardItemModel* numbers(QObject* parent)
{
    auto* model = new QStandardItemModel(3, 6, parent);
    model->setHorizontalHeaderLabels({ "Name", "Count", "Total", "Avg", "Min", "Max" });
    for (int r = 0; r < 3; ++r) {
        model->setItem(r, 0, new QStandardItem(QStringLiteral("Mixed_7c.branch3x3dbl_%1").arg(r)));
        for (int c = 1; c < 6; ++c)
            model->setItem(r, c, new QStandardItem(QStringLiteral("123.4 us")));
    }
    return model;
}

QTableView* table(QStandardItemModel* model)
{
    auto* view = new QTableView;
    view->setModel(model);
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    view->verticalHeader()->hide();
    return view;
}

int numberWidth(QTableView* view)
{
    return std::max(view->horizontalHeader()->sectionSizeHint(1),
        static_cast<const QAbstractItemView*>(view)->sizeHintForColumn(1));
}

} // namespace

void TestColumnFitter::hidesOptionalColumnsInOrder_data()
{
    // widths in number columns, besides the name's 80 px and a margin
    QTest::addColumn<double>("numberColumns");
    QTest::addColumn<int>("hidden");
    QTest::newRow("room for all five") << 5.5 << 0;
    QTest::newRow("four") << 4.5 << 1;
    QTest::newRow("three") << 3.5 << 2;
    QTest::newRow("two: all three optional hidden") << 2.5 << 3;
    QTest::newRow("one: no more to hide") << 1.2 << 3;
}

void TestColumnFitter::hidesOptionalColumnsInOrder()
{
    QFETCH(double, numberColumns);
    QFETCH(int, hidden);
    QStandardItemModel* model = numbers(this);
    QAbstractItemModelTester tester(model);
    std::unique_ptr<QTableView> view(table(model));
    auto* fitter = new opsched::ColumnFitter(view.get(), { 4, 5, 3 }, 80);
    view->show();
    QVERIFY(QTest::qWaitForWindowExposed(view.get()));
    const int frame = view->width() - view->viewport()->width();
    view->resize(80 + static_cast<int>(numberColumns * numberWidth(view.get())) + frame, 200);
    QCoreApplication::processEvents();
    QCOMPARE(fitter->hiddenCount(), hidden);
    const int order[] = { 4, 5, 3 };
    for (int i = 0; i < 3; ++i)
        QCOMPARE(view->isColumnHidden(order[i]), i < hidden);
    QVERIFY(!view->isColumnHidden(0) && !view->isColumnHidden(1) && !view->isColumnHidden(2));
    if (hidden < 3) { // what is shown fits
        int right = 0;
        for (int c = 0; c < 6; ++c)
            if (!view->isColumnHidden(c))
                right = std::max(right, view->columnViewportPosition(c) + view->columnWidth(c));
        QVERIFY2(right <= view->viewport()->width(),
            qPrintable(QStringLiteral("%1 > %2").arg(right).arg(view->viewport()->width())));
    }
}

void TestColumnFitter::comesBackWhenWider()
{
    QStandardItemModel* model = numbers(this);
    std::unique_ptr<QTableView> view(table(model));
    auto* fitter = new opsched::ColumnFitter(view.get(), { 4, 5, 3 }, 80);
    view->show();
    QVERIFY(QTest::qWaitForWindowExposed(view.get()));
    view->resize(120, 200);
    QCoreApplication::processEvents();
    QCOMPARE(fitter->hiddenCount(), 3);
    view->resize(2000, 200);
    QCoreApplication::processEvents();
    QCOMPARE(fitter->hiddenCount(), 0);
    for (int c = 0; c < 6; ++c)
        QVERIFY(!view->isColumnHidden(c));
}

QTEST_MAIN(TestColumnFitter)
#include "tst_columnfitter.moc"
