#include "window/main_window.h"

#include "engine/catalog.h"
#include "engine/model.h"
#include "engine/schedule_files.h"

#include "common/export.h"
#include "common/tool_row_page.h"
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
#include "window/free_dimensions.h"
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

#include <algorithm>
#include <utility>

// The qrc is compiled into a static library, so nothing would pull its object file into the
// executable: register it explicitly. Q_INIT_RESOURCE must be used outside any namespace.
static void initOpschedResources()
{
    Q_INIT_RESOURCE(opsched);
}

namespace opsched {
namespace {

const char* const kGeometryKey = "mainWindow/geometry";
const char* const kStateKey = "mainWindow/state";
const char* const kLastDatabaseKey = "runs/lastDatabase"; // the Runs panel's database, reopened next time

// What the status bar says about where schedules would run.
QString deviceLine(QString* detail)
{
    const CudaRuntimeStatus cuda = engine::localGpus();
    if (cuda.available && !cuda.devices.empty()) {
        const CudaDeviceInfo& d = cuda.devices.front();
        *detail = QObject::tr("cuda:%1, compute capability %2.%3, %4 SMs, %5 GiB")
                      .arg(d.index)
                      .arg(d.computeMajor)
                      .arg(d.computeMinor)
                      .arg(d.multiprocessors)
                      .arg(static_cast<double>(d.totalMemoryBytes) / (1024.0 * 1024.0 * 1024.0), 0, 'f', 1);
        return QObject::tr("device: %1").arg(QString::fromStdString(d.name));
    }
    // Schedules are simulated without a device. The reason's parenthesised detail goes to the tooltip.
    *detail = QString::fromStdString(cuda.reason);
    QString reason = detail->section(QStringLiteral(" ("), 0, 0).trimmed();
    if (reason.isEmpty())
        reason = QObject::tr("no CUDA device");
    return QObject::tr("device: sim (%1)").arg(reason);
}

// Tall panels scroll instead of forcing their height on the whole right column (and window).
// In a panel that scrolls, the wheel scrolls it: a spin box or combo box under the mouse changes
// its value only once it has been clicked (has focus), so scrolling past the Batch field does not
// change the batch.
class WheelGuard : public QObject {
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        auto* widget = qobject_cast<QWidget*>(watched);
        if (event->type() != QEvent::Wheel || !widget || widget->hasFocus() || !widget->parentWidget())
            return false;
        // Hand the wheel to the parent, from where it propagates up to the scroll area.
        QCoreApplication::sendEvent(widget->parentWidget(), event);
        return true;
    }
};

QScrollArea* scrollable(QWidget* panel)
{
    auto* area = new QScrollArea;
    area->setWidget(panel);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    auto* guard = new WheelGuard(area);
    for (QWidget* field : panel->findChildren<QWidget*>())
        if (qobject_cast<QAbstractSpinBox*>(field) || qobject_cast<QComboBox*>(field)) {
            field->setFocusPolicy(Qt::StrongFocus);
            field->installEventFilter(guard);
        }
    return area;
}

// The op type a colour class stands for (timelines colour by OpKind), for the kernel summary.
QString opKindName(std::uint32_t colourClass)
{
    if (colourClass <= static_cast<std::uint32_t>(kLastOpKind))
        return QString::fromUtf8(toString(static_cast<OpKind>(colourClass)));
    return QObject::tr("other");
}

struct WaitCursor {
    WaitCursor() { QApplication::setOverrideCursor(Qt::WaitCursor); }
    ~WaitCursor() { QApplication::restoreOverrideCursor(); }
    WaitCursor(const WaitCursor&) = delete;
    WaitCursor& operator=(const WaitCursor&) = delete;
};

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
{
    initOpschedResources();
    setAcceptDrops(true);
    setWindowIcon(QIcon(QStringLiteral(":/icons/opsched.svg")));
    setWindowTitle(QStringLiteral("opsched"));

    createCentralWidget();
    createDocks();
    createActions();
    createStatusBar();
    readSettings();
    reopenLastDatabase();
}

void MainWindow::reopenLastDatabase()
{
    // The database the Runs panel showed last (or profiling wrote to) comes back on the next start.
    const QString last = QSettings().value(kLastDatabaseKey).toString();
    if (!last.isEmpty() && QFileInfo(last).isFile())
        runs_->openDatabase(last);
}

void MainWindow::rememberDatabase(const QString& path)
{
    QSettings().setValue(kLastDatabaseKey, QFileInfo(path).absoluteFilePath());
    addRecentFile(path);
}

MainWindow::~MainWindow() = default;

void MainWindow::createCentralWidget()
{
    opModel_ = new OpTableModel(this);
    opProxy_ = new QSortFilterProxyModel(this);
    opProxy_->setSourceModel(opModel_);
    opProxy_->setSortRole(OpTableModel::SortRole);
    opProxy_->setFilterKeyColumn(OpTableModel::NameColumn);
    opProxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);

