// `opsched-cli map` as a child process, for mappings over measured devices (cpu, cpu:N, cuda:N):
// measuring op costs goes through oneDNN and the CUDA driver, and a crash there must not take the
// window down. The child writes the mapping file into a temporary folder this object owns;
// finished() hands its path over (mapping_file_result.h reads it).
#pragma once

#include <QObject>
#include <QProcess>
#include <QStringList>

#include <memory>

class QTemporaryDir;
class QTimer;

namespace opsched {

struct MapRequest {
    QString model;   // a model reference as opsched-cli takes it (zoo:NAME?..., a file path)
    qint64 batch = 1;
    QString devices; // comma-separated
    QString mapper = QStringLiteral("milp-split");
    double timeLimitSeconds = 20;

    // The `opsched-cli` arguments, starting with "map", writing the mapping to `output`.
    QStringList arguments(const QString& output) const;
};

class MapProcess : public QObject {
    Q_OBJECT

public:
    explicit MapProcess(QObject* parent = nullptr);
    ~MapProcess() override; // a child still running is killed

    // Overrides ProfileProcess::findCli() ($OPSCHED_CLI, beside this executable, PATH).
    void setCliPath(const QString& path) { cliPath_ = path; }
    QString cliPath() const;
    // How long Cancel waits for the child to stop after SIGTERM before killing it.
    void setGracePeriod(int ms) { graceMs_ = ms; }

    // False (and finished() is not emitted) when a mapping is already running, no CLI is found or
    // no temporary folder can be made; the reason is in lastError().
    bool start(const MapRequest& request);
    bool isRunning() const { return process_ != nullptr; }
    QString lastError() const { return lastError_; }
    // Kills a running child without emitting finished() (the model it maps was closed).
    void abandon();

public slots:
    void cancel();

signals:
    void started(const QString& commandLine);
    // ok: `file` holds the mapping (valid until the next start()). Otherwise message says what
    // went wrong: the CLI's own words on stderr, a crash, or the user's cancel.
    void finished(bool ok, const QString& message, const QString& file);

private:
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onError(QProcess::ProcessError error);
    QString stderrTail() const;
    void cleanUp();

    QString cliPath_;
    int graceMs_ = 3000;
    QProcess* process_ = nullptr;
    QTimer* killTimer_ = nullptr;
    std::unique_ptr<QTemporaryDir> dir_;
    QString output_;
    QString stderr_;
    QString lastError_;
    bool cancelled_ = false;
};

} // namespace opsched
