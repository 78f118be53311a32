// The window's menus, actions and their shortcuts, and the help it shows (shortcuts, user guide,
// about): split from main_window.cpp, which builds the panels and docks.
#include "window/main_window.h"

#include "engine/catalog.h"

#include "common/export.h"
#include "dag/dag_view.h"
#include "dag/model_summary_widget.h"
#include "dag/op_properties_widget.h"
#include "dag/op_table_model.h"
#include "engine/results/schedule_result.h"
#include "graph/fingerprint.h"
#include "profile/profile_panel.h"
#include "runs/run_compare_panel.h"
#include "runs/run_database_panel.h"
#include "runs/run_identity.h"
#include "schedules/compare_view.h"
#include "schedules/schedule_editor.h"
#include "schedules/schedule_panel.h"
#include "store/records.h"
#include "timeline/time_ruler.h"
#include "timeline/timeline_panel.h"
#include "timeline/timeline_view.h"
#include "timeline/warp_chart.h"
#include "util/error.h"
#include "window/start_page.h"
#include "window/user_guide.h"
#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIcon>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QResizeEvent>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>
#include <functional>
#include <utility>

namespace opsched {

void MainWindow::createActions()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open..."), this, &MainWindow::openModelDialog);
    open->setStatusTip(tr("Open an ONNX model or an opsched results database"));
    open->setShortcut(QKeySequence::Open);
    QAction* openMapping = file->addAction(tr("Open &Mapping..."), this, &MainWindow::openMappingDialog);
    openMapping->setObjectName(QStringLiteral("openMappingAction"));
    openMapping->setStatusTip(tr("Show a mapping file written by opsched-cli map -o for the open model"));

    QMenu* zooMenu = file->addMenu(tr("Open &Built-in Network"));
    for (const auto& entry : engine::builtInNetworks()) {
        const QString name = QString::fromStdString(entry.name);
        QAction* action = zooMenu->addAction(name, this, [this, name] { openModel(QStringLiteral("zoo:") + name); });
        action->setStatusTip(QString::fromStdString(entry.summary));
        action->setToolTip(QString::fromStdString(entry.summary));
    }
    zooMenu->setToolTipsVisible(true);

    QMenu* exportMenu = file->addMenu(tr("&Export"));
    exportMenu->addAction(tr("&Schedule (JSON)..."), this, &MainWindow::exportSchedule)
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    exportMenu->addAction(tr("Chrome &Trace..."), this, [this] { exportTrace(false); });
    exportMenu->addAction(tr("&Kernels (CSV)..."), this, [this] { exportTrace(true); });
    exportMenu->addSeparator();
    exportMenu->addAction(tr("Time&line Image..."), this, [this] { exportImage(QStringLiteral("timeline")); });
    exportMenu->addAction(tr("Active &Warps Image..."), this, [this] { exportImage(QStringLiteral("warps")); });
    exportMenu->addAction(tr("&DAG Image..."), this, [this] { exportImage(QStringLiteral("dag")); });
    exportMenu->addAction(tr("&Comparison Image..."), this, [this] { exportImage(QStringLiteral("compare")); });

    recentMenu_ = file->addMenu(tr("&Recent Files"));
    updateRecentMenu();

    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));
    quit->setMenuRole(QAction::QuitRole);

    // Edit: the schedule editor's undo stack, from anywhere in the window.
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = editor_->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setObjectName(QStringLiteral("undoAction"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = editor_->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setObjectName(QStringLiteral("redoAction"));
    redo->setShortcuts({ QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y) });
    edit->addAction(undo);
    edit->addAction(redo);
    addAction(undo); // shortcuts work while the menu bar is hidden, too
    addAction(redo);

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    run->addAction(tr("&Run Scheduler"), schedules_, &SchedulePanel::run)
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    run->addAction(tr("&Cancel Scheduler"), schedules_, &SchedulePanel::cancel)
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
    run->addSeparator();
    run->addAction(tr("&Profile..."), this,
           [this] {
               profileDock_->show();
               profileDock_->raise();
               profile_->start();
           })
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    run->addAction(tr("Cancel Pro&filing"), profile_, &ProfilePanel::cancel);
    run->addSeparator();
    run->addAction(tr("Reload &Database"), runs_, &RunDatabasePanel::refresh)->setShortcut(QKeySequence::Refresh);

    viewMenu_ = menuBar()->addMenu(tr("&View"));
    // F fits whichever of the two has focus; these work from anywhere (Ctrl+0 as in most viewers).
    viewMenu_
        ->addAction(tr("Fit &DAG"), this,
            [this] {
                centralTabs_->setCurrentWidget(dag_);
                dag_->fitToView();
            })
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    viewMenu_
        ->addAction(tr("Fit &Timeline"), this,
            [this] {
                timelineDock_->raise();
                timeline_->resetZoom();
            })
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_0));
    // The DAG's hierarchy (its own keys: a click opens a group, Backspace closes, R folds).
    QAction* fold = viewMenu_->addAction(tr("F&old Repeated Groups"), this, [this](bool on) {
        centralTabs_->setCurrentWidget(dag_);
        dag_->setFoldRepeats(on);
    });
    fold->setObjectName(QStringLiteral("foldRepeatsAction"));
    fold->setCheckable(true);
    connect(dag_, &DagView::scopesChanged, fold, [this, fold] { fold->setChecked(dag_->foldsRepeats()); });
    QAction* critical = viewMenu_->addAction(tr("&Critical Path in DAG"), this, [this](bool on) {
        centralTabs_->setCurrentWidget(dag_);
        dag_->setShowCriticalPath(on);
    });
    critical->setObjectName(QStringLiteral("dagCriticalPathAction"));
    critical->setCheckable(true);
    connect(
        dag_, &DagView::scopesChanged, critical, [this, critical] { critical->setChecked(dag_->showsCriticalPath()); });
    viewMenu_
        ->addAction(tr("Open &All Groups"), this,
            [this] {
                centralTabs_->setCurrentWidget(dag_);
                dag_->expandAll();
            })
        ->setObjectName(QStringLiteral("openAllGroupsAction"));
    viewMenu_->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        viewMenu_->addAction(dock->toggleViewAction());

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&User Guide"), this, &MainWindow::showUserGuide);
    help->addAction(tr("&Keyboard Shortcuts"), this, &MainWindow::showShortcuts)
        ->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("&About opsched"), this, &MainWindow::showAbout)->setMenuRole(QAction::AboutRole);
}

