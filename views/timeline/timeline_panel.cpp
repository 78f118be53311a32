#include "timeline/timeline_panel.h"

#include "common/column_fitter.h"
#include "common/name_fit_delegate.h"
#include "common/tool_row_page.h"
#include "timeline/kernel_stats.h"
#include "timeline/range_stats_model.h"
#include "timeline/timeline_view.h"
#include "timeline/warp_chart.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QShortcut>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace opsched {
namespace {

QTableView* makeTable(QAbstractItemModel* model, const QString& name)
{
    auto* table = new QTableView;
    table->setObjectName(name);
    table->setModel(model);
    table->setSortingEnabled(true);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setAlternatingRowColors(true);
    table->setWordWrap(false);
    table->verticalHeader()->hide();
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 4);
    table->horizontalHeader()->setStretchLastSection(false);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setMinimumSectionSize(36);
    return table;
}

} // namespace

TimelinePanel::TimelinePanel(QWidget* parent)
    : QWidget(parent)
{
    view_ = new TimelineView;
    view_->setObjectName(QStringLiteral("timeline"));
    warps_ = new WarpChart;
    warps_->setObjectName(QStringLiteral("warpChart"));

    QHBoxLayout* tools = createToolRow();
    QWidget* side = createAnalysis();

    auto* plots = new QSplitter(Qt::Vertical);
    plots->addWidget(view_);
    plots->addWidget(warps_);
    plots->setStretchFactor(0, 4);
    plots->setStretchFactor(1, 1);
    plots->setChildrenCollapsible(false);
    auto* split = new QSplitter(Qt::Horizontal);
    split->setObjectName(QStringLiteral("timelineSplit"));
    split->addWidget(plots);
    split->addWidget(side);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 1);
    split->setSizes({ 900, 380 });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(tools);
    layout->addWidget(split, 1);

    // Wiring: one axis, one cursor, one selection.
    connect(view_, &TimelineView::axisChanged, warps_, &WarpChart::setAxis);
    connect(view_, &TimelineView::cursorMoved, warps_, &WarpChart::setCursorTime);
    connect(warps_, &WarpChart::zoomRequested, view_, &TimelineView::zoomAt);
    connect(view_, &TimelineView::selectionChanged, this, [this] {
        warps_->setSelection(view_->selection());
        updateStatistics();
    });
    updateStatistics();
}

QHBoxLayout* TimelinePanel::createToolRow()
{
    search_ = new QLineEdit;
    search_->setObjectName(QStringLiteral("timelineSearch"));
    search_->setPlaceholderText(tr("Find op or kernel (Ctrl+F)"));
    search_->setClearButtonEnabled(true);
    search_->setMaximumWidth(260);
    auto* previous = new QToolButton;
    previous->setText(QStringLiteral("▲"));
    previous->setToolTip(tr("Previous match (Shift+Enter, Shift+F3)"));
    auto* next = new QToolButton;
    next->setText(QStringLiteral("▼"));
    next->setToolTip(tr("Next match (Enter, F3)"));
    matches_ = new QLabel;
    matches_->setObjectName(QStringLiteral("searchMatches"));
    flows_ = new QCheckBox(tr("Flows"));
    flows_->setObjectName(QStringLiteral("showFlows"));
    flows_->setToolTip(tr("Arrows for the plan's waits between streams"));
    critical_ = new QCheckBox(tr("Critical path"));
    critical_->setObjectName(QStringLiteral("showCriticalPath"));
    critical_->setToolTip(tr("Outline the chain of ops that sets the latency"));
    auto* collapse = new QToolButton;
    collapse->setText(tr("Collapse"));
    collapse->setToolTip(tr("Hide every stream's kernel rows (click a stream's name for one)"));
    auto* expand = new QToolButton;
    expand->setText(tr("Expand"));
    expand->setToolTip(tr("Show every stream's kernel rows"));
    auto* fit = new QToolButton;
    fit->setText(tr("Fit"));
    fit->setToolTip(tr("Show the whole run (F)"));
    auto* zoom = new QToolButton;
    zoom->setObjectName(QStringLiteral("zoomToRange"));
    zoom->setText(tr("Zoom to Range"));
    zoom->setToolTip(tr("Zoom to the selected range (Z); drag across the timeline to select one"));

    auto* tools = new QHBoxLayout;
    tools->setContentsMargins(4, 2, 4, 0);
    tools->addWidget(search_);
    tools->addWidget(previous);
    tools->addWidget(next);
    tools->addWidget(matches_);
    tools->addSpacing(12);
    tools->addWidget(flows_);
    tools->addWidget(critical_);
    tools->addStretch(1);
    tools->addWidget(collapse);
    tools->addWidget(expand);
    tools->addWidget(fit);
    tools->addWidget(zoom);

    connectSearch(previous, next);
    connect(flows_, &QCheckBox::toggled, view_, &TimelineView::setShowFlows);
    connect(critical_, &QCheckBox::toggled, view_, &TimelineView::setShowCriticalPath);
    connect(collapse, &QToolButton::clicked, this, [this] { view_->setAllCollapsed(true); });
    connect(expand, &QToolButton::clicked, this, [this] { view_->setAllCollapsed(false); });
    connect(fit, &QToolButton::clicked, view_, &TimelineView::resetZoom);
    connect(zoom, &QToolButton::clicked, view_, &TimelineView::zoomToSelection);
    return tools;
}

