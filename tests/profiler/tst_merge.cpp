// Merging result databases: runs of several inputs end in one file, whole and only once, and the
// inputs are never changed.
#include "profiler_test_support.h"

#include "store/merge.h"
#include "store/store.h"

#include <gtest/gtest.h>

namespace opsched {
namespace {

using store::OpenMode;
using store::Store;

TEST(Merge, RunsFromEveryInputOnceAndInputsUntouched)
{
    test::TempDir dir;
    {
        Store a = Store::open(dir.file("a.db"), OpenMode::ReadWrite);
        a.writeRun(test::simulatedRun("zoo:squeezenet", "sequential"));
        a.writeRun(test::simulatedRun("zoo:squeezenet", "ios"));
        Store b = Store::open(dir.file("b.db"), OpenMode::ReadWrite);
        b.writeRun(test::simulatedRun("zoo:random?ops=12", "greedy", 2));
        b.addCostCache("sim:h100", 2, { { "sig", 42.0 } });
    }
    const auto hashA = test::fileHash(dir.file("a.db"));
    const auto hashB = test::fileHash(dir.file("b.db"));

    Store out = Store::open(dir.file("out.db"), OpenMode::ReadWrite);
    auto sa = store::mergeInto(out, dir.file("a.db"));
    auto sb = store::mergeInto(out, dir.file("b.db"));
    EXPECT_EQ(sa.runsAdded, 2U);
    EXPECT_EQ(sb.runsAdded, 1U);
    EXPECT_EQ(sb.costEntries, 1U);

    // Again: nothing new.
    sa = store::mergeInto(out, dir.file("a.db"));
    EXPECT_EQ(sa.runsAdded, 0U);
    EXPECT_EQ(sa.runsAlreadyPresent, 2U);

    const auto runs = out.runSummaries();
    ASSERT_EQ(runs.size(), 3U);
    EXPECT_EQ(out.connection().queryInt("SELECT count(*) FROM devices"), 1);
    EXPECT_EQ(out.connection().queryInt("SELECT count(*) FROM models"), 2);
    EXPECT_EQ(out.loadCostCache("sim:h100", 2).at("sig"), 42.0);

    // Whole runs: kernels, warps and schedules came along.
    Store a = Store::open(dir.file("a.db"), OpenMode::ReadOnly);
    const auto original = a.loadRun(store::RunId(2));
    const auto merged = out.loadRun(runs[1].id);
    EXPECT_EQ(merged.uid, original.uid);
    EXPECT_EQ(merged.kernels.size(), original.kernels.size());
    EXPECT_EQ(merged.warps.size(), original.warps.size());
    EXPECT_EQ(merged.schedule->document, original.schedule->document);
    EXPECT_EQ(merged.latenciesNs, original.latenciesNs);

    EXPECT_EQ(test::fileHash(dir.file("a.db")), hashA);
    EXPECT_EQ(test::fileHash(dir.file("b.db")), hashB);
}

TEST(Merge, RefusesToMergeAFileIntoItself)
{
    test::TempDir dir;
    Store out = Store::open(dir.file("out.db"), OpenMode::ReadWrite);
    EXPECT_THROW(store::mergeInto(out, dir.file("out.db")), store::StoreError);
}

TEST(Merge, ForeignInputIsRefused)
{
    test::TempDir dir;
    test::writeBytes(dir.file("junk.db"), std::string(3000, 'x'));
    Store out = Store::open(dir.file("out.db"), OpenMode::ReadWrite);
    EXPECT_THROW(store::mergeInto(out, dir.file("junk.db")), store::StoreError);
    EXPECT_TRUE(out.runSummaries().empty());
}

} // namespace
} // namespace opsched
