#include "profile/profile_process.h"

#include "engine/child_protocol.h"

namespace opsched {

QStringList profileArguments(const engine::ProfileRequest& request)
{
    QStringList args;
    for (const auto& a : engine::child::profileArguments(request))
        args << QString::fromStdString(a);
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

bool ProfileProcess::start(const engine::ProfileRequest& request)
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
    launch(cli, profileArguments(request), Stdout::Lines);
    return true;
}

void ProfileProcess::handleLine(const QString& line)
{
    using engine::child::ProgressEvent;
    const auto event = engine::child::parseProgressLine(line.toStdString());
    if (!event) {
        emit outputLine(line); // text for people (a warning, a note)
        return;
    }
    const QString text = QString::fromStdString(engine::child::describe(*event));
    emit outputLine(text);
    switch (event->kind) {
    case ProgressEvent::Kind::Job:
        done_ = static_cast<int>(event->done);
        total_ = static_cast<int>(event->total);
        if (event->outcome == ProgressEvent::Outcome::Failed)
            failedJobs_ << QString::fromStdString(event->what + ": FAILED: " + event->error);
        emit jobFinished(done_, total_, text);
        break;
    case ProgressEvent::Kind::Summary:
        summary_ = text;
        break;
    case ProgressEvent::Kind::Waiting:
        break;
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
    } else if (exitCode == engine::child::kExitSomeJobsFailed) {
        message = tr("%1 of %2 jobs failed:\n%3").arg(failedJobs_.size()).arg(total_).arg(failedJobs_.join('\n'));
    } else if (exitCode == engine::child::kExitError || exitCode == engine::child::kExitUsage) {
        message = tr("opsched-cli refused the request (exit %1):\n%2").arg(exitCode).arg(stderrTail());
    } else if (exitCode > 128) {
        message = tr("opsched-cli was stopped by signal %1 %2. %3").arg(exitCode - 128).arg(progress, kept);
    } else {
        message = tr("opsched-cli failed (exit %1) %2:\n%3").arg(exitCode).arg(progress, stderrTail());
    }
    emit finished(ok, message);
}

} // namespace opsched
