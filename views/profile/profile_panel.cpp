#include "profile/profile_panel.h"

#include "engine/catalog.h"

#include "common/limit_spin_box.h"
#include "common/run_panel_layout.h"
#include "engine/device_ref.h"
#include "engine/limits.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QToolButton>

namespace opsched {
namespace {

const char* const kDatabaseKey = "profile/database";

} // namespace

QString ProfilePanel::defaultDatabase()
{
    // AppDataLocation is <data>/<organisation>/<application>, which for opsched is
    // .../opsched/opsched: one folder is enough.
    return QDir(QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation))
        .filePath(QStringLiteral("opsched/results.db"));
}

ProfilePanel::ProfilePanel(QWidget* parent)
    : QWidget(parent)
{
    process_ = new ProfileProcess(this);
    QToolButton* browse = createInputs();
    createRunControls();
    layOut(browse);
    connectSignals();
}

// The form's fields; returns the database row's browse button, laid out beside the path.
QToolButton* ProfilePanel::createInputs()
{
    model_ = new QLineEdit;
    model_->setObjectName(QStringLiteral("profileModel"));
    model_->setPlaceholderText(tr("zoo:NAME or a model file"));
    schedulers_ = new QListWidget;
    schedulers_->setObjectName(QStringLiteral("profileSchedulers"));
    for (const auto& name : engine::schedulerNames()) {
        auto* item = new QListWidgetItem(QString::fromStdString(name), schedulers_);
        const bool usual = name == "sequential" || name == "greedy" || name == "ios";
        item->setCheckState(usual ? Qt::Checked : Qt::Unchecked);
    }
    schedulers_->setMaximumHeight(schedulers_->sizeHintForRow(0) * 4 + 6);
    batches_ = new QLineEdit(QStringLiteral("1"));
    batches_->setObjectName(QStringLiteral("profileBatches"));
    batches_->setValidator(
        new QRegularExpressionValidator(QRegularExpression(QStringLiteral(R"(\d+(,\d+)*)")), batches_));
    batches_->setToolTip(tr("Batch sizes, comma-separated"));
    device_ = new QComboBox;
    device_->setObjectName(QStringLiteral("profileDevice"));
    device_->setEditable(true); // any device the CLI takes: sim:FILE.json from `calibrate` too
    device_->setInsertPolicy(QComboBox::NoInsert);
    device_->setToolTip(tr("cuda:N (measured with CUPTI), sim:NAME, or sim:FILE.json (a calibrated device)"));
    const CudaRuntimeStatus cuda = engine::localGpus();
    for (const auto& d : cuda.devices)
        device_->addItem(QStringLiteral("cuda:%1").arg(d.index));
    for (const auto& name : engine::simulatedDeviceNames())
        device_->addItem(QString::fromStdString(name));
    device_->setCurrentText(
        cuda.devices.empty() ? QString::fromLatin1(engine::kDefaultDevice) : QStringLiteral("cuda:0"));
    database_ = new QLineEdit(QSettings().value(kDatabaseKey, defaultDatabase()).toString());
    database_->setObjectName(QStringLiteral("profileDatabase"));
    auto* browse = new QToolButton;
    browse->setText(QStringLiteral("..."));
    browse->setToolTip(tr("Choose the results database"));
    connect(browse, &QToolButton::clicked, this, &ProfilePanel::chooseDatabase);
    warps_ = new QCheckBox(tr("record active warps"));
    warps_->setChecked(engine::ProfileRequest {}.warps);
    repeat_ = limitSpinBox(
        engine::kProfileRepeat, QStringLiteral("profileRepeat"), tr("Timed repeats per run (median, p10, p90)"));
    r_ = limitSpinBox(engine::kIosR, QStringLiteral("profileR"), tr("IOS pruning: most ops per group"));
    s_ = limitSpinBox(engine::kIosS, QStringLiteral("profileS"), tr("IOS pruning: most groups per stage"));
    cudaGraph_ = new QCheckBox(tr("one CUDA graph"));
    cudaGraph_->setObjectName(QStringLiteral("profileCudaGraph"));
    cudaGraph_->setToolTip(tr("Simulated devices: estimate plans as one CUDA graph replay"));
    return browse;
}

