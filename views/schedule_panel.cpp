#include "schedule_panel.h"

#include "mapping_result.h"
#include "map/mappers.h"

#include "sim/sim_device.h"
#include "util/error.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTableView>
#include <QThread>
#include <QVBoxLayout>

namespace opsched {

SchedulePanel::SchedulePanel(QWidget* parent) : QWidget(parent)
{
    scheduler_ = new QComboBox;
    scheduler_->setObjectName(QStringLiteral("schedulerCombo"));
    for (const auto& name : schedulerNames())
        scheduler_->addItem(QString::fromStdString(name));
    // Mappers (DiviML) place ops across the devices of a list: "map:NAME".
    for (const auto& m : map::mappers())
        scheduler_->addItem(QString::fromStdString(kMapperPrefix + m.name));
    scheduler_->setCurrentText(QStringLiteral("ios"));
    device_ = new QComboBox;
    device_->setObjectName(QStringLiteral("deviceCombo"));
    for (const auto& d : simDevices())
        device_->addItem(QStringLiteral("sim:") + QString::fromStdString(d.name));
    // Device lists for the mappers; the box takes any other comma-separated list typed in.
    device_->addItem(QStringLiteral("sim:xeon,sim:t4,sim:a100"));
    device_->addItem(QStringLiteral("sim:t4,sim:a100"));
    device_->setEditable(true);
    device_->setToolTip(tr("The simulated GPU to schedule for; for a mapper (map:...), a comma-separated list of "
                           "devices, e.g. sim:xeon,sim:t4,sim:a100 (DiviML's CPU + T4 + A100)"));
    device_->setCurrentText(QStringLiteral("sim:h100"));
    connect(scheduler_, &QComboBox::currentTextChanged, this, [this](const QString& name) {
        const bool mapper = name.startsWith(QLatin1String(kMapperPrefix));
        const bool list = device_->currentText().contains(QLatin1Char(','));
        if (mapper && !list)
            device_->setCurrentText(QStringLiteral("sim:xeon,sim:t4,sim:a100"));
        else if (!mapper && list)
            device_->setCurrentText(QStringLiteral("sim:h100"));
    });
    batch_ = new QSpinBox;
    batch_->setObjectName(QStringLiteral("batchSpin"));
    batch_->setRange(1, 4096);
    batch_->setToolTip(tr("Batch size to schedule for (the model is rebuilt at this batch)"));
    r_ = new QSpinBox;
    r_->setRange(1, 16);
    r_->setValue(3);
    r_->setToolTip(tr("IOS pruning: most ops per group"));
    s_ = new QSpinBox;
    s_->setRange(1, 16);
    s_->setValue(8);
    s_->setToolTip(tr("IOS pruning: most groups per stage (greedy: ops per stage)"));
    lowering_ = new QComboBox;
    lowering_->setObjectName(QStringLiteral("loweringCombo"));
    lowering_->addItems({QStringLiteral("barriers"), QStringLiteral("events"), QStringLiteral("best")});
    lowering_->setToolTip(tr("How stage schedules become plans: barriers join every stream at each stage boundary "
                             "(what the IOS search adds up); events keep only the waits a dependency needs; best "
                             "evaluates both and keeps the faster"));
    cudaGraph_ = new QCheckBox(tr("one CUDA graph"));
    cudaGraph_->setToolTip(tr("Estimate as one CUDA graph replay instead of host launches and stage joins"));

    runButton_ = new QPushButton(tr("Run"));
    runButton_->setObjectName(QStringLiteral("runButton"));
    cancelButton_ = new QPushButton(tr("Cancel"));
    cancelButton_->setEnabled(false);
    progress_ = new QProgressBar;
    progress_->setTextVisible(false);
    progress_->setMaximumHeight(8);
    progress_->setRange(0, 1);
    status_ = new QLabel;
    status_->setWordWrap(true);

    results_ = new ScheduleResultsModel(this);
    auto* proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(results_);
    proxy->setSortRole(ScheduleResultsModel::SortRole);
    table_ = new QTableView;
    table_->setObjectName(QStringLiteral("resultsTable"));
    table_->setModel(proxy);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setSortingEnabled(true);
    table_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 4);
    // Every column readable without a horizontal scroll bar, and room for several results.
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setMinimumSectionSize(24);
    table_->setWordWrap(false);
    table_->setMinimumHeight(table_->verticalHeader()->defaultSectionSize() * 6 + table_->horizontalHeader()->sizeHint().height() + 4);
    table_->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);

    // The panel asks for the width of every column (headers sized to their text).
    int columns = 2 * table_->frameWidth() + 4;
    for (int c = 0; c < ScheduleResultsModel::ColumnCount; ++c)
        columns += std::max(table_->horizontalHeader()->sectionSizeHint(c), 40) + 6; // values can be a little wider
    table_->setMinimumWidth(0);
    tableWidthHint_ = columns;

    // Four rows, so that the results below keep room on a laptop screen.
    auto* form = new QFormLayout;
    form->addRow(tr("Scheduler"), scheduler_);
    form->addRow(tr("Device"), device_);
    auto* batchRow = new QHBoxLayout;
    batchRow->addWidget(batch_, 1);
    batchRow->addSpacing(12);
    batchRow->addWidget(new QLabel(tr("pruning r")));
    batchRow->addWidget(r_);
    batchRow->addWidget(new QLabel(tr("s")));
    batchRow->addWidget(s_);
    form->addRow(tr("Batch"), batchRow);
    auto* loweringRow = new QHBoxLayout;
    loweringRow->addWidget(lowering_, 1);
    loweringRow->addWidget(cudaGraph_);
    form->addRow(tr("Lowering"), loweringRow);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(runButton_);
    buttons->addWidget(cancelButton_);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addLayout(buttons);
    layout->addWidget(progress_);
    layout->addWidget(status_);
    layout->addWidget(table_, 1);

    connect(runButton_, &QPushButton::clicked, this, &SchedulePanel::run);
    connect(cancelButton_, &QPushButton::clicked, this, &SchedulePanel::cancel);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this, proxy](const QModelIndex& current) {
                if (auto r = results_->result(proxy->mapToSource(current).row()))
                    emit resultSelected(r);
            });
    setEnabled(false);
}