    filterEdit_ = new QLineEdit;
    filterEdit_->setObjectName(QStringLiteral("opFilter"));
    filterEdit_->setPlaceholderText(tr("Filter ops by name"));
    filterEdit_->setClearButtonEnabled(true);
    connect(filterEdit_, &QLineEdit::textChanged, opProxy_, &QSortFilterProxyModel::setFilterFixedString);
    filterCount_ = new QLabel;

    opTable_ = new QTableView;
    opTable_->setObjectName(QStringLiteral("opTable"));
    opTable_->setModel(opProxy_);
    opTable_->setSelectionBehavior(QAbstractItemView::SelectRows);
    opTable_->setAlternatingRowColors(true);
    opTable_->setWordWrap(false);
    opTable_->verticalHeader()->setDefaultSectionSize(opTable_->fontMetrics().height() + 6);
    opTable_->horizontalHeader()->setStretchLastSection(true);
    // No sort column at first, so rows stay in the graph's topological order until a header is clicked.
    opTable_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    opTable_->setSortingEnabled(true);

    connect(opProxy_, &QAbstractItemModel::modelReset, this, &MainWindow::updateFilterCount);
    connect(opProxy_, &QAbstractItemModel::layoutChanged, this, &MainWindow::updateFilterCount);
    connect(opProxy_, &QAbstractItemModel::rowsInserted, this, &MainWindow::updateFilterCount);
    connect(opProxy_, &QAbstractItemModel::rowsRemoved, this, &MainWindow::updateFilterCount);

    auto* filterRow = new QHBoxLayout;
    filterRow->addWidget(filterEdit_, 1);
    filterRow->addWidget(filterCount_);

    QWidget* central = toolRowPage(filterRow, opTable_, QMargins(6, 6, 6, 0));

    // The DAG beside the table; selecting an op in one selects it in the other.
    dag_ = new DagView;
    dag_->setObjectName(QStringLiteral("dagView"));
    connect(dag_, &DagView::opSelected, this, &MainWindow::selectOpInTable);
    connect(
        opTable_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
            const QModelIndex source = opProxy_->mapToSource(current);
            if (!source.isValid())
                return;
            selected_ = OpId(source.row());
            dag_->selectOp(selected_);
            timeline_->revealOp(static_cast<std::uint32_t>(source.row()));
            properties_->show(graph_, selected_, shown_);
        });

    centralTabs_ = new QTabWidget;
    centralTabs_->setObjectName(QStringLiteral("centralTabs"));
    centralTabs_->setDocumentMode(true);
    centralTabs_->addTab(central, tr("Ops"));
    centralTabs_->addTab(dag_, tr("DAG"));

    // Until a model is open, a start page says what to do.
    startPage_ = new StartPage;
    startPage_->setObjectName(QStringLiteral("startPage"));
    connect(startPage_, &StartPage::openRequested, this, [this](const QString& ref) { openFile(ref); });
    connect(startPage_, &StartPage::openDialogRequested, this, &MainWindow::openModelDialog);
    centralStack_ = new QStackedWidget;
    centralStack_->addWidget(startPage_);
    centralStack_->addWidget(centralTabs_);
    setCentralWidget(centralStack_);
}