void TimelinePanel::connectSearch(QToolButton* previous, QToolButton* next)
{
    connect(search_, &QLineEdit::textChanged, this, [this](const QString& text) { view_->setSearchText(text); });
    connect(search_, &QLineEdit::returnPressed, this, [this] { view_->nextMatch(); });
    connect(next, &QToolButton::clicked, view_, &TimelineView::nextMatch);
    connect(previous, &QToolButton::clicked, view_, &TimelineView::previousMatch);
    connect(view_, &TimelineView::searchMoved, this, [this](int current, int count) {
        if (search_->text().trimmed().isEmpty())
            matches_->clear();
        else if (count == 0)
            matches_->setText(tr("no match"));
        else
            matches_->setText(current < 0 ? tr("%1 matches").arg(count) : tr("%1 of %2").arg(current + 1).arg(count));
    });
    auto* findShortcut = new QShortcut(QKeySequence::Find, this, [this] {
        search_->setFocus();
        search_->selectAll();
    });
    findShortcut->setContext(Qt::WidgetWithChildrenShortcut);
    auto* nextShortcut = new QShortcut(QKeySequence::FindNext, this, [this] { view_->nextMatch(); });
    nextShortcut->setContext(Qt::WidgetWithChildrenShortcut);
    auto* previousShortcut = new QShortcut(QKeySequence::FindPrevious, this, [this] { view_->previousMatch(); });
    previousShortcut->setContext(Qt::WidgetWithChildrenShortcut);
}

QWidget* TimelinePanel::createAnalysis()
{
    summary_ = new QLabel;
    summary_->setObjectName(QStringLiteral("rangeSummary"));
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    rangeTable_ = createRangeTable();
    QWidget* kernelPage = createKernelPage();

    tabs_ = new QTabWidget;
    tabs_->setObjectName(QStringLiteral("timelineAnalysis"));
    tabs_->setDocumentMode(true);
    tabs_->addTab(rangeTable_, tr("Streams"));
    tabs_->addTab(kernelPage, tr("Kernels"));
    auto* side = new QWidget;
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(4, 2, 2, 2);
    sideLayout->addWidget(summary_);
    sideLayout->addWidget(tabs_, 1);
    side->setMinimumWidth(220);
    return side;
}

QTableView* TimelinePanel::createRangeTable()
{
    rangeModel_ = new RangeStatsModel(this);
    auto* rangeProxy = new QSortFilterProxyModel(this);
    rangeProxy->setSourceModel(rangeModel_);
    rangeProxy->setSortRole(RangeStatsModel::SortRole);
    QTableView* table = makeTable(rangeProxy, QStringLiteral("rangeTable"));
    table->sortByColumn(RangeStatsModel::StreamColumn, Qt::AscendingOrder);
    // On a narrow panel (a 1024x640 screen) Conc., Kernels, then Busy % give way, so what is
    // shown needs no horizontal scrolling.
    table->horizontalHeader()->setSectionResizeMode(RangeStatsModel::StreamColumn, QHeaderView::Stretch);
    new ColumnFitter(table,
        { RangeStatsModel::ConcurrencyColumn, RangeStatsModel::KernelsColumn, RangeStatsModel::ShareColumn }, 70);
    // Clicking a stream brings its row into view.
    connect(table, &QTableView::clicked, this, [this](const QModelIndex& index) {
        view_->ensureRowVisible(index.data(RangeStatsModel::RowRole).toULongLong());
    });
    return table;
}

