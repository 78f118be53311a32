// The application window: a model's ops as a sortable, filterable table with its summary beside it.
#pragma once

#include "graph/graph.h"

#include <QMainWindow>
#include <QMessageBox>
#include <QStringList>
#include <QUrl>

#include <functional>
#include <memory>

class QDockWidget;
class QLabel;
class QLineEdit;
class QMenu;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;
class QStackedWidget;

namespace opsched {

class DagView;
class ModelSummaryWidget;
class SchedulePanel;
class OpPropertiesWidget;
class ScheduleEditor;
class CompareView;
class TimelineView;
class TimelinePanel;
class StartPage;
class RunComparePanel;
class WarpChart;
struct ScheduleResult;
class OpTableModel;
class ProfilePanel;
class RunDatabasePanel;
class ScheduleResultsModel;

class MainWindow : public QMainWindow {
    Q_OBJECT
    // Off in tests and scripted runs: errors are recorded in lastError() instead of shown in a dialog.
    Q_PROPERTY(bool interactive READ isInteractive WRITE setInteractive)

public:
    static constexpr int kMaxRecentFiles = 8;

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // `ref` is anything engine::openModel accepts (zoo:NAME[?k=v], a file path). On failure the
    // current model stays and the error is in lastError().
    bool openModel(const QString& ref, int batch = 1);
    // Lists the runs of an opsched results database in the Runs panel (read off the GUI thread; a
    // file that is not one is reported through lastError() and, interactively, a dialog).
    void openDatabase(const QString& path);
    // Reads a mapping file (opsched-cli map -o) for the open model and shows it like a computed
    // mapping, listed in the Schedules panel. On failure (no model, another model's file, a broken
    // file) nothing changes and the error is in lastError() and, interactively, a dialog.
    bool openMappingFile(const QString& path);
    // A model, a database (.db, .sqlite, .sqlite3) or a mapping file: whatever the file is.
    bool openFile(const QString& path);
    static bool isDatabaseFile(const QString& path);

    const std::shared_ptr<const Graph>& graph() const { return graph_; }
    SchedulePanel* schedulePanel() const { return schedules_; }
    TimelineView* timelineView() const { return timeline_; }
    TimelinePanel* timelinePanel() const { return timelinePanel_; }
    RunComparePanel* runComparePanel() const { return diff_; }
    WarpChart* warpChart() const { return warps_; }
    ScheduleEditor* scheduleEditor() const { return editor_; }
    CompareView* compareView() const { return compare_; }
    OpPropertiesWidget* propertiesPanel() const { return properties_; }
    DagView* dagView() const { return dag_; }
    StartPage* startPage() const { return startPage_; }
    ProfilePanel* profilePanel() const { return profile_; }
    RunDatabasePanel* runsPanel() const { return runs_; }
    const std::shared_ptr<const ScheduleResult>& shownResult() const { return shown_; }
    // What a drop of files on the window does: opens the first local file as a model.
    bool openDroppedUrls(const QList<QUrl>& urls);
    // Selects an op (by id) in the table, and through it in the DAG and the op panel.
    void selectOpInTable(std::uint32_t op);
    // Shows a result's timeline and active warps (called when a result is selected).
    void showSchedule(const std::shared_ptr<const ScheduleResult>& result);
    QString lastError() const { return lastError_; }
    // Help > Keyboard Shortcuts: every menu action's shortcut, then the timeline's keys (HTML).
    QString shortcutsHelp() const;
    // The window's size on its first start on a screen of this (available) size.
    static QSize firstStartSize(const QSize& screen);
    QStringList recentFiles() const;

    // What to do with unexported schedule edits before they would be lost (opening another model,
    // closing): Save exports them, Discard drops them, Cancel keeps them. By default a dialog when
    // interactive, else Discard; tests answer through setDiscardEditsPrompt.
    bool confirmDiscardEdits();
    void setDiscardEditsPrompt(std::function<QMessageBox::StandardButton(const QString&)> prompt)
    {
        discardPrompt_ = std::move(prompt);
    }