void MainWindow::selectOpInTable(std::uint32_t op)
{
    // Source row = op id; the proxy may sort or filter.
    const QModelIndex shown = opProxy_->mapFromSource(opModel_->index(static_cast<int>(op), 0));
    if (shown.isValid())
        opTable_->selectRow(shown.row());
}

void MainWindow::createDocks()
{
    // In this order: each dock area's tabs appear in the order their docks are tabified.
    createModelDocks();
    createTimelineDocks();
    createWorkflowDocks();
    connectProfileAndRuns();
    connectScheduleEditor();
}

// The right column: the model summary, the selected op, and the schedules.
void MainWindow::createModelDocks()
{
    summary_ = new ModelSummaryWidget;
    // Wide enough for a loaded model, so the table does not jump when the first one opens.
    summary_->setMinimumWidth(summary_->fontMetrics().averageCharWidth() * 36);
    summaryDock_ = new QDockWidget(tr("Summary"), this);
    summaryDock_->setObjectName(QStringLiteral("summaryDock")); // saveState() keys docks by object name
    summaryDock_->setWidget(scrollable(summary_)); // scrolls rather than holding the window tall
    addDockWidget(Qt::RightDockWidgetArea, summaryDock_);

    properties_ = new OpPropertiesWidget;
    properties_->setObjectName(QStringLiteral("opProperties"));
    propertiesDock_ = new QDockWidget(tr("Op"), this);
    propertiesDock_->setObjectName(QStringLiteral("propertiesDock"));
    propertiesDock_->setWidget(scrollable(properties_));
    addDockWidget(Qt::RightDockWidgetArea, propertiesDock_);
    tabifyDockWidget(summaryDock_, propertiesDock_);
    summaryDock_->raise();

    schedules_ = new SchedulePanel;
    schedulesDock_ = new QDockWidget(tr("Schedules"), this);
    schedulesDock_->setObjectName(QStringLiteral("schedulesDock"));
    schedulesDock_->setWidget(scrollable(schedules_));
    addDockWidget(Qt::RightDockWidgetArea, schedulesDock_);
    // One column of tabs on the right, so the Schedules panel (and its results) has the column's
    // whole height on a laptop screen; the status bar names the model and its op count.
    tabifyDockWidget(propertiesDock_, schedulesDock_);
    connect(schedules_, &SchedulePanel::resultSelected, this, [this](std::shared_ptr<const ScheduleResult> result) {
        showComparisonOf(schedules_->results());
        showSchedule(result);
    });
}

// The bottom row: the timeline, the comparison of results, and the diff of two runs.
void MainWindow::createTimelineDocks()
{
    // The timeline and the warps chart share one time axis: zooming one moves the other.
    timelinePanel_ = new TimelinePanel;
    timelinePanel_->setObjectName(QStringLiteral("timelinePanel"));
    timeline_ = timelinePanel_->view();
    warps_ = timelinePanel_->warps();
    connect(timeline_, &TimelineView::spanClicked, this, &MainWindow::selectOpInTable);
    connect(
        timelinePanel_, &TimelinePanel::status, this, [this](const QString& m) { statusBar()->showMessage(m, 4000); });
    timelineDock_ = new QDockWidget(tr("Timeline"), this);
    timelineDock_->setObjectName(QStringLiteral("timelineDock"));
    timelineDock_->setWidget(timelinePanel_);
    addDockWidget(Qt::BottomDockWidgetArea, timelineDock_);

    compare_ = new CompareView;
    compare_->setObjectName(QStringLiteral("compareView"));
    compare_->setModel(schedules_->results());
    compareDock_ = new QDockWidget(tr("Compare"), this);
    compareDock_->setObjectName(QStringLiteral("compareDock"));
    compareDock_->setWidget(compare_);
    addDockWidget(Qt::BottomDockWidgetArea, compareDock_);
    tabifyDockWidget(timelineDock_, compareDock_);

    // Two runs side by side on one time axis, with the per-op diff.
    diff_ = new RunComparePanel;
    diff_->setObjectName(QStringLiteral("runCompare"));
    diffDock_ = new QDockWidget(tr("Diff"), this);
    diffDock_->setObjectName(QStringLiteral("diffDock"));
    diffDock_->setWidget(diff_);
    addDockWidget(Qt::BottomDockWidgetArea, diffDock_);
    tabifyDockWidget(timelineDock_, diffDock_);
    timelineDock_->raise();
}

