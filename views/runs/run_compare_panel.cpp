#include "runs/run_compare_panel.h"

#include "common/export.h"
#include "common/name_fit_delegate.h"
#include "engine/timeline/timeline_breakdown.h"
#include "runs/speedup_waterfall.h"

#include "timeline/time_ruler.h"
#include "timeline/timeline_view.h"

#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace opsched {

RunComparePanel::RunComparePanel(QWidget* parent)
    : QWidget(parent)
{
    pickA_ = new QComboBox;
    pickA_->setObjectName(QStringLiteral("diffRunA"));
    pickB_ = new QComboBox;
    pickB_->setObjectName(QStringLiteral("diffRunB"));
    for (auto* pick : { pickA_, pickB_ }) {
        pick->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        pick->setMinimumContentsLength(24);
    }
    auto* swap = new QToolButton;
    swap->setText(tr("Swap"));
    auto* exportButton = new QToolButton;
    exportButton->setObjectName(QStringLiteral("diffExportBreakdown"));
    exportButton->setText(tr("Export Breakdown..."));
    exportButton->setToolTip(tr("Write where the difference comes from: CSV (the terms), PNG or SVG (the chart)"));
    summary_ = new QLabel;
    summary_->setObjectName(QStringLiteral("diffSummary"));
    summary_->setWordWrap(true);
    auto* tools = new QHBoxLayout;
    tools->setContentsMargins(4, 2, 4, 0);
    tools->addWidget(new QLabel(tr("A:")));
    tools->addWidget(pickA_, 1);
    tools->addWidget(new QLabel(tr("B:")));
    tools->addWidget(pickB_, 1);
    tools->addWidget(swap);
    tools->addWidget(exportButton);

    a_ = new TimelineView;
    a_->setObjectName(QStringLiteral("diffTimelineA"));
    b_ = new TimelineView;
    b_->setObjectName(QStringLiteral("diffTimelineB"));
    // One axis: zooming or panning either moves both.
    connect(a_, &TimelineView::axisChanged, b_, &TimelineView::setAxis);
    connect(b_, &TimelineView::axisChanged, a_, &TimelineView::setAxis);

    model_ = new RunDiffModel(this);
    auto* proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(model_);
    proxy->setSortRole(RunDiffModel::SortRole);
    table_ = new QTableView;
    table_->setObjectName(QStringLiteral("diffTable"));
    table_->setModel(proxy);
    table_->setSortingEnabled(true);
    table_->sortByColumn(RunDiffModel::StartAColumn, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 4);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(RunDiffModel::OpColumn, QHeaderView::Stretch);
    table_->setTextElideMode(Qt::ElideMiddle);
    // Op names fit as in the DAG: the ending that tells them apart stays ("Mixed…dbl_1" fitted several).
    table_->setItemDelegateForColumn(RunDiffModel::OpColumn, new NameFitDelegate(table_));
    table_->setMinimumHeight(
        table_->verticalHeader()->defaultSectionSize() * 2 + table_->horizontalHeader()->sizeHint().height());
    // Picking an op shows it in both timelines.
    connect(table_, &QTableView::clicked, this, [this](const QModelIndex& index) {
        const auto op = index.data(RunDiffModel::OpRole).toUInt();
        a_->revealOp(op);
        b_->revealOp(op);
    });

    // Where the difference comes from: a click on a kernel term outlines the ops whose kernels it
    // counts (F3 steps through them). A over B on the left with all the height, the breakdown and
    // the per-op table beside them (stacked under them, each run had 2-3 rows at 1600x970).
    waterfall_ = new SpeedupWaterfall;
    connect(waterfall_, &SpeedupWaterfall::termClicked, this, &RunComparePanel::showTerm);
    auto* runs = new QSplitter(Qt::Vertical);
    runs->addWidget(a_);
    runs->addWidget(b_);
    // The breakdown over the per-op table, beside the runs: the timelines keep the height.
    auto* side = new QSplitter(Qt::Vertical);
    side->addWidget(waterfall_);
    side->addWidget(table_);
    side->setChildrenCollapsible(false);
    side->setStretchFactor(1, 1);
    runs->setChildrenCollapsible(false);
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(runs);
    split->addWidget(side);
    split->setChildrenCollapsible(false);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({ 600, 400 }); // in proportion: the table shows op, starts and streams
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(tools);
    layout->addWidget(summary_);
    layout->addWidget(split, 1);

    connect(pickA_, &QComboBox::currentIndexChanged, this, &RunComparePanel::update);
    connect(pickB_, &QComboBox::currentIndexChanged, this, &RunComparePanel::update);
    connect(swap, &QToolButton::clicked, this, [this] { setRuns(pickB_->currentIndex(), pickA_->currentIndex()); });
    connect(exportButton, &QToolButton::clicked, this, [this] {
        const QString file = QFileDialog::getSaveFileName(this, tr("Export Breakdown"), QStringLiteral("breakdown.csv"),
            tr("CSV (*.csv);;PNG image (*.png);;SVG image (*.svg)"));
        if (file.isEmpty())
            return;
        if (const QString error = exportBreakdown(file); !error.isEmpty())
            summary_->setText(error);
    });
    update();
}