    // Where an export is written: a dialog starting in the folder of the last export (else of the last
    // opened file) with `name` in it; the folder chosen is remembered. Tests answer through
    // setSaveDialog, which is given the title, the suggested path and the filter.
    QString askSavePath(const QString& title, const QString& name, const QString& filter);
    void setSaveDialog(std::function<QString(const QString&, const QString&, const QString&)> dialog)
    {
        saveDialog_ = std::move(dialog);
    }

    bool isInteractive() const { return interactive_; }
    void setInteractive(bool interactive) { interactive_ = interactive; }

protected:
    void closeEvent(QCloseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void createActions();
    void exportSchedule();
    void exportImage(const QString& what);
    void exportTrace(bool csv);
    QString openModelName() const; // the open model's display name, empty without one
    void showRunIdentity();
    void reopenLastDatabase();
    void rememberDatabase(const QString& path); // Recent Files, and reopened on the next start
    void showComparisonOf(ScheduleResultsModel* model);
    void createCentralWidget();
    void createDocks();
    void createModelDocks();
    void createTimelineDocks();
    void createWorkflowDocks();
    void connectProfileAndRuns();
    void connectScheduleEditor();
    void createStatusBar();
    void openModelDialog();
    void openMappingDialog();
    void addRecentFile(const QString& ref);
    void updateRecentMenu();
    void updateFilterCount();
    void showAbout();
    void showUserGuide();
    void showShortcuts();
    void readSettings();
    void writeSettings() const;

    std::shared_ptr<const Graph> graph_;
    QString modelRef_; // what graph_ was opened as
    QString lastError_;
    bool reportNextListing_ = false; // File > Open of a database: say so if it cannot be read
    QString offeredDatabase_; // ... and if it can, offer it to the Profile panel
    bool interactive_ = true;
    std::function<QMessageBox::StandardButton(const QString&)> discardPrompt_;
    std::function<QString(const QString&, const QString&, const QString&)> saveDialog_;

    OpTableModel* opModel_ = nullptr;
    QSortFilterProxyModel* opProxy_ = nullptr;
    QTableView* opTable_ = nullptr;
    QLineEdit* filterEdit_ = nullptr;
    QLabel* filterCount_ = nullptr;
    QStackedWidget* centralStack_ = nullptr; // the start page, then the tabs
    StartPage* startPage_ = nullptr;
    QTabWidget* centralTabs_ = nullptr; // "Ops" (the table) and "DAG"
    DagView* dag_ = nullptr;
    ScheduleEditor* editor_ = nullptr;
    QDockWidget* editorDock_ = nullptr;
    CompareView* compare_ = nullptr;
    QDockWidget* compareDock_ = nullptr;
    std::shared_ptr<const ScheduleResult> shown_; // the result in the timeline
    OpPropertiesWidget* properties_ = nullptr;
    QDockWidget* propertiesDock_ = nullptr;
    OpId selected_;
    ModelSummaryWidget* summary_ = nullptr;
    QDockWidget* summaryDock_ = nullptr;
    SchedulePanel* schedules_ = nullptr;
    QDockWidget* schedulesDock_ = nullptr;
    TimelinePanel* timelinePanel_ = nullptr;
    RunComparePanel* diff_ = nullptr;
    QDockWidget* diffDock_ = nullptr;
    TimelineView* timeline_ = nullptr;
    WarpChart* warps_ = nullptr;
    QDockWidget* timelineDock_ = nullptr;
    ProfilePanel* profile_ = nullptr;
    QDockWidget* profileDock_ = nullptr;
    RunDatabasePanel* runs_ = nullptr;
    QDockWidget* runsDock_ = nullptr;
    QMenu* viewMenu_ = nullptr;
    QMenu* recentMenu_ = nullptr;
    QLabel* modelStatus_ = nullptr;
    QLabel* runStatus_ = nullptr; // which run the Timeline shows
    QLabel* deviceStatus_ = nullptr;
};

} // namespace opsched