// Later tabs of the right column: the schedule editor, profiling, and the runs of a database.
void MainWindow::createWorkflowDocks()
{
    // Editing a stage schedule shows the edited schedule's timeline as soon as it is valid.
    editor_ = new ScheduleEditor;
    editor_->setObjectName(QStringLiteral("scheduleEditor"));
    editorDock_ = new QDockWidget(tr("Edit Schedule"), this);
    editorDock_->setObjectName(QStringLiteral("editorDock"));
    editorDock_->setWidget(editor_);
    addDockWidget(Qt::RightDockWidgetArea, editorDock_);
    tabifyDockWidget(schedulesDock_, editorDock_);
    schedulesDock_->raise();
    // Profiling as a child process, and the runs of a results database. Runs that land while a
    // batch writes show up in the Runs panel at once.
    profile_ = new ProfilePanel;
    profile_->setObjectName(QStringLiteral("profilePanel"));
    profileDock_ = new QDockWidget(tr("Profile"), this);
    profileDock_->setObjectName(QStringLiteral("profileDock"));
    profileDock_->setWidget(scrollable(profile_));
    addDockWidget(Qt::RightDockWidgetArea, profileDock_);
    tabifyDockWidget(schedulesDock_, profileDock_);
    runs_ = new RunDatabasePanel;
    runs_->setObjectName(QStringLiteral("runsPanel"));
    runsDock_ = new QDockWidget(tr("Runs"), this);
    runsDock_->setObjectName(QStringLiteral("runsDock"));
    runsDock_->setWidget(runs_);
    addDockWidget(Qt::RightDockWidgetArea, runsDock_);
    tabifyDockWidget(schedulesDock_, runsDock_);
    schedulesDock_->raise();
}

void MainWindow::connectProfileAndRuns()
{
    connect(profile_, &ProfilePanel::databaseChosen, this, [this](const QString& path) {
        if (QFileInfo(path).absoluteFilePath() != QFileInfo(runs_->path()).absoluteFilePath())
            runs_->followDatabase(path);
        rememberDatabase(path); // the default results.db too: in Recent Files, reopened next time
    });
    connect(profile_, &ProfilePanel::runLanded, runs_, &RunDatabasePanel::refresh);
    connect(schedules_, &SchedulePanel::deviceUsed, profile_, &ProfilePanel::followDevice);
    connect(profile_, &ProfilePanel::finished, this, [this](bool ok, const QString& message) {
        statusBar()->showMessage(message.section(QLatin1Char('\n'), 0, 0), 8000);
        // A Cancel the user asked for is not an error: the status bar and the panel say what happened.
        if (ok || profile_->process()->wasCancelled())
            return;
        lastError_ = message;
        if (interactive_)
            QMessageBox::warning(this, tr("Profiling did not finish"), message);
    });
    connect(runs_, &RunDatabasePanel::runShown, this, [this](std::shared_ptr<const ScheduleResult> result) {
        showComparisonOf(runs_->selectedRuns());
        showSchedule(result);
    });
    connect(runs_, &RunDatabasePanel::listed, this, [this](bool ok, const QString& message) {
        const bool report = std::exchange(reportNextListing_, false);
        // Only a database that could be read becomes the one profiling adds to, and the panel says so.
        const QString offered = std::exchange(offeredDatabase_, QString());
        if (ok && !offered.isEmpty()) {
            profile_->offerDatabase(offered);
            rememberDatabase(offered);
        }
        if (ok)
            return;
        lastError_ = message;
        if (report && interactive_)
            QMessageBox::warning(this, tr("Cannot open database"), message);
    });
    connect(runs_, &RunDatabasePanel::loadFailed, this, [this](const QString& message) {
        lastError_ = message;
        statusBar()->showMessage(message, 8000);
    });
}

