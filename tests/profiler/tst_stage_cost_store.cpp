// The measured cost model's cache on disk (an opsched database's cost_cache table): a second run
// times nothing, a corrupt or foreign file is refused with a message that says what to do and is
// left as it was, and a missing folder is created.
#include "profiler/profiler_test_support.h"
#include "support/fake_timer.h"

#include "model/model_ref.h"
#include "schedule/schedulers.h"
#include "session/stage_cost_store.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace opsched {
namespace {

using test::CountingTimer;

const SimDevice& h100()
{
    return findSimDevice("sim:h100");
}

TEST(StageCostStore, SecondRunFromTheFileTimesNothing)
{
    test::TempDir dir;
    const std::string path = dir.file("nested/folder/costs.db");
    const Graph g = loadModel("zoo:inception_v3", 1);
    std::optional<Schedule> fresh;
    std::size_t timed = 0;
    {
        profiler::SqliteStageCostStore store(path);
        CountingTimer timer(h100());
        MeasuredStageCost m(timer, "fake:0", h100(), &store);
        fresh = runScheduler("ios", g, m).schedule;
        m.opLatencies(g);
        m.flush();
        timed = timer.stages + timer.ops;
        EXPECT_EQ(store.size(), timed);
    }
    ASSERT_GT(timed, 0U);
    profiler::SqliteStageCostStore store(path);
    CountingTimer timer(h100());
    MeasuredStageCost m(timer, "fake:0", h100(), &store);
    EXPECT_EQ(runScheduler("ios", g, m).schedule, fresh);
    m.opLatencies(g);
    EXPECT_EQ(timer.stages + timer.ops, 0U);
    EXPECT_EQ(m.counts().storeHits, timed);
}

TEST(StageCostStore, TheDestructorWritesWhatWasNotFlushed)
{
    test::TempDir dir;
    const std::string path = dir.file("costs.db");
    const Graph g = loadModel("zoo:squeezenet", 1);
    {
        profiler::SqliteStageCostStore store(path);
        CountingTimer timer(h100());
        MeasuredStageCost m(timer, "fake:0", h100(), &store);
        runScheduler("ios", g, m);
    }
    profiler::SqliteStageCostStore store(path);
    EXPECT_GT(store.size(), 0U);
}

TEST(StageCostStore, CorruptOrForeignFilesAreRefusedClearlyAndLeftAlone)
{
    test::TempDir dir;
    struct Case {
        const char* name;
        std::string bytes;
    };
    std::string truncatedSqlite = "SQLite format 3";
    truncatedSqlite.push_back('\0');
    truncatedSqlite += std::string(200, 'x');
    const std::vector<Case> cases = {
        { "text.db", "this is not a database\n" },
        { "truncated.db", truncatedSqlite },
    };
    for (const auto& c : cases) {
        const std::string path = dir.file(c.name);
        {
            std::ofstream out(path, std::ios::binary);
            out << c.bytes;
        }
        try {
            profiler::SqliteStageCostStore store(path);
            ADD_FAILURE() << c.name << " was accepted";
        } catch (const Error& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find(path), std::string::npos) << what;
            EXPECT_NE(what.find("--no-cost-cache"), std::string::npos) << what;
            EXPECT_NE(what.find("remove the file"), std::string::npos) << what;
        }
        EXPECT_EQ(test::readBytes(path), c.bytes) << c.name << " was modified";
    }
}

TEST(StageCostStore, DefaultPathFollowsXdgThenHome)
{
    const char* oldXdg = std::getenv("XDG_CACHE_HOME");
    const std::string savedXdg = oldXdg ? oldXdg : "";
    ::setenv("XDG_CACHE_HOME", "/tmp/xdg-here", 1);
    EXPECT_EQ(profiler::defaultStageCostCachePath(), "/tmp/xdg-here/opsched/stage-costs.db");
    ::unsetenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    if (home && *home) {
        EXPECT_EQ(profiler::defaultStageCostCachePath(), std::string(home) + "/.cache/opsched/stage-costs.db");
    }
    if (oldXdg)
        ::setenv("XDG_CACHE_HOME", savedXdg.c_str(), 1);
}

} // namespace
} // namespace opsched
