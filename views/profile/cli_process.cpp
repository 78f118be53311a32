#include "profile/cli_process.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTimer>

namespace opsched {
namespace {

constexpr int kStderrKeep = 4000; // characters of the child's stderr kept for the message

} // namespace

CliProcess::CliProcess(QObject* parent)
    : QObject(parent)
{
    killTimer_ = new QTimer(this);
    killTimer_->setSingleShot(true);
    connect(killTimer_, &QTimer::timeout, this, [this] {
        if (process_) {
            killed_ = true;
            process_->kill();
        }
    });
}

CliProcess::~CliProcess()
{
    abandon();
}

QString CliProcess::findCli()
{
    const QString env = qEnvironmentVariable("OPSCHED_CLI");
    if (!env.isEmpty())
        return env;
    const QString beside = QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("opsched-cli"));
    if (QFileInfo(beside).isExecutable())
        return beside;
    return QStandardPaths::findExecutable(QStringLiteral("opsched-cli"));
}

bool CliProcess::refuse(const QString& why)
{
    lastError_ = why;
    return false;
}

QString CliProcess::runnableCli(const QString& notFound)
{
    const QString cli = cliPath();
    if (cli.isEmpty())
        refuse(notFound);
    else if (!QFileInfo(cli).isExecutable())
        refuse(tr("%1 is not an executable file. Set OPSCHED_CLI to opsched-cli's path.").arg(cli));
    else
        return cli;
    return QString();
}

void CliProcess::launch(const QString& cli, const QStringList& args, Stdout stdoutMode)
{
    cancelled_ = killed_ = false;
    stderr_.clear();
    lastError_.clear();

    process_ = new QProcess(this);
    if (stdoutMode == Stdout::Discard)
        process_->setStandardOutputFile(QProcess::nullDevice());
    else
        connect(process_, &QProcess::readyReadStandardOutput, this, &CliProcess::readStdout);
    connect(process_, &QProcess::readyReadStandardError, this, &CliProcess::readStderr);
    connect(process_, &QProcess::finished, this, &CliProcess::onFinished);
    connect(process_, &QProcess::errorOccurred, this, &CliProcess::onError);
    emit started(cli + QLatin1Char(' ') + args.join(QLatin1Char(' ')));
    process_->start(cli, args);
}

void CliProcess::cancel()
{
    if (!process_ || cancelled_)
        return;
    cancelled_ = true;
    // opsched-cli stops at the next safe point on SIGTERM; a child that does not is killed later.
    process_->terminate();
    killTimer_->start(graceMs_);
}

void CliProcess::abandon()
{
    if (!process_)
        return;
    process_->disconnect(this);
    process_->kill();
    process_->waitForFinished(2000);
    cleanUp();
}

void CliProcess::readStdout()
{
    while (process_ && process_->canReadLine()) {
        const QString line = QString::fromUtf8(process_->readLine()).trimmed();
        if (!line.isEmpty())
            emit stdoutLine(line);
    }
}

void CliProcess::readStderr()
{
    if (!process_)
        return;
    stderr_ += QString::fromUtf8(process_->readAllStandardError());
    // Bounded, but trimmed only now and then rather than on every read.
    if (stderr_.size() > 2 * kStderrKeep)
        stderr_ = stderr_.right(kStderrKeep);
}

QString CliProcess::stderrTail() const
{
    const QString tail = stderr_.right(kStderrKeep).trimmed();
    return tail.isEmpty() ? tr("(nothing on stderr)") : tail;
}

void CliProcess::onError(QProcess::ProcessError error)
{
    if (error != QProcess::FailedToStart || !process_)
        return;
    // No finished() follows a failed start.
    const QString message = tr("Could not start %1: %2").arg(process_->program(), process_->errorString());
    cleanUp();
    emit failedToStart(message);
}

void CliProcess::onFinished(int exitCode, QProcess::ExitStatus status)
{
    readStdout(); // nothing there when discarded
    // Unbounded this last time: stderrText() may be the message of a run that went well.
    stderr_ += QString::fromUtf8(process_->readAllStandardError());
    cleanUp();
    emit exited(exitCode, status);
}

void CliProcess::cleanUp()
{
    killTimer_->stop();
    if (process_) {
        process_->disconnect(this);
        process_->deleteLater();
        process_ = nullptr;
    }
}

} // namespace opsched
