#include "profile/profile_process.h"

#include <QRegularExpression>

namespace opsched {
namespace {

constexpr int kExitSomeJobsFailed = 3;

} // namespace

QStringList ProfileRequest::arguments() const
{
    QStringList args { QStringLiteral("profile") };
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

ProfileProcess::ProfileProcess(QObject* parent)
    : CliProcess(parent)
{
    setGracePeriod(5000);
    connect(this, &CliProcess::stdoutLine, this, &ProfileProcess::handleLine);
    connect(this, &CliProcess::exited, this, &ProfileProcess::onExited);
    connect(this, &CliProcess::failedToStart, this, [this](const QString& message) { emit finished(false, message); });
}

bool ProfileProcess::start(const ProfileRequest& request)
{
    if (isRunning())
        return refuse(tr("A profiling batch is already running."));
    const QString cli = runnableCli(tr("opsched-cli was not found next to opsched or on PATH. Build it (cmake --build "
                                       "build --target opsched-cli), or set OPSCHED_CLI to its path."));
    if (cli.isEmpty())
        return false;
    done_ = total_ = 0;
    failedJobs_.clear();
    summary_.clear();
    launch(cli, request.arguments(), Stdout::Lines);
    return true;
}

void ProfileProcess::handleLine(const QString& line)
{
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

void ProfileProcess::onExited(int exitCode, QProcess::ExitStatus status)
{

    const QString progress = total_ > 0 ? tr("after %1 of %2 jobs").arg(done_).arg(total_) : tr("before its first job");
    const QString kept = tr("Every run it finished is in the database; profile again to resume the rest.");
    bool ok = false;
    QString message;
    if (wasCancelled()) {
        message = wasKilled() ? tr("Cancelled: opsched-cli did not stop within %1 s and was killed %2. %3")
                                    .arg(gracePeriod() / 1000.0)
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
    emit finished(ok, message);
}

} // namespace opsched