QWidget* TimelinePanel::createKernelPage()
{
    kernelModel_ = new KernelStatsModel(this);
    kernelProxy_ = new QSortFilterProxyModel(this);
    kernelProxy_->setSourceModel(kernelModel_);
    kernelProxy_->setSortRole(KernelStatsModel::SortRole);
    kernelTable_ = makeTable(kernelProxy_, QStringLiteral("kernelTable"));
    kernelTable_->sortByColumn(KernelStatsModel::TotalColumn, Qt::DescendingOrder); // Nsight's order
    // The numbers keep their width and the name takes what is left, elided in the middle where
    // names differ (Mixed_7c.branch3x3_2a), so every column stays in view without scrolling;
    // the full name is the tooltip.
    kernelTable_->horizontalHeader()->setSectionResizeMode(KernelStatsModel::NameColumn, QHeaderView::Stretch);
    kernelTable_->setTextElideMode(Qt::ElideMiddle);
    // Kernel names fit as the DAG fits op names: the ending that tells them apart stays.
    kernelTable_->setItemDelegateForColumn(KernelStatsModel::NameColumn, new NameFitDelegate(kernelTable_));
    // On a narrow panel Min, then Max, then Avg give way before the name becomes unreadable.
    new ColumnFitter(kernelTable_,
        { KernelStatsModel::MinColumn, KernelStatsModel::MaxColumn, KernelStatsModel::AverageColumn }, 110);
    // Clicking a kernel name finds its launches in the timeline.
    connect(kernelTable_, &QTableView::clicked, this, [this](const QModelIndex& index) {
        if (grouping_->currentIndex() == 0)
            search_->setText(index.siblingAtColumn(KernelStatsModel::NameColumn).data().toString());
    });
    grouping_ = new QComboBox;
    grouping_->setObjectName(QStringLiteral("kernelGrouping"));
    grouping_->addItems({ tr("by kernel name"), tr("by op type") });
    auto* exportCsv = new QPushButton(tr("Export CSV..."));
    auto* kernelTools = new QHBoxLayout;
    kernelTools->setContentsMargins(0, 0, 0, 0);
    kernelTools->addWidget(grouping_);
    kernelTools->addStretch(1);
    kernelTools->addWidget(exportCsv);
    QWidget* kernelPage = toolRowPage(kernelTools, kernelTable_, QMargins(2, 2, 2, 2));
    // Connected after addItems (which emits currentIndexChanged), as the statistics need the whole panel.
    connect(grouping_, &QComboBox::currentIndexChanged, this, &TimelinePanel::updateStatistics);
    connect(exportCsv, &QPushButton::clicked, this, &TimelinePanel::exportKernelCsvDialog);
    return kernelPage;
}

void TimelinePanel::setData(std::shared_ptr<const TimelineData> timeline,
    std::function<QString(std::uint32_t)> describe, std::function<QString(std::uint32_t)> typeName)
{
    typeName_ = std::move(typeName);
    view_->setData(timeline, std::move(describe));
    warps_->setData(timeline);
    warps_->setAxis(view_->axis());
    flows_->setEnabled(timeline && !timeline->flows.empty());
    critical_->setEnabled(timeline && !timeline->criticalPath.empty());
    if (!search_->text().isEmpty())
        view_->setSearchText(search_->text());
    updateStatistics();
}

void TimelinePanel::clearSearch()
{
    search_->clear();
}

void TimelinePanel::updateStatistics()
{
    const TimelineData* timeline = view_->data();
    if (!timeline) {
        summary_->setText(tr("Open a model and run a scheduler, or select a stored run, to see its timeline."));
        rangeModel_->setStats({});
        kernelModel_->setRows({});
        return;
    }
    const auto range = view_->selection();
    const double end = std::max(timeline->latency, timeline->rows.lastEnd());
    const RangeStats stats
        = range ? rangeStats(*timeline, range->first, range->second) : rangeStats(*timeline, 0.0, end);
    QString text = range ? tr("<b>Range</b> ") : tr("<b>Whole run</b> ");
    text += describeRange(stats).toHtmlEscaped();
    // Ops that run no kernel (concats written in place, reshapes) have no span: say so, or a
    // 109-op run of a 120-op model reads as ops lost.
    if (!range && timeline->modelOps > stats.ops)
        text += tr(" · %1 of the model's %2 ops run no kernel (concats written in place, views)")
                    .arg(timeline->modelOps - stats.ops)
                    .arg(timeline->modelOps);
    // The keys in a tooltip: on a laptop screen every line of this panel counts.
    if (!range)
        text += tr(" <i>(drag to measure a range)</i>");
    summary_->setText(text);
    summary_->setToolTip(tr("Drag across the timeline to measure a range; Z zooms to it, F fits, W/S zoom, A/D pan."));
    rangeModel_->setStats(stats);
    const auto grouping = grouping_->currentIndex() == 1 ? KernelGrouping::ByOpType : KernelGrouping::ByName;
    std::function<std::string(std::uint32_t)> name;
    if (typeName_)
        name = [this](std::uint32_t c) { return typeName_(c).toStdString(); };
    kernelModel_->setRows(kernelSummary(*timeline, range, grouping, name));
}

QString TimelinePanel::exportKernelCsv(const QString& path) const
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return tr("Cannot write %1: %2").arg(path, file.errorString());
    const std::string csv = kernelSummaryCsv(kernelModel_->rows());
    if (file.write(csv.data(), static_cast<qint64>(csv.size())) != static_cast<qint64>(csv.size()))
        return tr("Cannot write %1: %2").arg(path, file.errorString());
    return {};
}

void TimelinePanel::exportKernelCsvDialog()
{
    if (kernelModel_->rowCount() == 0) {
        emit status(tr("No kernels to export"));
        return;
    }
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export Kernel Summary"), QStringLiteral("kernel_summary.csv"), tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    const QString error = exportKernelCsv(path);
    if (!error.isEmpty())
        QMessageBox::warning(this, tr("Export failed"), error);
    else
        emit status(tr("Wrote %1").arg(path));
}

} // namespace opsched
