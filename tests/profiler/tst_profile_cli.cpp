// `opsched-cli profile` as a process: killed with SIGKILL in the middle of a batch it leaves whole
// runs only and a database that passes integrity_check; Ctrl-C (SIGINT) stops it cleanly with exit
// code 130; resuming completes every job exactly once.
#include "profiler_test_support.h"

#include "store/sqlite.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fcntl.h>
#include <thread>

#ifndef OPSCHED_CLI
#error "OPSCHED_CLI must name the opsched-cli binary"
#endif

namespace opsched {
namespace {

using store::Connection;

constexpr int kJobs = 4 * 7 * 3; // models x schedulers x batches below

std::vector<std::string> profileArgs(const std::string& db)
{
    return { "profile", "zoo:random?ops=40&seed=1", "zoo:random?ops=40&seed=2", "zoo:random?ops=40&seed=3",
        "zoo:random?ops=40&seed=4", "--batch", "1,2,4", "--device", "sim:h100", "--warps", "--repeat", "5", "--db",
        db };
}

// Starts opsched-cli with `args`, its output going to `log`.
pid_t spawn(const std::vector<std::string>& args, const std::string& log)
{
    const pid_t pid = fork();
    if (pid == 0) {
        const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        std::vector<char*> argv;
        argv.push_back(const_cast<char*>(OPSCHED_CLI));
        for (const auto& a : args)
            argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        execv(OPSCHED_CLI, argv.data());
        _exit(127);
    }
    return pid;
}

// Exit code, or 128 + signal for a killed process.
int wait(pid_t pid)
{
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::int64_t runCount(const std::string& db)
{
    try {
        Connection c(db, Connection::Access::ReadOnly);
        return c.queryInt("SELECT count(*) FROM runs").value_or(0);
    } catch (const std::exception&) {
        return 0; // not created yet
    }
}

// Waits until the database holds more than `runs` runs; false if the process ended first.
bool waitForRuns(pid_t pid, const std::string& db, std::int64_t runs)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
        if (runCount(db) > runs)
            return true;
        if (waitpid(pid, nullptr, WNOHANG) == pid)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
}

// Whole runs only: every run has its schedule, all its latency samples, kernels and warp samples;
// nothing refers to a run that is not there; SQLite finds the file sound.
void expectWholeRunsOnly(const std::string& db)
{
    Connection c(db, Connection::Access::ReadWrite); // recovers the WAL as any next writer would
    EXPECT_EQ(c.queryText("PRAGMA integrity_check"), "ok");
    EXPECT_EQ(c.queryInt("SELECT count(*) FROM runs WHERE status != 'ok' OR schedule_id IS NULL"), 0);
    EXPECT_EQ(c.queryInt(R"sql(SELECT count(*) FROM runs r WHERE
        (SELECT count(*) FROM latency_samples s WHERE s.run_id = r.id) != 5
        OR (SELECT repeats FROM latencies l WHERE l.run_id = r.id) IS NOT 5
        OR NOT EXISTS (SELECT 1 FROM kernels k WHERE k.run_id = r.id)
        OR NOT EXISTS (SELECT 1 FROM warp_samples w WHERE w.run_id = r.id))sql"),
        0);
    for (const char* table : { "latencies", "latency_samples", "stage_latencies", "kernels", "warp_samples" })
        EXPECT_EQ(
            c.queryInt(std::string("SELECT count(*) FROM ") + table + " WHERE run_id NOT IN (SELECT id FROM runs)"), 0)
            << table;
    EXPECT_EQ(c.queryInt("SELECT count(*) FROM schedules WHERE id NOT IN (SELECT schedule_id FROM runs)"), 0);
}

TEST(ProfileCli, KillNineMidBatchLeavesWholeRunsAndResumeCompletesEachJobOnce)
{
    test::TempDir dir;
    const auto db = dir.file("batch.db");
    const auto log = dir.file("log.txt");
    std::int64_t before = 0;
    int kills = 0;
    for (int round = 0; round < 3; ++round) {
        const pid_t pid = spawn(profileArgs(db), log);
        if (!waitForRuns(pid, db, before + 2)) {
            wait(pid);
            break; // finished before it could be killed: nothing more to interrupt
        }
        kill(pid, SIGKILL);
        EXPECT_EQ(wait(pid), 128 + SIGKILL);
        ++kills;
        expectWholeRunsOnly(db);
        const auto now = runCount(db);
        EXPECT_GT(now, before);
        before = now;
    }
    EXPECT_GT(kills, 0) << "the batch was never killed mid-way; make it longer";
    EXPECT_LT(before, kJobs);

    const pid_t pid = spawn(profileArgs(db), log);
    EXPECT_EQ(wait(pid), 0) << test::readBytes(log);
    expectWholeRunsOnly(db);
    Connection c(db, Connection::Access::ReadOnly);
    EXPECT_EQ(c.queryInt("SELECT count(*) FROM runs"), kJobs);
    EXPECT_EQ(c.queryInt("SELECT count(DISTINCT job_key) FROM runs"), kJobs) << "every job exactly once";
    EXPECT_NE(test::readBytes(log).find(std::to_string(before) + " already in the database"), std::string::npos);
}

TEST(ProfileCli, SigintFinishesTheCurrentRunAndExits130)
{
    test::TempDir dir;
    const auto db = dir.file("batch.db");
    const auto log = dir.file("log.txt");
    const pid_t pid = spawn(profileArgs(db), log);
    ASSERT_TRUE(waitForRuns(pid, db, 1)) << test::readBytes(log);
    kill(pid, SIGINT);
    EXPECT_EQ(wait(pid), 130) << test::readBytes(log);
    const auto out = test::readBytes(log);
    EXPECT_NE(out.find("stopping after the current job"), std::string::npos) << out;
    EXPECT_NE(out.find("interrupted"), std::string::npos) << out;
    expectWholeRunsOnly(db);
    const auto stopped = runCount(db);
    EXPECT_LT(stopped, kJobs);

    EXPECT_EQ(wait(spawn(profileArgs(db), log)), 0);
    EXPECT_EQ(runCount(db), kJobs);
}

} // namespace
} // namespace opsched
