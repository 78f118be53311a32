#include "schedules/schedule_panel.h"

#include "engine/catalog.h"

#include "engine/results/mapping_file_result.h"
#include "engine/results/mapping_result.h"
#include "mapping/map_process.h"

#include "common/limit_spin_box.h"
#include "common/run_panel_layout.h"
#include "engine/device_ref.h"
#include "engine/limits.h"
#include "util/error.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTableView>
#include <QThread>
#include <QTimer>

namespace opsched {
namespace {

// The device of the last run, and the mappers' device list, kept for the next start.
const char* const kDeviceKey = "schedules/device";
const char* const kMapDevicesKey = "schedules/mapDevices";

} // namespace

SchedulePanel::SchedulePanel(QWidget* parent)
    : QWidget(parent)
{
    createSettings();
    runButton_ = new QPushButton(tr("Run"));
    runButton_->setObjectName(QStringLiteral("runButton"));
    cancelButton_ = new QPushButton(tr("Cancel"));
    cancelButton_->setEnabled(false);
    progress_ = new QProgressBar;
    progress_->setTextVisible(false);
    progress_->setMaximumHeight(8);
    progress_->setRange(0, 1);
    status_ = new QLabel;
    status_->setObjectName(QStringLiteral("statusLabel"));
    status_->setWordWrap(true);
    auto* proxy = createTable();

    // Four rows, so that the results below keep room on a laptop screen.
    auto* form = new QFormLayout;
    // On a narrow panel (a 1024-pixel laptop screen) a row too long for its label's side goes under it.
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
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
    // Schedulers lower to plans; mappers have an objective instead (the row enables what applies).
    auto* loweringRow = new QHBoxLayout;
    loweringRow->addWidget(lowering_, 1);
    loweringRow->addWidget(cudaGraph_);
    loweringRow->addSpacing(6);
    loweringRow->addWidget(objective_);
    loweringRow->addWidget(inputs_);
    form->addRow(tr("Lowering"), loweringRow);
    layOutRunPanel(this, form, runButton_, cancelButton_, progress_, status_, table_);

    mapProcess_ = new MapProcess(this);
    mapProcess_->setGracePeriod(2000);
    connect(mapProcess_, &MapProcess::finished, this, &SchedulePanel::mapProcessFinished);
    elapsed_ = new QTimer(this);
    elapsed_->setInterval(1000);
    // A mapping's search runs up to its time limit: the seconds so far and the limit, in the window
    // or in opsched-cli, with the phase the child reports (pricing ops on measured devices can take
    // longer than the search).
    connect(elapsed_, &QTimer::timeout, this, [this] {
        ++elapsedSeconds_;
        showMapStatus();
    });
    connect(mapProcess_, &MapProcess::progress, this, [this](const engine::child::MapProgressEvent& e) {
        mapPhase_ = QString::fromStdString(engine::child::describe(e));
        if (e.phase != engine::child::MapProgressEvent::Phase::Costs)
            mapLimitSeconds_ = e.timeLimitSeconds;
        showMapStatus();
    });
    connect(runButton_, &QPushButton::clicked, this, &SchedulePanel::run);
    connect(cancelButton_, &QPushButton::clicked, this, &SchedulePanel::cancel);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this, proxy](const QModelIndex& current) {
            if (auto r = results_->result(proxy->mapToSource(current).row()))
                emit resultSelected(r);
        });
    setEnabled(false);
}

