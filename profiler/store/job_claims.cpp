#include "store/job_claims.h"

#include "store/random_id.h"
#include "store/store.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>

namespace opsched::store {
namespace {

std::int64_t unixNow()
{
    return static_cast<std::int64_t>(std::time(nullptr));
}

std::string hostName()
{
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0)
        return "unknown";
    return buf;
}

// /proc/PID/stat: "pid (comm) state ppid ... starttime ...": the state is the first field after
// the last ')', the start time the 20th.
struct ProcStat {
    char state = '?';
    std::int64_t startTime = 0;
};

std::optional<ProcStat> readProcStat(std::int64_t pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto close = text.rfind(')');
    if (close == std::string::npos)
        return std::nullopt;
    std::istringstream fields(text.substr(close + 1));
    ProcStat st;
    std::string field;
    for (int i = 1; fields >> field; ++i) {
        if (i == 1)
            st.state = field.empty() ? '?' : field[0];
        if (i == 20) {
            char* end = nullptr;
            st.startTime = std::strtoll(field.c_str(), &end, 10);
            return st;
        }
    }
    return std::nullopt;
}

} // namespace

ClaimOwner ClaimOwner::thisProcess()
{
    ClaimOwner o;
    o.id = randomHexId();
    o.host = hostName();
    o.pid = static_cast<std::int64_t>(getpid());
    if (const auto st = readProcStat(o.pid))
        o.pidStart = st->startTime;
    return o;
}

std::string ClaimOwner::describe() const
{
    return "pid " + std::to_string(pid) + " on " + host;
}

bool processGone(std::int64_t pid, std::int64_t pidStart)
{
    if (pid <= 0)
        return true;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
        return true;
    // It exists (or is not ours to signal): a zombie has finished, and a process started at
    // another time is not the one that claimed.
    const auto st = readProcStat(pid);
    if (!st)
        return false; // no /proc to ask: believe it runs
    if (st->state == 'Z' || st->state == 'X')
        return true;
    return pidStart != 0 && st->startTime != pidStart;
}

JobClaim Store::claimJob(
    const std::string& jobKey, const ClaimOwner& me, std::optional<RunId> failedAfter, std::int64_t leaseSeconds)
{
    requireWritable("claiming a job");
    Transaction tx(db_);
    JobClaim claim;
    {
        auto done = db_.prepare("SELECT id FROM runs WHERE job_key = ?1 AND status = 'ok' ORDER BY id LIMIT 1");
        done.bind(1, jobKey);
        if (done.step()) {
            claim.state = JobClaim::State::Complete;
            claim.runId = RunId(done.getInt(0));
            return claim; // nothing written: the transaction rolls back
        }
    }
    if (failedAfter) {
        auto failed = db_.prepare(
            "SELECT id, error, host FROM runs WHERE job_key = ?1 AND status = 'failed' AND id > ?2 ORDER BY id DESC "
            "LIMIT 1");
        failed.bind(1, jobKey).bind(2, failedAfter->value());
        if (failed.step()) {
            claim.state = JobClaim::State::FailedElsewhere;
            claim.runId = RunId(failed.getInt(0));
            claim.error = failed.getText(1);
            claim.holder = "on " + failed.getText(2);
            return claim;
        }
    }
    const std::int64_t now = unixNow();
    {
        auto held = db_.prepare("SELECT owner, host, pid, pid_start, expires_at FROM job_claims WHERE job_key = ?1");
        held.bind(1, jobKey);
        if (held.step() && held.getText(0) != me.id) {
            ClaimOwner other;
            other.id = held.getText(0);
            other.host = held.getText(1);
            other.pid = held.getInt(2);
            other.pidStart = held.getInt(3);
            // Its lease lapses when its batch stops renewing it (gone, or stopped); on this host the
            // process table says at once whether it is gone.
            const bool gone = held.getInt(4) < now || (other.host == me.host && processGone(other.pid, other.pidStart));
            if (!gone) {
                claim.state = JobClaim::State::HeldElsewhere;
                claim.holder = other.describe();
                return claim;
            }
        }
    }
    auto take = db_.prepare(R"sql(
INSERT INTO job_claims(job_key, owner, host, pid, pid_start, claimed_at, expires_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
ON CONFLICT(job_key) DO UPDATE SET owner = excluded.owner, host = excluded.host, pid = excluded.pid,
  pid_start = excluded.pid_start, claimed_at = excluded.claimed_at, expires_at = excluded.expires_at)sql");
    take.bind(1, jobKey).bind(2, me.id).bind(3, me.host).bind(4, me.pid).bind(5, me.pidStart);
    take.bind(6, utcNow()).bind(7, now + leaseSeconds).run();
    tx.commit();
    claim.state = JobClaim::State::Claimed;
    return claim;
}

Store::JobRunWritten Store::writeJobRun(const RunRecord& run, const ClaimOwner& me)
{
    requireWritable("writing a run");
    Transaction tx(db_);
    JobRunWritten result;
    if (run.status == RunStatus::Ok) {
        auto done = db_.prepare("SELECT id FROM runs WHERE job_key = ?1 AND status = 'ok' ORDER BY id LIMIT 1");
        done.bind(1, run.jobKey);
        if (done.step()) {
            result.id = RunId(done.getInt(0));
            result.written = false;
        }
    }
    if (result.written)
        result.id = insertRun(run);
    auto drop = db_.prepare("DELETE FROM job_claims WHERE job_key = ?1 AND owner = ?2");
    drop.bind(1, run.jobKey).bind(2, me.id).run();
    tx.commit();
    return result;
}

void Store::releaseClaims(const ClaimOwner& me)
{
    requireWritable("releasing job claims");
    Transaction tx(db_);
    auto drop = db_.prepare("DELETE FROM job_claims WHERE owner = ?1");
    drop.bind(1, me.id).run();
    tx.commit();
}

ClaimKeeper::ClaimKeeper(const std::string& path, ClaimOwner owner, std::int64_t leaseSeconds)
    : path_(path)
    , owner_(std::move(owner))
    , lease_(leaseSeconds)
    , thread_([this] { loop(); })
{
}

ClaimKeeper::~ClaimKeeper()
{
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void ClaimKeeper::loop()
{
    std::optional<Connection> db;
    std::unique_lock lock(mutex_);
    const auto period = std::chrono::seconds(std::max<std::int64_t>(1, lease_ / 4));
    while (!wake_.wait_for(lock, period, [this] { return stop_; })) {
        lock.unlock();
        try {
            if (!db)
                db.emplace(path_, Connection::Access::ReadWrite);
            auto renew = db->prepare("UPDATE job_claims SET expires_at = ?1 WHERE owner = ?2");
            renew.bind(1, unixNow() + lease_).bind(2, owner_.id).run();
        } catch (const StoreError&) {
            // Busy or full: the next round tries again.
        }
        lock.lock();
    }
}

} // namespace opsched::store