int RunComparePanel::runCount() const
{
    return static_cast<int>(runs_.size());
}

void RunComparePanel::addRun(
    const QString& label, std::shared_ptr<const TimelineData> timeline, std::function<QString(std::uint32_t)> describe)
{
    if (!timeline)
        return;
    // The same run shown again (a stored run is rebuilt each time it is selected) is offered once.
    const auto same = std::find_if(
        runs_.begin(), runs_.end(), [&](const Run& r) { return r.timeline == timeline || r.label == label; });
    if (same != runs_.end())
        runs_.erase(same);
    runs_.insert(runs_.begin(), Run { label, std::move(timeline), std::move(describe) });
    constexpr std::size_t kMaxRuns = 16;
    if (runs_.size() > kMaxRuns)
        runs_.resize(kMaxRuns);
    for (auto* pick : { pickA_, pickB_ }) {
        const QSignalBlocker block(pick);
        pick->clear();
        for (const Run& r : runs_)
            pick->addItem(r.label);
    }
    setRuns(runs_.size() > 1 ? 1 : 0, 0);
}

void RunComparePanel::clearRuns()
{
    runs_.clear();
    for (auto* pick : { pickA_, pickB_ }) {
        const QSignalBlocker block(pick);
        pick->clear();
    }
    update();
}

void RunComparePanel::setRuns(int a, int b)
{
    {
        const QSignalBlocker blockA(pickA_), blockB(pickB_);
        pickA_->setCurrentIndex(a);
        pickB_->setCurrentIndex(b);
    }
    update();
}