void SchedulePanel::createSettings()
{
    scheduler_ = new QComboBox;
    scheduler_->setObjectName(QStringLiteral("schedulerCombo"));
    for (const auto& name : engine::schedulerNames())
        scheduler_->addItem(QString::fromStdString(name));
    // Mappers (DiviML) place ops across the devices of a list: "map:NAME".
    for (const auto& m : engine::mapperEntries())
        scheduler_->addItem(QString::fromStdString(kMapperPrefix + m.name));
    scheduler_->setCurrentText(QString::fromLatin1(engine::kDefaultScheduler));
    device_ = new QComboBox;
    device_->setObjectName(QStringLiteral("deviceCombo"));
    for (const auto& name : engine::simulatedDeviceNames())
        device_->addItem(QString::fromStdString(name));
    // Device lists for the mappers; the box takes any other device or comma-separated list typed in.
    device_->addItem(QString::fromLatin1(engine::kDefaultMapDevices));
    device_->addItem(QStringLiteral("sim:t4,sim:a100"));
    // Measured devices: mapped by opsched-cli in a child process (costs measured on this machine).
    device_->addItem(QStringLiteral("cpu:0,cpu:1"));
    device_->setEditable(true);
    // Long device lists must not widen the panel beyond a laptop screen's column: the box scrolls.
    device_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    device_->setMinimumContentsLength(12);
    device_->setToolTip(tr("The device to schedule for, as opsched-cli's --device takes it: sim:NAME, sim:FILE.json "
                           "(from calibrate) or cuda:N (measured); for a mapper (map:...), a comma-separated list of "
                           "devices, e.g. sim:xeon,sim:t4,sim:a100 (DiviML's CPU + T4 + A100), or measured devices "
                           "(cpu, cpu:N core partitions, cuda:N), which opsched-cli maps in a child process"));
    // The device of the last run (and the mappers' list) come back at the next start.
    device_->setCurrentText(rememberedDevice(false));
    connect(scheduler_, &QComboBox::currentTextChanged, this, [this](const QString& name) {
        const bool mapper = name.startsWith(QLatin1String(kMapperPrefix));
        const bool list = device_->currentText().contains(QLatin1Char(','));
        if (mapper && !list)
            device_->setCurrentText(rememberedDevice(true));
        else if (!mapper && list)
            device_->setCurrentText(rememberedDevice(false));
    });
    batch_ = limitSpinBox(engine::kBatch, QStringLiteral("batchSpin"),
        tr("Batch size to schedule for (the model is rebuilt at this batch)"));
    r_ = limitSpinBox(engine::kIosR, QStringLiteral("pruningR"), tr("IOS pruning: most ops per group"));
    s_ = limitSpinBox(
        engine::kIosS, QStringLiteral("pruningS"), tr("IOS pruning: most groups per stage (greedy: ops per stage)"));
    lowering_ = new QComboBox;
    lowering_->setObjectName(QStringLiteral("loweringCombo"));
    lowering_->addItems({ QStringLiteral("barriers"), QStringLiteral("events"), QStringLiteral("best") });
    lowering_->setCurrentText(QString::fromLatin1(engine::kDefaultLowering));
    lowering_->setToolTip(tr("How stage schedules become plans: barriers join every stream at each stage boundary "
                             "(what the IOS search adds up); events keep only the waits a dependency needs; best "
                             "evaluates both and keeps the faster"));
    cudaGraph_ = new QCheckBox(tr("CUDA graph"));
    cudaGraph_->setToolTip(tr("Estimate as one CUDA graph replay instead of host launches and stage joins"));
    objective_ = new QComboBox;
    objective_->setObjectName(QStringLiteral("objectiveCombo"));
    objective_->addItems({ QStringLiteral("latency"), QStringLiteral("throughput") });
    objective_->setToolTip(
        tr("Mappers (map:...) only: what the mapping optimises: the latency of one input, or the throughput of a "
           "number of inputs split across the devices per op (the model at batch 1)"));
    inputs_ = limitSpinBox(engine::kMapInputs, QStringLiteral("inputsSpin"),
        tr("Throughput: inputs to map, split per op into batches of L/4, L/2, 3L/4 or L"));
    inputs_->setPrefix(tr("inputs "));
    connect(scheduler_, &QComboBox::currentTextChanged, this, [this] { updateEnabledSettings(); });
    connect(objective_, &QComboBox::currentTextChanged, this, [this] { updateEnabledSettings(); });
    updateEnabledSettings();
}

void SchedulePanel::updateEnabledSettings()
{
    const bool mapper = scheduler_->currentText().startsWith(QLatin1String(kMapperPrefix));
    // IOS's pruning, the lowering and CUDA graphs are the schedulers' settings, not the mappers'.
    r_->setEnabled(!mapper);
    s_->setEnabled(!mapper);
    lowering_->setEnabled(!mapper);
    cudaGraph_->setEnabled(!mapper);
    objective_->setEnabled(mapper);
    inputs_->setEnabled(mapper && objective_->currentText() == QLatin1String("throughput"));
}

QSortFilterProxyModel* SchedulePanel::createTable()
{
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
    // A mapping's device list ("sim:xeon,sim:t4,sim:a100") would push Search s out of view: it
    // is elided in the middle (the tooltip has it whole).
    table_->horizontalHeader()->setMaximumSectionSize(120);
    table_->setTextElideMode(Qt::ElideMiddle);
    table_->setWordWrap(false);
    table_->setMinimumHeight(
        table_->verticalHeader()->defaultSectionSize() * 6 + table_->horizontalHeader()->sizeHint().height() + 4);
    table_->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);

    // The panel asks for the width of every column (headers sized to their text).
    int columns = 2 * table_->frameWidth() + 4;
    for (int c = 0; c < ScheduleResultsModel::ColumnCount; ++c)
        columns += std::max(table_->horizontalHeader()->sectionSizeHint(c), 40) + 6; // values can be a little wider
    table_->setMinimumWidth(0);
    tableWidthHint_ = columns;

    // Results can be removed: Delete on the table, or its context menu.
    auto* remove = new QAction(tr("Remove Result"), table_);
    remove->setShortcut(QKeySequence::Delete);
    remove->setShortcutContext(Qt::WidgetShortcut);
    table_->addAction(remove);
    table_->setContextMenuPolicy(Qt::ActionsContextMenu);
    connect(remove, &QAction::triggered, this, [this, proxy] {
        const QModelIndex current = table_->selectionModel()->currentIndex();
        if (current.isValid())
            results_->remove(proxy->mapToSource(current).row());
    });
    return proxy;
}

