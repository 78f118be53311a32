// Job claims: how batches that share one results database never run a job twice.
//
// Before a batch runs a job it claims it: one write transaction checks that the database holds no
// successful run of the job and that no other live batch holds a claim on it, and records the
// claim (job key, the batch's random id, host, pid, process start time, expiry). The run is then
// written in one transaction that checks again that no other batch completed the job, and drops
// the claim. A claim of another batch is void once it has not been renewed for a lease (a
// ClaimKeeper renews a batch's claims while it runs) or, on the same host, as soon as its process
// no longer exists (or its pid now belongs to a process started at another time). So a batch
// killed with SIGKILL leaves a claim that the next batch on that host takes over at once.
// docs/formats.md describes the table.
#pragma once

#include "store/ids.h"
#include "store/sqlite.h"

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace opsched::store {

// Who holds a claim: one per batch.
struct ClaimOwner {
    std::string id; // random
    std::string host;
    std::int64_t pid = 0;
    std::int64_t pidStart = 0; // start time from /proc/PID/stat, in clock ticks since boot; 0: unknown

    // A new owner for a batch of this process.
    static ClaimOwner thisProcess();
    // "pid 1234 on node7"
    std::string describe() const;
};

// The seconds a claim stays valid without renewal (when its holder cannot be checked directly).
inline constexpr std::int64_t kClaimLeaseSeconds = 120;

struct JobClaim {
    enum class State {
        Claimed, // the caller holds the claim now: run the job
        Complete, // the database holds a successful run of the job (runId)
        HeldElsewhere, // another live batch is running it (holder)
        FailedElsewhere, // another batch ran it and failed after the run id given (runId, error)
    };
    State state = State::Claimed;
    RunId runId;
    std::string holder; // "pid 1234 on node7"
    std::string error;
};

// True when the process `pid`, started at `pidStart` (0: not checked), no longer runs on this
// host: no such process, a zombie, or a process started at another time (the pid was reused).
bool processGone(std::int64_t pid, std::int64_t pidStart);

// Renews a batch's claims every lease/4 from a thread of its own, on a connection of its own,
// until destroyed. Failures (a busy or full database) are ignored: the next renewal tries again,
// and a claim that lapses only lets another host's batch take the job over.
class ClaimKeeper {
public:
    ClaimKeeper(const std::string& path, ClaimOwner owner, std::int64_t leaseSeconds = kClaimLeaseSeconds);
    ~ClaimKeeper();
    ClaimKeeper(const ClaimKeeper&) = delete;
    ClaimKeeper& operator=(const ClaimKeeper&) = delete;

private:
    void loop();

    std::string path_;
    ClaimOwner owner_;
    std::int64_t lease_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stop_ = false;
    std::thread thread_;
};

} // namespace opsched::store
