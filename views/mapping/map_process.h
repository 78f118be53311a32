// `opsched-cli map` as a child process, for mappings over measured devices (cpu, cpu:N, cuda:N):
// measuring op costs goes through oneDNN and the CUDA driver, and a crash there must not take the
// window down (CliProcess). The child writes the mapping file into a temporary folder this object
// owns; finished() hands its path over (mapping_file_result.h reads it).
#pragma once

#include "profile/cli_process.h"

#include "engine/child_protocol.h"
#include "engine/requests.h"

#include <memory>

class QTemporaryDir;

namespace opsched {

// The child's arguments for `request`, writing the mapping to `output` (engine/child_protocol.h's),
// as Qt strings.
QStringList mapArguments(const engine::MapRequest& request, const QString& output);

// Inherits from CliProcess: setCliPath, setGracePeriod (3 s here), isRunning, lastError, cancel,
// abandon (kills a running child without emitting finished(): the model it maps was closed), started.
class MapProcess : public CliProcess {
    Q_OBJECT

public:
    explicit MapProcess(QObject* parent = nullptr);
    ~MapProcess() override; // a child still running is killed before its folder goes

    // False (and finished() is not emitted) when a mapping is already running, no CLI is found or
    // no temporary folder can be made; the reason is in lastError().
    bool start(const engine::MapRequest& request);

signals:
    // Each phase the child reports (engine/child_protocol.h's MapProgressEvent: pricing the ops,
    // searching, found), as it starts.
    void progress(const engine::child::MapProgressEvent& event);
    // ok: `file` holds the mapping (valid until the next start()). Otherwise message says what
    // went wrong: the CLI's own words on stderr, a crash, or the user's cancel.
    void finished(bool ok, const QString& message, const QString& file);

private:
    void onExited(int exitCode, QProcess::ExitStatus status);

    std::unique_ptr<QTemporaryDir> dir_;
    QString output_;
};

} // namespace opsched
