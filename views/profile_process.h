// `opsched-cli profile` as a child process: profiling on a real GPU goes through the driver and
// CUPTI, and a crash there must not take the window down. Reads the child's one-line-per-job
// progress, cancels politely (SIGTERM: the CLI finishes the current job) and then firmly (kill
// after a grace period), and turns a crash or a non-zero exit into a message a person can act on.
#pragma once

#include <QObject>
#include <QProcess>
#include <QStringList>

class QTimer;

namespace opsched {

struct ProfileRequest {
    QStringList models;     // model references, as opsched-cli takes them
    QStringList schedulers; // empty: every scheduler
    QString batches = QStringLiteral("1"); // comma-separated
    QString device = QStringLiteral("sim:v100");
    QString database;
    bool warps = true;
    int repeat = 10;
    int r = 3;
    int s = 8;
    bool cudaGraph = false;

    // The `opsched-cli` arguments, starting with "profile".
    QStringList arguments() const;
};

class ProfileProcess : public QObject {
    Q_OBJECT

public:
    explicit ProfileProcess(QObject* parent = nullptr);
    ~ProfileProcess() override; // a child still running is killed

    // Where opsched-cli is: $OPSCHED_CLI, else next to this executable, else on PATH; empty if nowhere.
    static QString findCli();
    // Overrides findCli() (tests, or a person pointing at another build).
    void setCliPath(const QString& path) { cliPath_ = path; }
    QString cliPath() const { return cliPath_.isEmpty() ? findCli() : cliPath_; }
    // How long Cancel waits for the child to stop after SIGTERM before killing it.
    void setGracePeriod(int ms) { graceMs_ = ms; }

    // False (and finished() is not emitted) when a batch is already running or no CLI is found;
    // the reason is in lastError().
    bool start(const ProfileRequest& request);
    bool isRunning() const { return process_ != nullptr; }
    QString lastError() const { return lastError_; }
    int jobsDone() const { return done_; }
    int jobsTotal() const { return total_; }

public slots:
    void cancel();
    // Whether the last batch ended because cancel() was called (the user asked; not an error).
    bool wasCancelled() const { return cancelled_; }

signals:
    void started(const QString& commandLine);
    // One per job the child reports ("[3/42] squeezenet ios batch 1: 0.385 ms ..."): its run is in
    // the database now.
    void jobFinished(int done, int total, const QString& line);
    void outputLine(const QString& line);
    // ok: every job succeeded. message says what happened and, when not ok, what to do about it.
    void finished(bool ok, const QString& message);

private:
    void readStdout();
    void readStderr();
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onError(QProcess::ProcessError error);
    void handleLine(const QString& line);
    QString stderrTail() const;
    void cleanUp();

    QString cliPath_;
    int graceMs_ = 5000;
    QProcess* process_ = nullptr;
    QTimer* killTimer_ = nullptr;
    bool cancelled_ = false;
    bool killed_ = false;
    int done_ = 0;
    int total_ = 0;
    QStringList failedJobs_;
    QString summary_;
    QString stderr_;
    QString lastError_;
};

} // namespace opsched
