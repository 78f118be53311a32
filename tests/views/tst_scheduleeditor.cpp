// Hand editing: the tree model under QAbstractItemModelTester, drag-and-drop as the view performs
// it, the verdict after each edit, undo and redo.
#include "schedules/schedule_editor.h"

#include "model/model_ref.h"
#include "plan/schedule_edit.h"
#include "schedule/basic_schedulers.h"

#include <QAbstractItemModelTester>
#include <QMimeData>
#include <QSignalSpy>
#include <QTest>
#include <QTreeView>
#include <QUndoStack>

using namespace opsched;

class TestScheduleEditor : public QObject {
    Q_OBJECT

private slots:
    void modelShape()
    {
        auto g = std::make_shared<const Graph>(loadModel("zoo:googlenet"));
        ScheduleEditorModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
        model.setGraph(g);
        const Schedule greedy = greedySchedule(*g);
        model.setSchedule(greedy);
        QCOMPARE(model.rowCount(), static_cast<int>(greedy.stages.size()));
        const QModelIndex stage0 = model.index(0, 0);
        QCOMPARE(model.kind(stage0), ScheduleEditorModel::StageItem);
        const QModelIndex group0 = model.index(0, 0, stage0);
        QCOMPARE(model.kind(group0), ScheduleEditorModel::GroupItem);
        const QModelIndex op0 = model.index(0, 0, group0);
        QCOMPARE(model.kind(op0), ScheduleEditorModel::OpItem);
        QCOMPARE(op0.data().toString(), QStringLiteral("conv1"));
        QCOMPARE(model.parent(op0), group0);
        QCOMPARE(model.indexOf(*g->findOp("conv1")), op0);
        QVERIFY(model.flags(op0) & Qt::ItemIsDragEnabled);
        QVERIFY(model.flags(group0) & Qt::ItemIsDropEnabled);
        model.setSchedule(sequentialSchedule(*g));
        QCOMPARE(model.rowCount(), static_cast<int>(g->opCount()));
    }

    void editsAreJudgedAndUndoable()
    {
        auto g = std::make_shared<const Graph>(loadModel("zoo:squeezenet"));
        ScheduleEditor editor;
        const Schedule seq = sequentialSchedule(*g);
        editor.edit(g, seq, "sim:v100", false);
        QVERIFY(editor.isValid());
        const double start = editor.latency();
        QVERIFY(start > 0);

        // Valid: fire2.expand1x1 runs beside fire2.expand3x3.
        const auto e3 = findOp(seq, *g->findOp("fire2.expand3x3"));
        editor.apply(moveOp(seq, *g->findOp("fire2.expand1x1"), e3->stage, 1, 0), QStringLiteral("pair"));
        QVERIFY(editor.isValid());
        QVERIFY(editor.latency() > 0);
        QVERIFY(editor.latency() != start);
        const double paired = editor.latency();

        // Invalid: conv1 after maxpool1; the verdict says why.
        editor.apply(moveOp(editor.schedule(), *g->findOp("conv1"), 1, 1, 0), QStringLiteral("break"));
        QVERIFY(!editor.isValid());
        QVERIFY2(editor.verdict().contains(QStringLiteral("'conv1' -> 'maxpool1'")), qPrintable(editor.verdict()));

        editor.undoStack()->undo();
        QVERIFY(editor.isValid());
        QCOMPARE(editor.latency(), paired);
        editor.undoStack()->undo();
        QCOMPARE(editor.schedule(), seq);
        QCOMPARE(editor.latency(), start);
        editor.undoStack()->redo();
        QCOMPARE(editor.latency(), paired);
    }

    void editsKeepTheTreeOpen()
    {
        auto g = std::make_shared<const Graph>(loadModel("zoo:squeezenet"));
        ScheduleEditor editor;
        const Schedule seq = sequentialSchedule(*g);
        editor.edit(g, seq, "sim:v100", false);
        QTreeView* tree = editor.tree();
        ScheduleEditorModel* model = editor.model();
        const QModelIndex stage3 = model->index(3, 0);
        QVERIFY(tree->isExpanded(stage3)); // stages open at first
        const QModelIndex group = model->index(0, 0, stage3);
        QVERIFY(!tree->isExpanded(group));
        tree->expand(group);
        tree->collapse(model->index(5, 0));
        QVERIFY(!editor.hasUnsavedEdits());

        const auto e3 = findOp(seq, *g->findOp("fire2.expand3x3"));
        editor.apply(moveOp(seq, *g->findOp("fire2.expand1x1"), e3->stage, 1, 0), QStringLiteral("pair"));
        // The model was reset, the user's tree was not: the group stays open, stage 5 closed.
        QVERIFY(tree->isExpanded(model->index(3, 0)));
        QVERIFY(tree->isExpanded(model->index(0, 0, model->index(3, 0))));
        QVERIFY(!tree->isExpanded(model->index(5, 0)));
        QVERIFY(tree->isExpanded(model->index(4, 0)));
        QVERIFY(editor.hasUnsavedEdits());
        editor.markSaved();
        QVERIFY(!editor.hasUnsavedEdits());
        editor.undoStack()->undo();
        QVERIFY(editor.hasUnsavedEdits()); // back before the saved state
        // A new schedule opens with every stage expanded again.
        editor.edit(g, seq, "sim:v100", false);
        QVERIFY(tree->isExpanded(model->index(5, 0)));
        QVERIFY(!editor.hasUnsavedEdits());
    }

    void dragAndDropMovesAnOp()
    {
        auto g = std::make_shared<const Graph>(loadModel("zoo:squeezenet"));
        ScheduleEditor editor;
        const Schedule seq = sequentialSchedule(*g);
        editor.edit(g, seq, "sim:h100", false);
        ScheduleEditorModel* model = editor.model();
        const QModelIndex dragged = model->indexOf(*g->findOp("fire2.expand1x1"));
        std::unique_ptr<QMimeData> mime(model->mimeData({ dragged }));
        QVERIFY(mime);
        // Drop onto the stage of fire2.expand3x3: a new group there.
        const auto e3 = findOp(seq, *g->findOp("fire2.expand3x3"));
        const QModelIndex stage = model->index(static_cast<int>(e3->stage), 0);
        QVERIFY(model->canDropMimeData(mime.get(), Qt::MoveAction, -1, 0, stage));
        model->dropMimeData(mime.get(), Qt::MoveAction, -1, 0, stage);
        QTRY_COMPARE(editor.undoStack()->count(), 1); // the edit arrives queued
        QCOMPARE(editor.schedule().stages.size(), seq.stages.size() - 1);
        QVERIFY(editor.isValid());

        // Drop on the root: the op gets a stage of its own again.
        std::unique_ptr<QMimeData> again(model->mimeData({ model->indexOf(*g->findOp("fire2.expand1x1")) }));
        model->dropMimeData(again.get(), Qt::MoveAction, static_cast<int>(e3->stage) + 1, 0, QModelIndex());
        QTRY_COMPARE(editor.undoStack()->count(), 2);
        QCOMPARE(editor.schedule().stages.size(), seq.stages.size());
        QVERIFY(editor.isValid());
    }
};

QTEST_MAIN(TestScheduleEditor)
#include "tst_scheduleeditor.moc"
