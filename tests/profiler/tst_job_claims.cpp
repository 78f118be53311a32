// Job claims: batches sharing a database never run a job twice. A claim holds while its batch
// lives, a dead batch's claim is taken over at once (same host) or after its lease (another host),
// the run's write checks once more that no other batch completed the job, and a batch that finds a
// job held elsewhere comes back to it at the end: skipped when the other batch completed it,
// reported when that batch failed it.
#include "profiler_test_support.h"

#include "session/batch_runner.h"
#include "store/store.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <ctime>

namespace opsched {
namespace {

using profiler::BatchRunner;
using profiler::JobEvent;
using profiler::JobOutcome;
using store::ClaimOwner;
using store::JobClaim;
using store::OpenMode;
using store::Store;

// Another batch of this very process (a different owner id, a live pid).
ClaimOwner liveOther()
{
    ClaimOwner o = ClaimOwner::thisProcess();
    return o;
}

// A batch whose process has ended: a child that exited and was reaped.
ClaimOwner deadOther()
{
    ClaimOwner o = ClaimOwner::thisProcess();
    const pid_t child = fork();
    if (child == 0)
        _exit(0);
    int status = 0;
    waitpid(child, &status, 0);
    o.pid = child;
    o.pidStart = 0;
    return o;
}

ClaimOwner otherHost()
{
    ClaimOwner o = ClaimOwner::thisProcess();
    o.host = "some-other-node";
    o.pid = 1;
    return o;
}

std::int64_t claimCount(Store& db)
{
    return db.connection().queryInt("SELECT count(*) FROM job_claims").value_or(-1);
}

TEST(JobClaims, ALiveBatchHoldsItsJob)
{
    test::TempDir dir;
    Store db = Store::open(dir.file("c.db"), OpenMode::ReadWrite);
    const ClaimOwner a = ClaimOwner::thisProcess(), b = liveOther();
    EXPECT_EQ(db.claimJob("job1", a).state, JobClaim::State::Claimed);
    EXPECT_EQ(db.claimJob("job1", a).state, JobClaim::State::Claimed) << "its own claim, again";
    const JobClaim held = db.claimJob("job1", b);
    EXPECT_EQ(held.state, JobClaim::State::HeldElsewhere);
    EXPECT_EQ(held.holder, a.describe());
    EXPECT_EQ(db.claimJob("job2", b).state, JobClaim::State::Claimed) << "other jobs stay free";
    db.releaseClaims(a);
    EXPECT_EQ(db.claimJob("job1", b).state, JobClaim::State::Claimed) << "released";
    EXPECT_EQ(claimCount(db), 2);
}

TEST(JobClaims, ADeadBatchsClaimIsTakenOverAtOnce)
{
    test::TempDir dir;
    Store db = Store::open(dir.file("c.db"), OpenMode::ReadWrite);
    const ClaimOwner dead = deadOther(), me = ClaimOwner::thisProcess();
    ASSERT_TRUE(store::processGone(dead.pid, 0));
    EXPECT_EQ(db.claimJob("job1", dead).state, JobClaim::State::Claimed);
    EXPECT_EQ(db.claimJob("job1", me).state, JobClaim::State::Claimed);
}

TEST(JobClaims, AReusedPidIsNotTheClaimant)
{
    EXPECT_FALSE(store::processGone(getpid(), ClaimOwner::thisProcess().pidStart));
    const auto start = ClaimOwner::thisProcess().pidStart;
    if (start == 0)
        GTEST_SKIP() << "no /proc/self/stat here";
    EXPECT_TRUE(store::processGone(getpid(), start + 12345)) << "same pid, another start time";
}

TEST(JobClaims, AnotherHostsClaimHoldsForItsLease)
{
    test::TempDir dir;
    Store db = Store::open(dir.file("c.db"), OpenMode::ReadWrite);
    const ClaimOwner far = otherHost(), me = ClaimOwner::thisProcess();
    EXPECT_EQ(db.claimJob("job1", far).state, JobClaim::State::Claimed);
    EXPECT_EQ(db.claimJob("job1", me).state, JobClaim::State::HeldElsewhere);
    // Its lease runs out (no renewal): taken over.
    db.connection().exec("UPDATE job_claims SET expires_at = " + std::to_string(std::time(nullptr) - 1));
    EXPECT_EQ(db.claimJob("job1", me).state, JobClaim::State::Claimed);
}

// A batch of this host that stopped renewing (stopped, or its pid reused where /proc cannot tell).
TEST(JobClaims, ALapsedClaimIsVoidOnThisHostToo)
{
    test::TempDir dir;
    Store db = Store::open(dir.file("c.db"), OpenMode::ReadWrite);
    const ClaimOwner a = ClaimOwner::thisProcess(), b = liveOther();
    EXPECT_EQ(db.claimJob("job1", a).state, JobClaim::State::Claimed);
    db.connection().exec("UPDATE job_claims SET expires_at = " + std::to_string(std::time(nullptr) - 1));
    EXPECT_EQ(db.claimJob("job1", b).state, JobClaim::State::Claimed);
}

TEST(JobClaims, TheRunsWriteDropsTheClaimAndChecksForARunOfAnotherBatch)
{
    test::TempDir dir;
    Store db = Store::open(dir.file("c.db"), OpenMode::ReadWrite);
    const ClaimOwner a = ClaimOwner::thisProcess(), b = liveOther();
    const auto run = test::simulatedRun("zoo:squeezenet", "ios");
    ASSERT_EQ(db.claimJob(run.jobKey, a).state, JobClaim::State::Claimed);
    const auto first = db.writeJobRun(run, a);
    EXPECT_TRUE(first.written);
    EXPECT_EQ(claimCount(db), 0);
    const JobClaim done = db.claimJob(run.jobKey, b);
    EXPECT_EQ(done.state, JobClaim::State::Complete);
    EXPECT_EQ(done.runId, first.id);
    // A batch whose claim had lapsed and that finished second stores nothing.
    const auto second = db.writeJobRun(test::simulatedRun("zoo:squeezenet", "ios"), b);
    EXPECT_FALSE(second.written);
    EXPECT_EQ(second.id, first.id);
    EXPECT_EQ(db.runSummaries().size(), 1U);
}

TEST(JobClaims, AFailureOfTheOtherBatchIsReportedToTheOneThatWaited)
{
    test::TempDir dir;
    Store db = Store::open(dir.file("c.db"), OpenMode::ReadWrite);
    const ClaimOwner a = ClaimOwner::thisProcess(), b = liveOther();
    auto run = test::simulatedRun("zoo:squeezenet", "ios");
    run.status = store::RunStatus::Failed;
    run.error = "out of memory";
    ASSERT_EQ(db.claimJob(run.jobKey, a).state, JobClaim::State::Claimed);
    const auto waitedSince = db.lastRunId();
    ASSERT_EQ(db.claimJob(run.jobKey, b, waitedSince).state, JobClaim::State::HeldElsewhere);
    db.writeJobRun(run, a);
    const JobClaim failed = db.claimJob(run.jobKey, b, waitedSince);
    EXPECT_EQ(failed.state, JobClaim::State::FailedElsewhere);
    EXPECT_EQ(failed.error, "out of memory");
    // A batch that did not wait for it runs it again, as a resumed batch retries failed jobs.
    EXPECT_EQ(db.claimJob(run.jobKey, b).state, JobClaim::State::Claimed);
}

profiler::ProfileSettings settings()
{
    profiler::ProfileSettings s;
    s.deviceRef = "sim:h100";
    s.repeats = 2;
    return s;
}

TEST(JobClaims, ABatchComesBackToAJobHeldElsewhereAndSkipsItOnceDone)
{
    test::TempDir dir;
    Store db = Store::open(dir.file("c.db"), OpenMode::ReadWrite);
    profiler::SimulatedBackend backend(findSimDevice("sim:h100"), false);
    BatchRunner runner(db, backend, settings());
    const auto jobs = profiler::expandJobs({ "zoo:squeezenet" }, { "sequential", "ios", "nimble" }, { 1 });
    // Another batch is running ios.
    const ClaimOwner other = liveOther();
    auto iosRun = test::simulatedRun("zoo:squeezenet", "ios", 1, false, 2);
    ASSERT_EQ(db.claimJob(iosRun.jobKey, other).state, JobClaim::State::Claimed);

    std::vector<std::string> seen;
    runner.setListener([&](const JobEvent& e) {
        if (e.kind == JobEvent::Kind::Started)
            return;
        const char* what = e.kind == JobEvent::Kind::Waiting ? "waiting"
            : e.outcome == JobOutcome::Done                  ? "done"
            : e.outcome == JobOutcome::Skipped               ? "skipped"
                                                             : "failed";
        seen.push_back(e.job->scheduler + " " + what + (e.otherBatch.empty() ? "" : " (other)"));
        // The other batch finishes ios once this one has run nimble.
        if (e.job->scheduler == "nimble" && e.kind == JobEvent::Kind::Finished)
            db.writeJobRun(iosRun, other);
    });
    const auto result = runner.run(jobs);
    EXPECT_EQ(seen,
        (std::vector<std::string> { "sequential done", "ios waiting (other)", "nimble done", "ios skipped (other)" }));
    EXPECT_TRUE(result.allSucceeded());
    EXPECT_EQ(result.done, 2U);
    EXPECT_EQ(result.skipped, 1U);
    EXPECT_EQ(db.runSummaries().size(), 3U) << "each job once";
    EXPECT_EQ(claimCount(db), 0);
}

TEST(JobClaims, ABatchTakesOverAJobWhoseBatchIsGone)
{
    test::TempDir dir;
    Store db = Store::open(dir.file("c.db"), OpenMode::ReadWrite);
    profiler::SimulatedBackend backend(findSimDevice("sim:h100"), false);
    BatchRunner runner(db, backend, settings());
    const auto jobs = profiler::expandJobs({ "zoo:squeezenet" }, { "ios" }, { 1 });
    const auto key = test::simulatedRun("zoo:squeezenet", "ios", 1, false, 2).jobKey;
    ASSERT_EQ(db.claimJob(key, deadOther()).state, JobClaim::State::Claimed);
    const auto result = runner.run(jobs);
    EXPECT_EQ(result.done, 1U);
    EXPECT_EQ(claimCount(db), 0);
}

TEST(JobClaims, ACancelledBatchLeavesNoClaim)
{
    test::TempDir dir;
    Store db = Store::open(dir.file("c.db"), OpenMode::ReadWrite);
    profiler::SimulatedBackend backend(findSimDevice("sim:h100"), false);
    BatchRunner runner(db, backend, settings());
    std::atomic<bool> cancel { false };
    runner.setCancelFlag(&cancel);
    runner.setListener([&](const JobEvent& e) {
        if (e.kind == JobEvent::Kind::Started)
            cancel = true; // stops inside the job: its run is dropped
    });
    const auto result = runner.run(profiler::expandJobs({ "zoo:squeezenet" }, { "ios", "nimble" }, { 1 }));
    EXPECT_TRUE(result.interrupted);
    EXPECT_EQ(db.runSummaries().size(), 0U);
    EXPECT_EQ(claimCount(db), 0);
}

} // namespace
} // namespace opsched