void MainWindow::connectScheduleEditor()
{
    connect(editor_, &ScheduleEditor::evaluated, this, [this](bool valid, double) {
        if (!valid || !graph_ || !shown_)
            return;
        ScheduleRequest request = shown_->request;
        request.scheduler = shown_->request.scheduler + " (edited)";
        try {
            const auto edited = evaluateSchedule(*graph_, editor_->schedule(), request);
            timeline_->setData(edited->timeline, timeline_->describer());
            warps_->setData(edited->timeline);
            warps_->setAxis(timeline_->axis());
            dag_->setSchedule(&editor_->schedule());
        } catch (const Error& e) {
            statusBar()->showMessage(QString::fromStdString(e.what()), 5000);
        }
    });
}

void MainWindow::showComparisonOf(ScheduleResultsModel* model)
{
    compare_->setModel(model);
}

void MainWindow::showSchedule(const std::shared_ptr<const ScheduleResult>& result)
{
    shown_ = result;
    showRunIdentity();
    if (result && result->stored) {
        // A run from a database: op ids mean the open model's ops only when it is the same model.
        const bool sameModel = graph_ && result->stored->model.sha256 == modelFingerprint(*graph_);
        if (sameModel && result->stored->schedule) {
            // The stored schedule read against the open model: the DAG colours by its stages and
            // the op panel shows stage, group and stream.
            try {
                const ScheduleDocument doc = engine::scheduleDocumentFromJson(*graph_,
                    nlohmann::json::parse(result->stored->schedule->document.dump(
                        -1, ' ', false, nlohmann::json::error_handler_t::replace)));
                auto placed = std::make_shared<ScheduleResult>(*result);
                placed->output.schedule = doc.schedule;
                placed->output.plan = doc.executablePlan(*graph_);
                // The plan's waits and critical path over the run's measured spans.
                if (result->timeline) {
                    auto timeline = std::make_shared<TimelineData>(*result->timeline);
                    addPlanStructure(*timeline, placed->output.plan);
                    placed->timeline = std::move(timeline);
                }
                shown_ = placed;
            } catch (const Error& e) {
                statusBar()->showMessage(tr("run %1: %2").arg(result->stored->id.value()).arg(e.what()), 5000);
            }
        }
        properties_->show(graph_, selected_, sameModel ? shown_ : nullptr);
        editor_->clear();
        dag_->setSchedule(shown_->output.schedule ? &*shown_->output.schedule : nullptr);
        timelinePanel_->setData(shown_->timeline, {}, opKindName); // op names from the run itself
        diff_->addRun(runLabel(*result), shown_->timeline);
        timelineDock_->raise();
        return;
    }
    properties_->show(graph_, selected_, shown_);
    if (result && result->output.schedule && graph_) {
        // The editor evaluates at the result's batch, which the Schedules panel may have changed.
        auto graph = result->batch == graph_->batch() ? graph_
                                                      : std::make_shared<const Graph>(graph_->withBatch(result->batch));
        editor_->edit(std::move(graph), *result->output.schedule, result->request.device, result->request.cudaGraph);
    } else
        editor_->clear();
    if (!result || !graph_) {
        timelinePanel_->setData(nullptr);
        dag_->setSchedule(nullptr);
        return;
    }
    // Plan-only schedulers (Nimble, Opara) have no stages to colour by; mappings colour by device.
    if (result->mapping)
        dag_->setDevices(result->mapping->deviceOf, result->mapping->devices, result->mapping->colouring);
    else
        dag_->setSchedule(result->output.schedule ? &*result->output.schedule : nullptr);
    auto graph = graph_;
    timelinePanel_->setData(
        result->timeline,
        [graph](std::uint32_t id) {
            if (id >= graph->opCount())
                return QString();
            const Op& op = graph->op(OpId(id));
            return QStringLiteral("%1\n%2, %3")
                .arg(QString::fromStdString(op.name), QString::fromUtf8(toString(op.kind)),
                    QString::fromStdString(graph->tensor(op.output).shape.toString()));
        },
        opKindName);
    diff_->addRun(runLabel(*result), result->timeline, timeline_->describer());
}