QString MainWindow::shortcutsHelp() const
{
    // Read from the menus themselves, submenus and second shortcuts included, so the list cannot go
    // stale; the timeline's own keys after.
    QString rows;
    auto plain = [](const QString& text) {
        return QString(text).remove(QLatin1Char('&')).remove(QStringLiteral("...")).toHtmlEscaped();
    };
    std::function<void(QMenu*, const QString&)> list = [&](QMenu* menu, const QString& path) {
        for (QAction* a : menu->actions()) {
            if (a->menu()) {
                list(a->menu(), path + QStringLiteral(" &gt; ") + plain(a->text()));
                continue;
            }
            QStringList keys;
            for (const QKeySequence& k : a->shortcuts())
                keys << k.toString(QKeySequence::NativeText).toHtmlEscaped();
            if (!keys.isEmpty())
                rows += QStringLiteral("<tr><td><b>%1</b></td><td>%2 &gt; %3</td></tr>")
                            .arg(keys.join(QStringLiteral(", ")), path, plain(a->text()));
        }
    };
    for (QAction* menu : menuBar()->actions())
        if (menu->menu())
            list(menu->menu(), plain(menu->text()));
    const QList<QPair<QString, QString>> timeline = {
        { QStringLiteral("F"), tr("Timeline, DAG: fit the whole run or graph") },
        { QStringLiteral("W / S"), tr("Timeline: zoom in / out at the cursor") },
        { QStringLiteral("A / D"), tr("Timeline: pan left / right") },
        { QStringLiteral("Z"), tr("Timeline: zoom to the selected range (drag to select one)") },
        { QStringLiteral("Esc"), tr("Timeline: clear the selected range") },
        { QStringLiteral("Ctrl+F, F3, Shift+F3"), tr("Timeline: find an op or kernel, next, previous") },
        { QStringLiteral("Click"), tr("DAG: open a group (a name scope) and zoom onto it") },
        { QStringLiteral("Backspace, right click"), tr("DAG: close the open group (the breadcrumb's last)") },
        { QStringLiteral("R"),
            tr("DAG: fold identical groups (a transformer's layers) into one stack, or unfold them") },
    };
    for (const auto& [keys, what] : timeline)
        rows
            += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(keys.toHtmlEscaped(), what.toHtmlEscaped());
    return QStringLiteral("<table cellspacing=4>%1</table><p>%2</p>")
        .arg(rows, tr("The panels and exports are described in docs/gui.md."));
}

void MainWindow::showShortcuts()
{
    QMessageBox box(this);
    box.setWindowTitle(tr("Keyboard Shortcuts"));
    box.setTextFormat(Qt::RichText);
    box.setText(shortcutsHelp());
    box.exec();
}

void MainWindow::showUserGuide()
{
    const QString docs = findDocsFolder(QCoreApplication::applicationDirPath());
    if (docs.isEmpty()) {
        QMessageBox::information(this, tr("User Guide"),
            tr("The user guide (docs/gui.md) was not found next to opsched. It is in the docs "
               "folder of opsched's source; set OPSCHED_DOCS to that folder to open it here."));
        return;
    }
    auto* guide = new UserGuide(docs, QStringLiteral("gui.md"), this);
    guide->setAttribute(Qt::WA_DeleteOnClose);
    guide->show();
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, tr("About opsched"),
        tr("<h3>opsched %1</h3>"
           "<p>Explore how the operators of a neural network can run concurrently on a GPU: "
           "the graph's width, its blocks and its critical path, and schedules over streams.</p>")
            .arg(QCoreApplication::applicationVersion()));
}

} // namespace opsched