QSize SchedulePanel::sizeHint() const
{
    const QSize hint = QWidget::sizeHint();
    return {std::max(hint.width(), tableWidthHint_ + layout()->contentsMargins().left() + layout()->contentsMargins().right()),
            hint.height()};
}

SchedulePanel::~SchedulePanel()
{
    cancel();
    if (worker_)
        worker_->wait();
}

void SchedulePanel::setGraph(std::shared_ptr<const Graph> graph)
{
    cancel();
    if (worker_)
        worker_->wait();
    graph_ = std::move(graph);
    if (graph_)
        batch_->setValue(static_cast<int>(graph_->batch()));
    results_->clear();
    status_->clear();
    setEnabled(graph_ != nullptr);
}

void SchedulePanel::run()
{
    runScheduler(scheduler_->currentText());
}

void SchedulePanel::runScheduler(const QString& scheduler)
{
    ScheduleRequest request;
    request.scheduler = scheduler.toStdString();
    request.device = device_->currentText().toStdString();
    request.r = static_cast<std::size_t>(r_->value());
    request.s = static_cast<std::size_t>(s_->value());
    request.cudaGraph = cudaGraph_->isChecked();
    request.lowering = lowering_->currentText().toStdString();
    request.batch = batch_->value();
    start(request);
}

void SchedulePanel::start(const ScheduleRequest& request)
{
    if (!graph_ || worker_)
        return;
    cancelled_ = std::make_shared<std::atomic<bool>>(false);
    runButton_->setEnabled(false);
    cancelButton_->setEnabled(true);
    progress_->setRange(0, 0); // busy until the first progress report
    status_->setText(tr("running %1 on %2...").arg(QString::fromStdString(request.scheduler),
                                                   QString::fromStdString(request.device)));

    // The worker only reads the immutable graph; results come back through queued calls.
    auto graph = graph_;
    auto cancelled = cancelled_;
    worker_ = QThread::create([this, graph, request, cancelled] {
        std::shared_ptr<const ScheduleResult> result;
        QString error;
        try {
            result = computeScheduleResult(*graph, request, [this, cancelled](const IosProgress& p) {
                QMetaObject::invokeMethod(this, [this, p] {
                    progress_->setRange(0, static_cast<int>(p.partsTotal));
                    progress_->setValue(static_cast<int>(p.partsDone));
                }, Qt::QueuedConnection);
                return !cancelled->load();
            });
        } catch (const Cancelled&) {
            error = tr("cancelled");
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(this, [this, result, error] { done(result, error); }, Qt::QueuedConnection);
    });
    worker_->start();
}

void SchedulePanel::cancel()
{
    if (cancelled_)
        cancelled_->store(true);
}

void SchedulePanel::done(std::shared_ptr<const ScheduleResult> result, const QString& error)
{
    if (worker_) {
        worker_->wait();
        delete worker_;
        worker_ = nullptr;
    }
    runButton_->setEnabled(true);
    cancelButton_->setEnabled(false);
    progress_->setRange(0, 1);
    progress_->setValue(result ? 1 : 0);
    if (!result) {
        status_->setText(tr("failed: %1").arg(error));
        emit finished(false, error);
        return;
    }
    status_->setText(tr("%1: %2 ms").arg(QString::fromStdString(result->request.scheduler))
                         .arg(result->latency * 1e3, 0, 'f', 3));
    results_->add(result);
    table_->selectRow(results_->rowCount() - 1);
    emit resultSelected(result);
    emit finished(true, QString());
}

} // namespace opsched