void MainWindow::createStatusBar()
{
    modelStatus_ = new QLabel(tr("No model"));
    statusBar()->addWidget(modelStatus_, 1);
    runStatus_ = new QLabel;
    runStatus_->setObjectName(QStringLiteral("runStatus"));
    statusBar()->addWidget(runStatus_, 2);

    QString detail;
    deviceStatus_ = new QLabel(deviceLine(&detail));
    deviceStatus_->setObjectName(QStringLiteral("deviceStatus"));
    deviceStatus_->setToolTip(detail);
    statusBar()->addPermanentWidget(deviceStatus_);
}

bool MainWindow::openModel(const QString& ref, int batch)
{
    if (!confirmDiscardEdits()) {
        lastError_ = tr("kept the edited schedule open");
        return false;
    }
    std::shared_ptr<const Graph> graph;
    InputShapes opened; // the free input dimensions the model was opened with
    // As it is first; only a file that fails is read again for free input dimensions (most files
    // have none, and reading a large model twice would double the wait).
    auto load = [&](const InputShapes& shapes) {
        const WaitCursor wait; // NASNet takes a moment to build
        try {
            graph = std::make_shared<const Graph>(engine::openModel({ ref.toStdString(), batch, shapes }));
            if (!shapes.empty())
                rememberFreeDimensions(ref, QString::fromStdString(engine::shapesText(shapes)));
            opened = shapes;
            lastError_.clear();
        } catch (const Error& e) {
            lastError_ = QString::fromStdString(e.what());
        } catch (const std::exception& e) {
            lastError_ = tr("internal error: %1").arg(QString::fromStdString(e.what()));
        }
    };
    load({});
    std::vector<FreeInput> free;
    try {
        if (!graph)
            free = engine::freeDimensions({ ref.toStdString(), batch, {} });
    } catch (const Error&) { // the first error says what is wrong with the file
    }
    if (!free.empty()) {
        auto given = askFreeDimensions(this, ref, free, batch, interactive_, &lastError_);
        if (!given) {
            if (interactive_ && !lastError_.startsWith(tr("cancelled")))
                QMessageBox::warning(this, tr("Cannot open model"), lastError_);
            return false;
        }
        load(*given);
    }
    if (!graph) {
        if (interactive_)
            QMessageBox::warning(this, tr("Cannot open model"), lastError_);
        return false;
    }

    {
        const WaitCursor wait; // and to analyse (width, blocks)
        graph_ = std::move(graph);
        selected_ = OpId {};
        properties_->show(graph_, selected_, nullptr);
        opModel_->setGraph(graph_);
        // Size the short columns to their contents once; Inputs takes the rest.
        for (int c = 0; c < OpTableModel::InputsColumn; ++c)
            opTable_->resizeColumnToContents(c);
        summary_->setGraph(graph_);
        schedules_->setGraph(graph_);
        dag_->setGraph(graph_); // laid out on a worker thread
        dag_->setCriticalPath(summary_->criticalPathOps());
        diff_->clearRuns(); // runs of the previous model do not compare with this one's
        timelinePanel_->clearSearch(); // nor do its op names
        showSchedule(nullptr);
    }

    modelRef_ = ref;
    profile_->setModelRef(ref, opened);
    schedules_->setModelRef(ref, opened); // what opsched-cli map opens for measured devices
    centralStack_->setCurrentWidget(centralTabs_);
    const QString name = modelDisplayName(ref, QString::fromStdString(graph_->name()));
    setWindowTitle(QStringLiteral("opsched — %1").arg(name));
    modelStatus_->setText(tr("%1 (batch %2, %3 ops)").arg(name).arg(graph_->batch()).arg(graph_->opCount()));
    addRecentFile(ref);
    return true;
}

QString MainWindow::openModelName() const
{
    return graph_ ? modelDisplayName(modelRef_, QString::fromStdString(graph_->name())) : QString();
}

