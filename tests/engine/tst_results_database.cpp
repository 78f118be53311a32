// The results-database actions: a file that cannot be read changes nothing (merge checks every
// input before it opens its output), and what comes back is what `profile` stored.
#include "engine/results_database.h"
#include "engine/run/profile_batch.h"

#include "util/error.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace opsched::engine {
namespace {

namespace fs = std::filesystem;

struct Folder {
    Folder()
        : path(fs::temp_directory_path()
            / ("opsched-engine-db-" + std::to_string(getpid()) + "-"
                + ::testing::UnitTest::GetInstance()->current_test_info()->name()))
    {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~Folder() { fs::remove_all(path); }
    std::string file(const std::string& name) const { return (path / name).string(); }
    fs::path path;
};

ProfileRequest smallProfile(const std::string& database)
{
    ProfileRequest r;
    r.models = { "zoo:random?ops=8&width=2&seed=3" };
    r.schedulers = "sequential,ios";
    r.database = database;
    r.repeat = 2;
    return r;
}

TEST(ResultsDatabase, ProfiledRunsListLoadCompareAndExport)
{
    Folder dir;
    const std::string db = dir.file("runs.db");
    const profiler::BatchResult batch = profileBatch(smallProfile(db), {});
    EXPECT_EQ(batch.done, 2u);
    EXPECT_EQ(batch.failed, 0u);

    const auto runs = listRuns(db);
    ASSERT_EQ(runs.size(), 2u);
    const auto loaded = loadRuns(db, { runs[1].id, runs[0].id });
    ASSERT_EQ(loaded.size(), 2u);
    EXPECT_EQ(loaded[0].id.value(), runs[1].id.value());

    const StoredComparison c = compareStoredRuns(db, {}, true);
    ASSERT_EQ(c.groups.size(), 1u);
    EXPECT_EQ(c.groups[0].rows.size(), 2u);
    EXPECT_EQ(c.explained.size(), 1u); // ios against sequential

    const RunExport e = exportStoredRun(db, runs[0].id, "chrome-trace", dir.file("trace.json"));
    EXPECT_FALSE(e.text.empty());
    EXPECT_TRUE(fs::exists(dir.file("trace.json")));
    EXPECT_THROW((void)exportStoredRun(db, runs[0].id, "pdf", "-"), Error);

    // Running the same batch again skips every complete job.
    const profiler::BatchResult again = profileBatch(smallProfile(db), {});
    EXPECT_EQ(again.skipped, 2u);
    EXPECT_EQ(listRuns(db).size(), 2u);
}

TEST(ResultsDatabase, AnEmptyDatabaseHasNothingToCompare)
{
    Folder dir;
    const std::string db = dir.file("empty.db");
    ProfileRequest none = smallProfile(db);
    none.models.clear();
    (void)profileBatch(none, {});
    EXPECT_THROW((void)compareStoredRuns(db, {}, false), Error);
}

TEST(ResultsDatabase, MergeChecksEveryInputBeforeWritingItsOutput)
{
    Folder dir;
    const std::string good = dir.file("good.db");
    (void)profileBatch(smallProfile(good), {});
    const std::string junk = dir.file("junk.db");
    std::ofstream(junk) << std::string(4096, 'x');
    const std::string out = dir.file("out.db");
    EXPECT_THROW((void)mergeDatabases(out, { good, junk }), Error);
    EXPECT_FALSE(fs::exists(out)) << "a bad input must leave the output as it was";

    std::vector<std::string> heard;
    const MergeReport report
        = mergeDatabases(out, { good }, [&](const std::string& in, const store::MergeStats&) { heard.push_back(in); });
    EXPECT_EQ(report.added, 2u);
    EXPECT_EQ(report.totalRuns, 2);
    EXPECT_EQ(heard, std::vector<std::string> { good });
}

TEST(ProfileBatch, RefusesABadRequestBeforeTheDatabaseExists)
{
    Folder dir;
    const std::string db = dir.file("never.db");
    ProfileRequest badScheduler = smallProfile(db);
    badScheduler.schedulers = "sequential,fastest";
    EXPECT_THROW((void)profileBatch(badScheduler, {}), Error);
    ProfileRequest badModel = smallProfile(db);
    badModel.models.push_back("zoo:no_such_network");
    EXPECT_THROW((void)profileBatch(badModel, {}), Error);
    ProfileRequest badBatch = smallProfile(db);
    badBatch.batches = "1,0";
    EXPECT_THROW((void)profileBatch(badBatch, {}), Error);
    EXPECT_FALSE(fs::exists(db));
}

TEST(ProfileBatch, ListsParseOrNameTheBadItem)
{
    EXPECT_EQ(batchList("1,4,16"), (std::vector<std::int64_t> { 1, 4, 16 }));
    EXPECT_EQ(splitList("a,,b,"), (std::vector<std::string> { "a", "b" }));
    try {
        (void)batchList("1,x");
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("'x'"), std::string::npos) << e.what();
    }
    EXPECT_THROW((void)batchList(""), Error);
}

} // namespace
} // namespace opsched::engine