QSize SchedulePanel::sizeHint() const
{
    const QSize hint = QWidget::sizeHint();
    return { std::max(hint.width(),
                 tableWidthHint_ + layout()->contentsMargins().left() + layout()->contentsMargins().right()),
        hint.height() };
}

SchedulePanel::~SchedulePanel()
{
    cancel();
    if (worker_)
        worker_->wait();
    mapProcess_->abandon();
}

bool SchedulePanel::isRunning() const
{
    return worker_ != nullptr || mapProcess_->isRunning();
}

void SchedulePanel::setModelRef(const QString& ref, const InputShapes& shapes)
{
    modelShapes_ = shapes;
    // A relative path would be read from the child's working folder; make it absolute.
    const QFileInfo file(ref);
    modelRef_ = file.isFile() ? file.absoluteFilePath() : ref;
}

void SchedulePanel::setGraph(std::shared_ptr<const Graph> graph)
{
    cancel();
    if (worker_)
        worker_->wait();
    if (mapProcess_->isRunning()) {
        // Its mapping is for the model being closed.
        mapProcess_->abandon();
        done(nullptr, tr("cancelled"));
    }
    graph_ = std::move(graph);
    if (graph_)
        batch_->setValue(static_cast<int>(graph_->batch()));
    results_->clear();
    // A new model's results start at the top left, not where the last model's were scrolled to.
    table_->scrollToTop();
    table_->horizontalScrollBar()->setValue(0);
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
    request.pruning.r = static_cast<std::size_t>(r_->value());
    request.pruning.s = static_cast<std::size_t>(s_->value());
    request.cudaGraph = cudaGraph_->isChecked();
    request.pruning.lowering = lowering_->currentText().toStdString();
    request.batch = batch_->value();
    request.objective = objective_->currentText().toStdString();
    request.inputs = inputs_->value();
    start(request);
}

QString SchedulePanel::rememberedDevice(bool list)
{
    return QSettings()
        .value(list ? kMapDevicesKey : kDeviceKey,
            QString::fromLatin1(list ? engine::kDefaultMapDevices : engine::kDefaultDevice))
        .toString();
}

void SchedulePanel::startBusy(const ScheduleRequest& request, const QString& how)
{
    runButton_->setEnabled(false);
    cancelButton_->setEnabled(true);
    progress_->setRange(0, 0); // busy until the first progress report
    status_->setText(tr("%1 %2 on %3...")
                         .arg(how, QString::fromStdString(request.scheduler), QString::fromStdString(request.device)));
}