void MainWindow::showRunIdentity()
{
    // Which run the Timeline, warps and exports are about: its title and the status bar say so.
    const QString title = shown_ ? runTitle(*shown_, openModelName()) : QString();
    timelineDock_->setWindowTitle(title.isEmpty() ? tr("Timeline") : tr("Timeline — %1").arg(title));
    runStatus_->setText(title.isEmpty() ? QString() : tr("showing %1").arg(title));
    runStatus_->setToolTip(runStatus_->text());
}

void MainWindow::updateFilterCount()
{
    const int total = opModel_->rowCount();
    const int shown = opProxy_->rowCount();
    if (shown != total)
        filterCount_->setText(tr("%1 of %2 ops").arg(shown).arg(total));
    else
        filterCount_->setText(total == 1 ? tr("1 op") : tr("%1 ops").arg(total));
}

QSize MainWindow::firstStartSize(const QSize& screen)
{
    // Nine tenths of the screen, so built-in names and the results' columns fit, up to a size
    // beyond which more room only spreads the same content thinner.
    return { std::min(screen.width() * 9 / 10, 1900), std::min(screen.height() * 9 / 10, 1200) };
}

void MainWindow::readSettings()
{
    QSettings settings;
    if (!restoreGeometry(settings.value(kGeometryKey).toByteArray()))
        resize(firstStartSize(screen() ? screen()->availableGeometry().size() : QSize(1100, 700)));
    if (restoreState(settings.value(kStateKey).toByteArray()))
        return;
    // First start: the right column wide enough for its tabs, the timeline tall enough for a few
    // streams. resizeDocks() does not move tabified docks vertically, so the timeline gets a
    // minimum height for the first layout and is free again afterwards.
    timelineDock_->widget()->setMinimumHeight(200);
    QTimer::singleShot(0, this, [this] {
        // Wide enough for every column of the results table.
        resizeDocks({ schedulesDock_ }, { std::max(470, schedules_->sizeHint().width() + 30) }, Qt::Horizontal);
        // The timeline is what people come for: a good part of the window's height, more of it on
        // a laptop screen, but not so much that the Schedules panel (settings, Run and a few result
        // rows, its minimum) has to scroll: then Run seems to do nothing.
        const int share = height() * (height() < 700 ? 11 : 9) / 20;
        const int docks = height() - menuBar()->height() - statusBar()->height();
        const int above = schedules_->minimumSizeHint().height() + 60; // + the dock's title and tab bar
        resizeDocks({ timelineDock_ }, { std::max(180, std::min(share, docks - above)) }, Qt::Vertical);
        timelineDock_->widget()->setMinimumHeight(0);
    });
}

void MainWindow::writeSettings() const
{
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls() && !event->mimeData()->urls().isEmpty()
        && event->mimeData()->urls().first().isLocalFile())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    event->acceptProposedAction();
    openDroppedUrls(event->mimeData()->urls());
}

bool MainWindow::openDroppedUrls(const QList<QUrl>& urls)
{
    // A dropped file opens like File > Open; engine::openModel says what is wrong with anything else.
    if (urls.isEmpty() || !urls.first().isLocalFile())
        return false;
    return openFile(urls.first().toLocalFile());
}

void MainWindow::resizeEvent(QResizeEvent* event)
{
    QMainWindow::resizeEvent(event);
    // QMainWindow gives all new height to the central widget; the timeline keeps its share of the
    // window instead, so a taller window shows more streams.
    const int before = event->oldSize().height(), after = event->size().height();
    if (!timelineDock_ || before <= 0 || before == after || timelineDock_->isFloating() || !timelineDock_->isVisible()
        || dockWidgetArea(timelineDock_) != Qt::BottomDockWidgetArea)
        return;
    const double share = std::clamp(static_cast<double>(timelineDock_->height()) / before, 0.1, 0.8);
    resizeDocks({ timelineDock_ }, { static_cast<int>(share * after) }, Qt::Vertical);
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!confirmDiscardEdits()) {
        event->ignore();
        return;
    }
    writeSettings();
    event->accept();
}

} // namespace opsched
