// `opsched-cli` run as a child process: jobs that go through drivers (CUPTI, CUDA, oneDNN) may
// crash, and a crash there must not take the window down. This owns what every such job shares:
// finding the CLI, starting it, a bounded tail of its stderr, and a cancel that asks first
// (SIGTERM) and kills after a grace period. What an exit means is up to the subclass
// (MapProcess, ProfileProcess), which connects to exited() and failedToStart().
#pragma once

#include <QObject>
#include <QProcess>
#include <QStringList>

class QTimer;

namespace opsched {

class CliProcess : public QObject {
    Q_OBJECT

public:
    // What becomes of the child's stdout.
    enum class Stdout { Discard, Lines };

    explicit CliProcess(QObject* parent = nullptr);
    ~CliProcess() override; // a child still running is killed

    // Where opsched-cli is: $OPSCHED_CLI, else next to this executable, else on PATH; empty if nowhere.
    static QString findCli();
    // Overrides findCli() (tests, or a person pointing at another build).
    void setCliPath(const QString& path) { cliPath_ = path; }
    QString cliPath() const { return cliPath_.isEmpty() ? findCli() : cliPath_; }
    // How long cancel() waits for the child to stop after SIGTERM before killing it.
    void setGracePeriod(int ms) { graceMs_ = ms; }
    int gracePeriod() const { return graceMs_; }

    // The CLI to run, or empty with lastError() set: `notFound` when there is none, else that the
    // path is not executable.
    QString runnableCli(const QString& notFound);
    // Runs `cli args`, emitting started() first. The caller checked that none is running.
    void launch(const QString& cli, const QStringList& args, Stdout stdoutMode);
    // Kills a running child without emitting exited() (nobody wants its result any more).
    void abandon();

    bool isRunning() const { return process_ != nullptr; }
    QString lastError() const { return lastError_; }
    // Whether the last child ended because cancel() was called (the user asked; not an error),
    // and whether it then had to be killed for not stopping within the grace period.
    bool wasCancelled() const { return cancelled_; }
    bool wasKilled() const { return killed_; }
    // The child's stderr (its last few thousand characters), and its end for a message.
    QString stderrText() const { return stderr_; }
    QString stderrTail() const;

public slots:
    void cancel();

signals:
    void started(const QString& commandLine);
    // One per non-empty stdout line, trimmed (Stdout::Lines only).
    void stdoutLine(const QString& line);
    // The child ended (isRunning() is false again); stdout and stderr are read to the end.
    void exited(int exitCode, QProcess::ExitStatus status);
    // The child could not be started at all; no exited() follows.
    void failedToStart(const QString& message);

protected:
    // Sets lastError() and returns false: a start() that refuses.
    bool refuse(const QString& why);

private:
    void readStdout();
    void readStderr();
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onError(QProcess::ProcessError error);
    void cleanUp();

    QString cliPath_;
    int graceMs_ = 5000;
    QProcess* process_ = nullptr;
    QTimer* killTimer_ = nullptr;
    bool cancelled_ = false;
    bool killed_ = false;
    QString stderr_;
    QString lastError_;
};

} // namespace opsched
