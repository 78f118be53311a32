// `profile`: every model x scheduler x batch of a request run on one device (simulated, or cuda:N
// measured with CUPTI) and stored in a results database, job by job, each run in one transaction,
// jobs already complete skipped (so the same command resumes an interrupted batch). The window's
// Profile panel runs `opsched-cli profile` as a child process, which calls this.
#pragma once

#include "engine/requests.h"

#include "session/batch_runner.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace opsched::engine {

// "1,4,16" -> {1, 4, 16}; throws Error naming an item that is not a batch size within kBatch.
std::vector<std::int64_t> batchList(const std::string& list);
// "a,b" -> {"a", "b"}; empty items dropped.
std::vector<std::string> splitList(const std::string& list);

struct ProfileHooks {
    // Once everything is checked and the database is open, just before the first job: where a front
    // end starts its clock and takes over Ctrl-C (before it, a signal ends the process as usual).
    std::function<void()> beforeRun;
    std::function<void(const profiler::JobEvent&)> onJob; // every job's start, waits and end
    std::function<void(const std::string&)> note; // remarks for people (a database upgraded)
    const std::atomic<bool>* cancel = nullptr; // set: stop after the current job
};

// Checks everything before the first job (schedulers, batches, the device and, on cuda:N,
// profiling permission, every model reference) and throws Error naming what is wrong; a database
// error mid-batch (disk full) is thrown as Error saying that every job finished before is stored.
profiler::BatchResult profileBatch(const ProfileRequest& request, const ProfileHooks& hooks);

} // namespace opsched::engine
