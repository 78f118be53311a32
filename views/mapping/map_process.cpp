#include "mapping/map_process.h"

#include "engine/child_protocol.h"

#include <QFileInfo>
#include <QTemporaryDir>

namespace opsched {

QStringList mapArguments(const engine::MapRequest& request, const QString& output)
{
    QStringList args;
    for (const auto& a : engine::child::mapArguments(request, output.toStdString()))
        args << QString::fromStdString(a);
    return args;
}

MapProcess::MapProcess(QObject* parent)
    : CliProcess(parent)
{
    setGracePeriod(3000);
    connect(this, &CliProcess::exited, this, &MapProcess::onExited);
    connect(this, &CliProcess::failedToStart, this,
        [this](const QString& message) { emit finished(false, message, QString()); });
    connect(this, &CliProcess::stdoutLine, this, [this](const QString& line) {
        // Other lines (the summary JSON after the progress) are not events and are skipped.
        if (const auto event = engine::child::parseMapProgressLine(line.toStdString()))
            emit progress(*event);
    });
}

MapProcess::~MapProcess()
{
    abandon();
}

bool MapProcess::start(const engine::MapRequest& request)
{
    if (isRunning())
        return refuse(tr("A mapping is already running."));
    const QString cli
        = runnableCli(tr("Mapping measured devices needs opsched-cli, which was not found next to opsched or on "
                         "PATH. Build it (cmake --build build --target opsched-cli), or set OPSCHED_CLI to its path."));
    if (cli.isEmpty())
        return false;
    auto dir = std::make_unique<QTemporaryDir>();
    if (!dir->isValid())
        return refuse(tr("Cannot make a temporary folder for the mapping file: %1").arg(dir->errorString()));
    dir_ = std::move(dir); // the previous run's file goes with its folder
    output_ = dir_->filePath(QStringLiteral("mapping.json"));
    launch(cli, mapArguments(request, output_), Stdout::Lines);
    return true;
}

void MapProcess::onExited(int exitCode, QProcess::ExitStatus status)
{
    bool ok = false;
    QString message;
    if (wasCancelled())
        message = tr("cancelled");
    else if (status == QProcess::CrashExit)
        message = tr("opsched-cli map crashed; the window is unaffected. Its last messages:\n%1").arg(stderrTail());
    else if (exitCode != 0)
        message = tr("opsched-cli map failed (exit %1):\n%2").arg(exitCode).arg(stderrTail());
    else if (!QFileInfo(output_).isFile())
        message = tr("opsched-cli map finished but wrote no mapping file. Its messages:\n%1").arg(stderrTail());
    else {
        ok = true;
        // The time limit ending the search is worth knowing (the CLI warns on stderr).
        message = stderrText().trimmed();
    }
    emit finished(ok, message, ok ? output_ : QString());
}

} // namespace opsched