void SchedulePanel::start(const ScheduleRequest& request)
{
    if (!graph_ || isRunning())
        return;
    // Measured devices are timed by opsched-cli in a child process; simulated ones are mapped here.
    if (isMapperRequest(request) && !isSimulatedDeviceList(request.device)) {
        startMapProcess(request);
        return;
    }
    cancelled_ = std::make_shared<std::atomic<bool>>(false);
    startBusy(request, tr("running"));
    if (isMapperRequest(request)) {
        mapRequest_ = request;
        mapInChild_ = false;
        mapLimitSeconds_ = engine::kMapTimeLimitSeconds.def;
        elapsedSeconds_ = 0;
        elapsed_->start();
    }

    // The worker only reads the immutable graph; results come back through queued calls.
    auto graph = graph_;
    auto cancelled = cancelled_;
    worker_ = QThread::create([this, graph, request, cancelled] {
        std::shared_ptr<const ScheduleResult> result;
        QString error;
        try {
            result = computeScheduleResult(*graph, request, [this, cancelled](const IosProgress& p) {
                QMetaObject::invokeMethod(
                    this,
                    [this, p] {
                        progress_->setRange(0, static_cast<int>(p.partsTotal));
                        progress_->setValue(static_cast<int>(p.partsDone));
                    },
                    Qt::QueuedConnection);
                return !cancelled->load();
            });
        } catch (const Cancelled&) {
            error = tr("cancelled");
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(
            this, [this, result, error] { done(result, error); }, Qt::QueuedConnection);
    });
    worker_->start();
}

void SchedulePanel::showMapStatus()
{
    QString text
        = tr("mapping %1%2 on %3%4... %5 s of at most %6 s")
              .arg(QString::fromStdString(mapRequest_.scheduler),
                  mapRequest_.objective == "throughput" ? tr(" (throughput, %1 inputs)").arg(mapRequest_.inputs)
                                                        : QString(),
                  QString::fromStdString(mapRequest_.device), mapInChild_ ? tr(" with opsched-cli") : QString())
              .arg(elapsedSeconds_)
              .arg(mapLimitSeconds_);
    if (mapInChild_ && !mapPhase_.isEmpty())
        text += QLatin1Char('\n') + mapPhase_;
    status_->setText(text);
}

void SchedulePanel::startMapProcess(const ScheduleRequest& request)
{
    if (modelRef_.isEmpty()) {
        done(nullptr,
            tr("opsched-cli needs the model's file or zoo name to map measured devices, and this model "
               "was not opened from one"));
        return;
    }
    engine::MapRequest map;
    map.model = modelRef_.toStdString();
    map.shapes = modelShapes_;
    map.batch = request.batch > 0 ? request.batch : graph_->batch();
    try {
        const auto devices = engine::parseDeviceNames(request.device);
        for (const auto& name : devices)
            map.devices += (map.devices.empty() ? "" : ",") + name;
    } catch (const std::exception& e) {
        done(nullptr, QString::fromStdString(e.what()));
        return;
    }
    map.mapper = request.scheduler.substr(std::string(kMapperPrefix).size());
    map.objective = request.objective;
    map.inputs = request.inputs;
    if (request.objective == "throughput")
        map.batch = 1; // the inputs are the batch
    if (!mapProcess_->start(map)) {
        done(nullptr, mapProcess_->lastError());
        return;
    }
    mapRequest_ = request;
    mapInChild_ = true;
    mapPhase_.clear();
    mapLimitSeconds_ = engine::kMapTimeLimitSeconds.def;
    startBusy(request, tr("mapping"));
    elapsedSeconds_ = 0;
    elapsed_->start();
}

void SchedulePanel::mapProcessFinished(bool ok, const QString& message, const QString& file)
{
    elapsed_->stop();
    if (!ok || !graph_) {
        done(nullptr, message);
        return;
    }
    // The file is read through the same path as File > Open Mapping.
    std::shared_ptr<const ScheduleResult> result;
    try {
        result = loadMappingResult(*graph_, file.toStdString());
    } catch (const std::exception& e) {
        done(nullptr, QString::fromStdString(e.what()));
        return;
    }
    auto named = std::make_shared<ScheduleResult>(*result);
    named->request.scheduler = mapRequest_.scheduler; // as asked, even where the file names no mapper
    named->output.params.erase("file"); // a temporary file, gone after this
    done(named, QString());
    if (!message.isEmpty())
        status_->setText(status_->text() + QLatin1Char('\n') + message); // e.g. the time limit ended the search
}

void SchedulePanel::cancel()
{
    if (cancelled_)
        cancelled_->store(true);
    mapProcess_->cancel();
}

void SchedulePanel::done(std::shared_ptr<const ScheduleResult> result, const QString& error)
{
    elapsed_->stop();
    if (worker_) {
        worker_->wait();
        delete worker_;
        worker_ = nullptr;
    }
    runButton_->setEnabled(true);
    cancelButton_->setEnabled(false);
    // Idle: an empty bar (a full one reads as work still shown as done or going on).
    progress_->setRange(0, 1);
    progress_->reset();
    if (!result) {
        status_->setText(tr("failed: %1").arg(error));
        emit finished(false, error);
        return;
    }
    QString text
        = tr("%1: %2 ms").arg(QString::fromStdString(result->request.scheduler)).arg(result->latency * 1e3, 0, 'f', 3);
    const auto& params = result->output.params;
    if (params.contains("throughput_per_s") && params.contains("inputs")) // ms is then the time for all inputs
        text += tr(" for %1 inputs, %2 inputs/s")
                    .arg(params.at("inputs").get<qint64>())
                    .arg(params.at("throughput_per_s").get<double>(), 0, 'f', 1);
    status_->setText(text);
    // A device that worked comes back at the next start; the Profile panel follows it.
    const QString device = QString::fromStdString(result->request.device);
    QSettings().setValue(device.contains(QLatin1Char(',')) ? kMapDevicesKey : kDeviceKey, device);
    emit deviceUsed(device);
    addResult(result);
    emit finished(true, QString());
}

void SchedulePanel::addResult(std::shared_ptr<const ScheduleResult> result)
{
    if (result && !result->stored && result->sequence == 0) {
        auto numbered = std::make_shared<ScheduleResult>(*result);
        numbered->sequence = ++resultCount_;
        result = std::move(numbered);
    }
    results_->add(result);
    table_->selectRow(results_->rowCount() - 1);
    emit resultSelected(result);
}

} // namespace opsched
