// `opsched-cli profile` as a child process: profiling on a real GPU goes through the driver and
// CUPTI, and a crash there must not take the window down (CliProcess). Reads the child's JSON
// progress lines (engine/child_protocol.h; on cancel, SIGTERM, the CLI finishes the current job)
// and turns a crash or a non-zero exit into a message a person can act on.
#pragma once

#include "profile/cli_process.h"

#include "engine/requests.h"

namespace opsched {

// The child's arguments for `request` (engine/child_protocol.h's), as Qt strings.
QStringList profileArguments(const engine::ProfileRequest& request);

// Inherits from CliProcess: findCli, setCliPath, setGracePeriod (5 s), isRunning, lastError,
// cancel, wasCancelled, started.
class ProfileProcess : public CliProcess {
    Q_OBJECT

public:
    explicit ProfileProcess(QObject* parent = nullptr);

    // False (and finished() is not emitted) when a batch is already running or no CLI is found;
    // the reason is in lastError().
    bool start(const engine::ProfileRequest& request);
    int jobsDone() const { return done_; }
    int jobsTotal() const { return total_; }

signals:
    // One per job the child reports, `line` as a person reads it ("[3/42] squeezenet ios batch 1:
    // 0.385 ms ..."): its run is in the database now.
    void jobFinished(int done, int total, const QString& line);
    // Every line of the child's output, progress as a person reads it (engine::child::describe).
    void outputLine(const QString& line);
    // ok: every job succeeded. message says what happened and, when not ok, what to do about it.
    void finished(bool ok, const QString& message);

private:
    void handleLine(const QString& line);
    void onExited(int exitCode, QProcess::ExitStatus status);

    int done_ = 0;
    int total_ = 0;
    QStringList failedJobs_;
    QString summary_;
};

} // namespace opsched