// Start and Cancel, the progress bar, the status line and the log.
void ProfilePanel::createRunControls()
{
    startButton_ = new QPushButton(tr("Profile"));
    startButton_->setObjectName(QStringLiteral("profileButton"));
    startButton_->setToolTip(
        tr("Runs opsched-cli profile in its own process; a crash there cannot take this window down"));
    cancelButton_ = new QPushButton(tr("Cancel"));
    cancelButton_->setObjectName(QStringLiteral("profileCancel"));
    cancelButton_->setEnabled(false);
    progress_ = new QProgressBar;
    progress_->setRange(0, 1);
    progress_->setValue(0);
    progress_->setMaximumHeight(14);
    status_ = new QLabel;
    status_->setObjectName(QStringLiteral("profileStatus"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    log_ = new QPlainTextEdit;
    log_->setObjectName(QStringLiteral("profileLog"));
    log_->setReadOnly(true);
    log_->setMaximumBlockCount(1000);
    log_->setLineWrapMode(QPlainTextEdit::NoWrap);
}

void ProfilePanel::layOut(QToolButton* browse)
{
    auto* dbRow = new QHBoxLayout;
    dbRow->addWidget(database_, 1);
    dbRow->addWidget(browse);
    auto* form = new QFormLayout;
    form->addRow(tr("Model"), model_);
    form->addRow(tr("Schedulers"), schedulers_);
    form->addRow(tr("Batch"), batches_);
    form->addRow(tr("Device"), device_);
    form->addRow(tr("Database"), dbRow);
    form->addRow(tr("Repeat"), repeat_);
    auto* pruning = new QHBoxLayout;
    pruning->addWidget(new QLabel(tr("r")));
    pruning->addWidget(r_);
    pruning->addWidget(new QLabel(tr("s")));
    pruning->addWidget(s_);
    pruning->addStretch();
    form->addRow(tr("Pruning"), pruning);
    form->addRow(QString(), warps_);
    form->addRow(QString(), cudaGraph_);
    layOutRunPanel(this, form, startButton_, cancelButton_, progress_, status_, log_);
}

void ProfilePanel::connectSignals()
{
    connect(startButton_, &QPushButton::clicked, this, &ProfilePanel::start);
    connect(cancelButton_, &QPushButton::clicked, this, &ProfilePanel::cancel);
    connect(process_, &ProfileProcess::started, this,
        [this](const QString& command) { appendLog(QStringLiteral("$ ") + command); });
    connect(process_, &ProfileProcess::outputLine, this, &ProfilePanel::appendLog);
    connect(process_, &ProfileProcess::jobFinished, this, [this](int done, int total, const QString&) {
        progress_->setRange(0, total);
        progress_->setValue(done);
        status_->setText(tr("%1 of %2 jobs done").arg(done).arg(total));
        emit runLanded();
    });
    connect(process_, &ProfileProcess::finished, this, [this](bool ok, const QString& message) {
        setRunning(false);
        status_->setText(ok ? message : message.section(QLatin1Char('\n'), 0, 0));
        status_->setToolTip(message);
        appendLog(message);
        emit runLanded(); // the last runs, and whatever a crash left
        emit finished(ok, message);
    });
}

void ProfilePanel::setModelRef(const QString& ref, const InputShapes& shapes)
{
    if (process_->isRunning())
        return;
    model_->setText(ref);
    shapesRef_ = ref;
    shapes_ = shapes;
}

void ProfilePanel::setDatabase(const QString& path)
{
    database_->setText(path);
}

void ProfilePanel::offerDatabase(const QString& path)
{
    if (process_->isRunning() || QFileInfo(path).absoluteFilePath() == QFileInfo(database()).absoluteFilePath())
        return;
    database_->setText(path);
    status_->setText(tr("Profiling will add to %1, the database open in Runs.").arg(QFileInfo(path).fileName()));
    status_->setToolTip(path);
}

void ProfilePanel::appendLog(const QString& line)
{
    QScrollBar* bar = log_->verticalScrollBar();
    const bool follow = bar->value() >= bar->maximum() - 2; // at the end: keep following
    log_->appendPlainText(line);
    if (follow)
        bar->setValue(bar->maximum());
}

void ProfilePanel::revealProgress()
{
    for (QWidget* w = parentWidget(); w; w = w->parentWidget())
        if (auto* area = qobject_cast<QScrollArea*>(w)) {
            area->ensureWidgetVisible(log_, 0, 0);
            area->ensureWidgetVisible(status_, 0, 10);
            area->ensureWidgetVisible(progress_, 0, 10);
            return;
        }
}

void ProfilePanel::followDevice(const QString& device)
{
    const QString name = device.trimmed();
    if (isRunning() || name.contains(QLatin1Char(','))
        || !(name.startsWith(QLatin1String("sim:")) || name.startsWith(QLatin1String("cuda:"))))
        return;
    device_->setCurrentText(name);
}

QString ProfilePanel::database() const
{
    return database_->text().trimmed();
}

engine::ProfileRequest ProfilePanel::request() const
{
    engine::ProfileRequest r;
    const QString model = model_->text().trimmed();
    if (!model.isEmpty())
        r.models.push_back(model.toStdString());
    if (model == shapesRef_)
        r.shapes = shapes_;
    QStringList schedulers;
    for (int i = 0; i < schedulers_->count(); ++i)
        if (schedulers_->item(i)->checkState() == Qt::Checked)
            schedulers << schedulers_->item(i)->text();
    r.schedulers = schedulers.join(QLatin1Char(',')).toStdString();
    r.batches = batches_->text().trimmed().toStdString();
    r.device = device_->currentText().trimmed().toStdString();
    r.database = database().toStdString();
    r.warps = warps_->isChecked();
    r.repeat = repeat_->value();
    r.pruning.r = static_cast<std::size_t>(r_->value());
    r.pruning.s = static_cast<std::size_t>(s_->value());
    r.cudaGraph = cudaGraph_->isChecked();
    return r;
}

// Why the window cannot profile on `device`, or empty: the names the CLI takes (cuda:N, sim:NAME,
// sim:FILE.json), checked as it checks them.
static QString deviceProblem(const std::string& device)
{
    try {
        if (!engine::cudaDeviceIndex(device))
            (void)engine::simDeviceFor(device);
        return {};
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
}

void ProfilePanel::start()
{
    const engine::ProfileRequest r = request();
    const QString databasePath = QString::fromStdString(r.database);
    QString problem;
    if (r.models.empty())
        problem = tr("Open a model first (or type a model reference).");
    else if (r.schedulers.empty())
        problem = tr("Tick at least one scheduler.");
    else if (r.database.empty())
        problem = tr("Choose a database file to write the results to.");
    else if (!batches_->hasAcceptableInput())
        problem = tr("Batch sizes are numbers separated by commas, e.g. 1,8,32.");
    else if (const QString why = deviceProblem(r.device); !why.isEmpty())
        problem = tr("Device: %1").arg(why);
    if (problem.isEmpty() && !QDir().mkpath(QFileInfo(databasePath).absolutePath()))
        problem = tr("Cannot create the folder of %1.").arg(databasePath);
    if (!problem.isEmpty()) {
        status_->setText(problem);
        revealProgress();
        emit finished(false, problem);
        return;
    }
    QSettings().setValue(kDatabaseKey, databasePath);
    emit databaseChosen(databasePath);
    if (!process_->start(r)) {
        status_->setText(process_->lastError());
        emit finished(false, process_->lastError());
        return;
    }
    setRunning(true);
    progress_->setRange(0, 0); // busy until the first job reports
    status_->setText(tr("profiling..."));
    revealProgress();
}

void ProfilePanel::chooseDatabase()
{
    const QString file = QFileDialog::getSaveFileName(this, tr("Results Database"), database(),
        tr("opsched databases (*.db *.sqlite)"), nullptr, QFileDialog::DontConfirmOverwrite);
    if (!file.isEmpty())
        database_->setText(file);
}

void ProfilePanel::setRunning(bool running)
{
    startButton_->setEnabled(!running);
    cancelButton_->setEnabled(running);
    if (!running) {
        progress_->setRange(0, std::max(1, process_->jobsTotal()));
        progress_->setValue(process_->jobsDone());
    }
}

} // namespace opsched