void RunComparePanel::update()
{
    const int ia = pickA_->currentIndex(), ib = pickB_->currentIndex();
    const bool ok = ia >= 0 && ib >= 0 && ia < runCount() && ib < runCount();
    if (!ok) {
        a_->setData(nullptr);
        b_->setData(nullptr);
        model_->setDiff({});
        waterfall_->setBreakdown(std::nullopt);
        summary_->setText(
            tr("Show two runs in the Timeline (run schedulers, or select stored runs) to compare them here."));
        return;
    }
    const Run& ra = runs_[static_cast<std::size_t>(ia)];
    const Run& rb = runs_[static_cast<std::size_t>(ib)];
    a_->setData(ra.timeline, ra.describe);
    b_->setData(rb.timeline, rb.describe);
    // The Diff compares ops: one row per stream, so each run shows most of its streams in the
    // little height it has (a click on a stream's name still opens its kernels).
    a_->setAllCollapsed(true);
    b_->setAllCollapsed(true);
    a_->setCornerLabel(tr("A: %1").arg(ra.label));
    b_->setCornerLabel(tr("B: %1").arg(rb.label));
    std::function<std::string(std::uint32_t)> name;
    if (ra.describe)
        name = [describe = ra.describe](
                   std::uint32_t id) { return describe(id).section(QLatin1Char('\n'), 0, 0).toStdString(); };
    RunDiff diff = diffRuns(*ra.timeline, *rb.timeline, name);
    // Both on the longer run's time axis.
    const double extent = std::max(diff.latencyA, diff.latencyB);
    a_->setTimeExtent(extent);
    b_->setTimeExtent(extent);
    const double delta = diff.latencyDelta();
    QString text = tr("A %1, B %2")
                       .arg(QString::fromStdString(formatDuration(diff.latencyA)),
                           QString::fromStdString(formatDuration(diff.latencyB)));
    if (std::abs(delta) <= 1e-12 * std::max(diff.latencyA, diff.latencyB))
        text += tr(": the same latency");
    else {
        text += tr(": B is %1 %2")
                    .arg(QString::fromStdString(formatDuration(std::abs(delta))),
                        delta > 0 ? tr("slower") : tr("faster"));
        if (diff.latencyA > 0 && diff.latencyB > 0)
            text += tr(" (%1x the speed of A)").arg(diff.latencyA / diff.latencyB, 0, 'f', 2);
    }
    text += tr(" · %1 ops on another stream").arg(diff.streamChanges);
    if (diff.onlyInA || diff.onlyInB)
        text += tr(" · %1 only in A, %2 only in B").arg(diff.onlyInA).arg(diff.onlyInB);
    if (ia == ib)
        text += tr(" · A and B are the same run");
    summary_->setText(text);
    model_->setDiff(std::move(diff));
    termOps_ = {};
    a_->setHighlightedOps({});
    b_->setHighlightedOps({});
    try {
        const analysis::SpeedupBreakdown breakdown = explainTimelines(*ra.timeline, *rb.timeline);
        auto ids = [](const std::vector<std::int64_t>& ops) {
            std::vector<std::uint32_t> out;
            for (const auto op : ops)
                if (op >= 0)
                    out.push_back(static_cast<std::uint32_t>(op));
            return out;
        };
        // Shared kernels: the ops whose kernel time changed, not every op both runs have.
        std::vector<std::int64_t> changed;
        for (const auto& op : breakdown.ops)
            if (op.aNs > 0 && op.bNs > 0 && std::abs(op.changeNs()) >= 1.0
                && std::binary_search(breakdown.sharedOps.begin(), breakdown.sharedOps.end(), op.opId))
                changed.push_back(op.opId);
        std::sort(changed.begin(), changed.end());
        termOps_ = { ids(changed), ids(breakdown.onlyAOps), ids(breakdown.onlyBOps) };
        waterfall_->setBreakdown(breakdown);
    } catch (const std::invalid_argument&) {
        waterfall_->setBreakdown(std::nullopt,
            tr("No breakdown: a run without kernels (a mapping predicted from per-op costs) has no kernel time to "
               "split."));
    }
}

int RunComparePanel::showTerm(const QString& key)
{
    std::vector<std::uint32_t> inA, inB;
    if (key == QLatin1String("shared_kernels"))
        inA = inB = termOps_.shared;
    else if (key == QLatin1String("only_a_kernels"))
        inA = termOps_.onlyA;
    else if (key == QLatin1String("only_b_kernels"))
        inB = termOps_.onlyB;
    const int shown = a_->setHighlightedOps(inA) + b_->setHighlightedOps(inB);
    if (!inA.empty())
        a_->nextMatch();
    if (!inB.empty())
        b_->nextMatch();
    return shown;
}

QString RunComparePanel::exportBreakdown(const QString& file) const
{
    if (!waterfall_->hasBreakdown())
        return tr("Nothing to export: pick two runs with kernels.");
    const QString header = tr("A: %1 · B: %2").arg(pickA_->currentText(), pickB_->currentText());
    if (file.endsWith(QStringLiteral(".csv"), Qt::CaseInsensitive)) {
        QFile out(file);
        if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text))
            return tr("cannot write %1").arg(file);
        out.write(waterfall_->csv().toUtf8());
        return out.error() == QFileDevice::NoError ? QString() : tr("cannot write %1").arg(file);
    }
    const QSize size = waterfall_->size().isEmpty() ? waterfall_->sizeHint() : waterfall_->size();
    return exportImage(
        file, size, [this](QPainter& p, const QSize& s) { waterfall_->paintTo(p, s); }, header);
}

} // namespace opsched
