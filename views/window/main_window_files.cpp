// MainWindow's files: opening models and databases, recent files, exports, and what happens to
// unexported schedule edits. The window's construction and views are in main_window.cpp.
#include "window/main_window.h"

#include "common/export.h"
#include "dag/dag_view.h"
#include "engine/model.h"
#include "engine/results/mapping_file_result.h"
#include "engine/results/schedule_result.h"
#include "profile/profile_panel.h"
#include "runs/run_database_panel.h"
#include "runs/run_identity.h"
#include "schedules/compare_view.h"
#include "schedules/schedule_editor.h"
#include "schedules/schedule_panel.h"
#include "timeline/timeline_view.h"
#include "timeline/warp_chart.h"
#include "window/start_page.h"

#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QSettings>
#include <QStatusBar>

namespace opsched {
namespace {

const char* const kRecentFilesKey = "recentFiles";
const char* const kLastDirKey = "lastOpenDir";
const char* const kLastExportDirKey = "lastExportDir";
// Exported active-warps charts are at least this tall (the dock's chart may be a strip).
constexpr int kExportedWarpsHeight = 160;

} // namespace

void MainWindow::exportSchedule()
{
    if (!shown_ || (!graph_ && !shown_->stored)) {
        statusBar()->showMessage(tr("Run or select a schedule first"), 4000);
        return;
    }
    // Named after the run, as every other export; a mapping exports as its mapping file.
    const QString file = askSavePath(tr("Export Schedule of %1").arg(runLabel(*shown_)),
        runFileStem(*shown_, openModelName())
            + (shown_->mappingFile ? QStringLiteral(".mapping.json") : QStringLiteral(".schedule.json")),
        tr("opsched schedule or mapping (*.json)"));
    if (file.isEmpty())
        return;
    // A hand-edited schedule exports as edited; otherwise the scheduler's result.
    std::shared_ptr<const ScheduleResult> what = shown_;
    if (graph_ && editor_->isEnabled() && editor_->isValid() && shown_->output.schedule
        && !(editor_->schedule() == *shown_->output.schedule)) {
        ScheduleRequest request = shown_->request;
        request.scheduler += " (edited)";
        what = evaluateSchedule(*graph_, editor_->schedule(), request);
    }
    if (const QString error = opsched::exportSchedule(file, graph_.get(), *what); !error.isEmpty())
        QMessageBox::warning(this, tr("Export failed"), error);
    else {
        editor_->markSaved(); // the edits are in a file now
        statusBar()->showMessage(tr("Wrote %1").arg(file), 4000);
    }
}

QString MainWindow::askSavePath(const QString& title, const QString& name, const QString& filter)
{
    QSettings settings;
    const QString folder = settings.value(kLastExportDirKey, settings.value(kLastDirKey)).toString();
    const QString suggested = folder.isEmpty() ? name : QDir(folder).filePath(name);
    const QString file = saveDialog_ ? saveDialog_(title, suggested, filter)
                                     : QFileDialog::getSaveFileName(this, title, suggested, filter);
    if (!file.isEmpty())
        settings.setValue(kLastExportDirKey, QFileInfo(file).absolutePath());
    return file;
}

bool MainWindow::confirmDiscardEdits()
{
    if (!editor_->hasUnsavedEdits())
        return true;
    const QString question = tr("The schedule has edits that are not exported. Export them before they are lost?");
    QMessageBox::StandardButton answer = QMessageBox::Discard;
    if (discardPrompt_)
        answer = discardPrompt_(question);
    else if (interactive_)
        answer = QMessageBox::question(this, tr("Unsaved schedule edits"), question,
            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Cancel)
        return false;
    if (answer == QMessageBox::Save) {
        exportSchedule();
        return !editor_->hasUnsavedEdits(); // the file dialog may have been cancelled
    }
    return true;
}

void MainWindow::exportTrace(bool csv)
{
    if (!shown_ || (!graph_ && !shown_->stored)) {
        statusBar()->showMessage(tr("Run or select a schedule first"), 4000);
        return;
    }
    // The run the Timeline shows, named after it, so several selected runs never leave a doubt.
    const QString stem = runFileStem(*shown_, openModelName());
    const QString file = csv ? askSavePath(tr("Export Kernels of %1").arg(runLabel(*shown_)),
                             stem + QStringLiteral("_kernels.csv"), tr("CSV (*.csv)"))
                             : askSavePath(tr("Export Chrome Trace of %1").arg(runLabel(*shown_)),
                                 stem + QStringLiteral(".trace.json"), tr("Chrome trace (*.json)"));
    if (file.isEmpty())
        return;
    const QString error = opsched::exportTrace(
        file, csv ? TraceExport::KernelsCsv : TraceExport::ChromeTrace, graph_.get(), modelRef_, *shown_);
    if (!error.isEmpty())
        QMessageBox::warning(this, tr("Export failed"), error);
    else
        statusBar()->showMessage(tr("Wrote %1 to %2").arg(runTitle(*shown_, openModelName()), file), 6000);
}

void MainWindow::exportImage(const QString& what)
{
    // Timeline and warps images belong to one run: named after it and headed by it.
    const bool ofRun = shown_ && (what == QStringLiteral("timeline") || what == QStringLiteral("warps"));
    const QString header = ofRun ? runTitle(*shown_, openModelName()) : QString();
    const QString name = ofRun ? runFileStem(*shown_, openModelName()) + QLatin1Char('_') + what : what;
    const QString file = askSavePath(tr("Export Image"), name + QStringLiteral(".png"), tr("Images (*.png *.svg)"));
    if (file.isEmpty())
        return;
    QString error;
    const QSize warps(warps_->width(), std::max(warps_->height(), kExportedWarpsHeight));
    if (what == QStringLiteral("timeline")) {
        // Every row, not only those scrolled into view, under the ruler; the host lane and the
        // active warps under them, on the same time axis.
        const QSize rows = timeline_->fullSize();
        error = opsched::exportImage(
            file, QSize(rows.width(), rows.height() + warps.height()),
            [this, rows, warps](QPainter& p, const QSize&) {
                timeline_->render(p, rows, 0);
                p.save();
                p.translate(0, rows.height());
                warps_->render(p, QSize(rows.width(), warps.height()));
                p.restore();
            },
            header);
    } else if (what == QStringLiteral("warps"))
        error = opsched::exportImage(
            file, warps, [this](QPainter& p, const QSize& s) { warps_->render(p, s); }, header);
    else if (what == QStringLiteral("dag"))
        // The whole graph at natural size, not the part zoomed into.
        error = opsched::exportImage(
            file, dag_->fullSize(), [this](QPainter& p, const QSize& s) { dag_->renderWhole(p, s); });
    else
        // As tall as its bars need (the panel may be much taller, which left the image half blank).
        error = opsched::exportImage(file, QSize(compare_->width(), compare_->imageHeight()),
            [this](QPainter& p, const QSize& s) { compare_->render(p, s); });
    if (!error.isEmpty())
        QMessageBox::warning(this, tr("Export failed"), error);
    else
        statusBar()->showMessage(tr("Wrote %1").arg(file), 4000);
}

void MainWindow::openModelDialog()
{
    QSettings settings;
    const QString path = QFileDialog::getOpenFileName(this, tr("Open"), settings.value(kLastDirKey).toString(),
        tr("Models and results (*.onnx *.db *.sqlite *.sqlite3 *.json);;ONNX models (*.onnx);;opsched databases (*.db "
           "*.sqlite *.sqlite3);;opsched mappings (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    settings.setValue(kLastDirKey, QFileInfo(path).absolutePath());
    openFile(path);
}

bool MainWindow::isDatabaseFile(const QString& path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    return suffix == QLatin1String("db") || suffix == QLatin1String("sqlite") || suffix == QLatin1String("sqlite3");
}

bool MainWindow::openFile(const QString& path)
{
    if (looksLikeMappingFile(path.toStdString()))
        return openMappingFile(path);
    if (!isDatabaseFile(path))
        return openModel(path);
    openDatabase(path);
    return true;
}

void MainWindow::openMappingDialog()
{
    QSettings settings;
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Mapping"), settings.value(kLastDirKey).toString(),
        tr("opsched mappings (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    settings.setValue(kLastDirKey, QFileInfo(path).absolutePath());
    openMappingFile(path);
}

bool MainWindow::openMappingFile(const QString& path)
{
    std::shared_ptr<const ScheduleResult> result;
    if (!graph_) {
        lastError_ = tr("Open the model %1 maps first; a mapping is read against the open model.").arg(path);
    } else {
        try {
            result = loadMappingResult(*graph_, path.toStdString());
            lastError_.clear();
        } catch (const std::exception& e) {
            lastError_ = QString::fromStdString(e.what());
        }
    }
    if (!result) {
        if (interactive_)
            QMessageBox::warning(this, tr("Cannot open mapping"), lastError_);
        return false;
    }
    // Listed like a computed mapping: the panel selects it, which shows its DAG colours and timeline.
    schedulesDock_->show();
    schedulesDock_->raise();
    schedules_->addResult(result);
    timelineDock_->raise();
    statusBar()->showMessage(tr("Read mapping %1").arg(path), 4000);
    return true;
}

void MainWindow::openDatabase(const QString& path)
{
    if (!QFileInfo(path).isFile()) {
        lastError_ = tr("%1 does not exist").arg(path);
        if (interactive_)
            QMessageBox::warning(this, tr("Cannot open database"), lastError_);
        return;
    }
    reportNextListing_ = true;
    runs_->openDatabase(path);
    offeredDatabase_ = path; // profiling next adds to it, Recent Files and the next start reopen it,
                             // once it has been read
    runsDock_->show();
    runsDock_->raise();
}

QStringList MainWindow::recentFiles() const
{
    return QSettings().value(kRecentFilesKey).toStringList();
}

void MainWindow::addRecentFile(const QString& ref)
{
    // Files are remembered by absolute path so they reopen from any working directory.
    const QString entry = ref.startsWith(QLatin1String(kZooPrefix.data(), static_cast<qsizetype>(kZooPrefix.size())))
        ? ref
        : QFileInfo(ref).absoluteFilePath();
    QStringList recent = recentFiles();
    recent.removeAll(entry);
    recent.prepend(entry);
    while (recent.size() > kMaxRecentFiles)
        recent.removeLast();
    QSettings().setValue(kRecentFilesKey, recent);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu()
{
    recentMenu_->clear();
    const QStringList recent = recentFiles();
    startPage_->setRecentFiles(recent);
    for (int i = 0; i < recent.size(); ++i) {
        const QString ref = recent[i];
        // &1..&8 give keyboard accelerators; '&' in a path must not become one.
        const QString text
            = QStringLiteral("&%1 %2").arg(i + 1).arg(QString(ref).replace(QLatin1Char('&'), QStringLiteral("&&")));
        recentMenu_->addAction(text, this, [this, ref] { openFile(ref); });
    }
    recentMenu_->addSeparator();
    QAction* clear = recentMenu_->addAction(tr("Clear List"), this, [this] {
        QSettings().remove(kRecentFilesKey);
        updateRecentMenu();
    });
    clear->setEnabled(!recent.isEmpty());
}

} // namespace opsched
