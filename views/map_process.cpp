#include "map_process.h"

#include "profile_process.h"

#include <QFileInfo>
#include <QTemporaryDir>
#include <QTimer>

namespace opsched {
namespace {

constexpr int kStderrKeep = 4000; // characters of the child's stderr kept for the message

} // namespace

QStringList MapRequest::arguments(const QString& output) const
{
    // --json keeps the summary text off stdout (it is discarded); the file is what is read back.
    return {QStringLiteral("map"),        model,
            QStringLiteral("--batch"),    QString::number(batch),
            QStringLiteral("--devices"),  devices,
            QStringLiteral("--mapper"),   mapper,
            QStringLiteral("--time-limit"), QString::number(timeLimitSeconds),
            QStringLiteral("-o"),         output,
            QStringLiteral("--json")};
}

MapProcess::MapProcess(QObject* parent) : QObject(parent)
{
    killTimer_ = new QTimer(this);
    killTimer_->setSingleShot(true);
    connect(killTimer_, &QTimer::timeout, this, [this] {
        if (process_)
            process_->kill();
    });
}

MapProcess::~MapProcess()
{
    abandon();
}

QString MapProcess::cliPath() const
{
    return cliPath_.isEmpty() ? ProfileProcess::findCli() : cliPath_;
}

bool MapProcess::start(const MapRequest& request)
{
    if (process_) {
        lastError_ = tr("A mapping is already running.");
        return false;
    }
    const QString cli = cliPath();
    if (cli.isEmpty() || !QFileInfo(cli).isExecutable()) {
        lastError_ = cli.isEmpty()
                         ? tr("Mapping measured devices needs opsched-cli, which was not found next to opsched or on "
                              "PATH. Build it (cmake --build build --target opsched-cli), or set OPSCHED_CLI to its path.")
                         : tr("%1 is not an executable file. Set OPSCHED_CLI to opsched-cli's path.").arg(cli);
        return false;
    }
    auto dir = std::make_unique<QTemporaryDir>();
    if (!dir->isValid()) {
        lastError_ = tr("Cannot make a temporary folder for the mapping file: %1").arg(dir->errorString());
        return false;
    }
    dir_ = std::move(dir); // the previous run's file goes with its folder
    output_ = dir_->filePath(QStringLiteral("mapping.json"));
    cancelled_ = false;
    stderr_.clear();
    lastError_.clear();

    process_ = new QProcess(this);
    process_->setStandardOutputFile(QProcess::nullDevice());
    connect(process_, &QProcess::readyReadStandardError, this, [this] {
        stderr_ += QString::fromUtf8(process_->readAllStandardError());
        if (stderr_.size() > 2 * kStderrKeep)
            stderr_ = stderr_.right(kStderrKeep);
    });
    connect(process_, &QProcess::finished, this, &MapProcess::onFinished);
    connect(process_, &QProcess::errorOccurred, this, &MapProcess::onError);
    const QStringList args = request.arguments(output_);
    emit started(cli + QLatin1Char(' ') + args.join(QLatin1Char(' ')));
    process_->start(cli, args);
    return true;
}

void MapProcess::cancel()
{
    if (!process_ || cancelled_)
        return;
    cancelled_ = true;
    process_->terminate();
    killTimer_->start(graceMs_);
}

void MapProcess::abandon()
{
    if (!process_)
        return;
    process_->disconnect(this);
    process_->kill();
    process_->waitForFinished(2000);
    cleanUp();
}

QString MapProcess::stderrTail() const
{
    const QString tail = stderr_.right(kStderrKeep).trimmed();
    return tail.isEmpty() ? tr("(nothing on stderr)") : tail;
}

void MapProcess::onError(QProcess::ProcessError error)
{
    if (error != QProcess::FailedToStart || !process_)
        return;
    // No finished() follows a failed start.
    const QString message = tr("Could not start %1: %2").arg(process_->program(), process_->errorString());
    cleanUp();
    emit finished(false, message, QString());
}

void MapProcess::onFinished(int exitCode, QProcess::ExitStatus status)
{
    stderr_ += QString::fromUtf8(process_->readAllStandardError());
    bool ok = false;
    QString message;
    if (cancelled_)
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
        message = stderr_.trimmed();
    }
    cleanUp();
    emit finished(ok, message, ok ? output_ : QString());
}

void MapProcess::cleanUp()
{
    killTimer_->stop();
    if (process_) {
        process_->disconnect(this);
        process_->deleteLater();
        process_ = nullptr;
    }
}

} // namespace opsched
