#include "profile_process.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTimer>

namespace opsched {
namespace {

constexpr int kStderrKeep = 4000; // characters of the child's stderr kept for the message
constexpr int kExitSomeJobsFailed = 3;

} // namespace

QStringList ProfileRequest::arguments() const
{
    QStringList args{QStringLiteral("profile")};
    args << models;
    if (!schedulers.isEmpty())
        args << QStringLiteral("--schedulers") << schedulers.join(QLatin1Char(','));
    args << QStringLiteral("--batch") << batches << QStringLiteral("--device") << device << QStringLiteral("--db")
         << database << QStringLiteral("--repeat") << QString::number(repeat) << QStringLiteral("--r")
         << QString::number(r) << QStringLiteral("--s") << QString::number(s);
    if (warps)
        args << QStringLiteral("--warps");
    if (cudaGraph)
        args << QStringLiteral("--cuda-graph");
    return args;
}

ProfileProcess::ProfileProcess(QObject* parent) : QObject(parent)
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

ProfileProcess::~ProfileProcess()
{
    if (process_) {
        process_->disconnect(this);
        process_->kill();
        process_->waitForFinished(2000);
    }
}

QString ProfileProcess::findCli()
{
    const QString env = qEnvironmentVariable("OPSCHED_CLI");
    if (!env.isEmpty())
        return env;
    const QString beside = QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("opsched-cli"));
    if (QFileInfo(beside).isExecutable())
        return beside;
    return QStandardPaths::findExecutable(QStringLiteral("opsched-cli"));
}

bool ProfileProcess::start(const ProfileRequest& request)
{
    if (process_) {
        lastError_ = tr("A profiling batch is already running.");
        return false;
    }
    const QString cli = cliPath();
    if (cli.isEmpty() || !QFileInfo(cli).isExecutable()) {
        lastError_ = cli.isEmpty()
                         ? tr("opsched-cli was not found next to opsched or on PATH. Build it (cmake --build build "
                              "--target opsched-cli), or set OPSCHED_CLI to its path.")
                         : tr("%1 is not an executable file. Set OPSCHED_CLI to opsched-cli's path.").arg(cli);
        return false;
    }
    cancelled_ = killed_ = false;
    done_ = total_ = 0;
    failedJobs_.clear();
    summary_.clear();
    stderr_.clear();
    lastError_.clear();

    process_ = new QProcess(this);
    connect(process_, &QProcess::readyReadStandardOutput, this, &ProfileProcess::readStdout);
    connect(process_, &QProcess::readyReadStandardError, this, &ProfileProcess::readStderr);
    connect(process_, &QProcess::finished, this, &ProfileProcess::onFinished);
    connect(process_, &QProcess::errorOccurred, this, &ProfileProcess::onError);
    const QStringList args = request.arguments();
    emit started(cli + QLatin1Char(' ') + args.join(QLatin1Char(' ')));
    process_->start(cli, args);
    return true;
}

void ProfileProcess::cancel()
{
    if (!process_ || cancelled_)
        return;
    cancelled_ = true;
    // The CLI stops after the current job on SIGTERM; a child that does not is killed later.
    process_->terminate();
    killTimer_->start(graceMs_);
}

void ProfileProcess::readStdout()
{
    while (process_ && process_->canReadLine())
        handleLine(QString::fromUtf8(process_->readLine()).trimmed());
}

void ProfileProcess::readStderr()
{
    if (!process_)
        return;
    stderr_ += QString::fromUtf8(process_->readAllStandardError());
    if (stderr_.size() > 2 * kStderrKeep)
        stderr_ = stderr_.right(kStderrKeep);
}

void ProfileProcess::handleLine(const QString& line)
{
    if (line.isEmpty())
        return;
    emit outputLine(line);
    static const QRegularExpression job(QStringLiteral(R"(^\[(\d+)/(\d+)\] (.*)$)"));
    if (const auto m = job.match(line); m.hasMatch()) {
        done_ = m.captured(1).toInt();
        total_ = m.captured(2).toInt();
        if (m.captured(3).contains(QStringLiteral(": FAILED: ")))
            failedJobs_ << m.captured(3);
        emit jobFinished(done_, total_, line);
    } else if (line.contains(QStringLiteral(" jobs: "))) {
        summary_ = line;
    }
}

QString ProfileProcess::stderrTail() const
{
    QString tail = stderr_.right(kStderrKeep).trimmed();
    return tail.isEmpty() ? tr("(nothing on stderr)") : tail;
}

void ProfileProcess::onError(QProcess::ProcessError error)
{
    if (error != QProcess::FailedToStart || !process_)
        return;
    // No finished() follows a failed start.
    const QString message = tr("Could not start %1: %2").arg(process_->program(), process_->errorString());
    cleanUp();
    emit finished(false, message);
}

void ProfileProcess::onFinished(int exitCode, QProcess::ExitStatus status)
{
    readStdout();
    readStderr();
    const QString progress = total_ > 0 ? tr("after %1 of %2 jobs").arg(done_).arg(total_) : tr("before its first job");
    const QString kept = tr("Every run it finished is in the database; profile again to resume the rest.");
    bool ok = false;
    QString message;
    if (cancelled_) {
        message = killed_ ? tr("Cancelled: opsched-cli did not stop within %1 s and was killed %2. %3")
                                .arg(graceMs_ / 1000.0)
                                .arg(progress, kept)
                          : tr("Cancelled %1. %2").arg(progress, kept);
    } else if (status == QProcess::CrashExit) {
        message = tr("The profiler (opsched-cli) crashed%1 %2. The window is unaffected. %3\n\nIts last messages:\n%4")
                      .arg(exitCode > 0 ? tr(" (signal %1)").arg(exitCode) : QString(), progress, kept, stderrTail());
    } else if (exitCode == 0) {
        ok = true;
        message = summary_.isEmpty() ? tr("Profiling finished.") : summary_;
    } else if (exitCode == kExitSomeJobsFailed) {
        message = tr("%1 of %2 jobs failed:\n%3").arg(failedJobs_.size()).arg(total_).arg(failedJobs_.join('\n'));
    } else if (exitCode == 1 || exitCode == 2) {
        message = tr("opsched-cli refused the request (exit %1):\n%2").arg(exitCode).arg(stderrTail());
    } else if (exitCode > 128) {
        message = tr("opsched-cli was stopped by signal %1 %2. %3").arg(exitCode - 128).arg(progress, kept);
    } else {
        message = tr("opsched-cli failed (exit %1) %2:\n%3").arg(exitCode).arg(progress, stderrTail());
    }
    cleanUp();
    emit finished(ok, message);
}

void ProfileProcess::cleanUp()
{
    killTimer_->stop();
    if (process_) {
        process_->disconnect(this);
        process_->deleteLater();
        process_ = nullptr;
    }
}

} // namespace opsched
