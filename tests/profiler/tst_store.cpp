// The results store: a run written and read back whole, string interning, job keys, the cost
// cache, WAL with a reader beside a writer, and read-only stores refusing writes.
#include "profiler_test_support.h"

#include "store/comparison.h"
#include "store/store.h"

#include <gtest/gtest.h>

namespace opsched {
namespace {

using store::OpenMode;
using store::Store;

TEST(Store, RunRoundTripsWhole)
{
    test::TempDir dir;
    const store::RunRecord written = test::simulatedRun("zoo:squeezenet", "ios");
    ASSERT_FALSE(written.kernels.empty());
    ASSERT_FALSE(written.warps.empty());
    ASSERT_FALSE(written.stages.empty());

    store::RunId id;
    {
        Store db = Store::open(dir.file("r.db"), OpenMode::ReadWrite);
        EXPECT_TRUE(db.created());
        id = db.writeRun(written);
    }
    Store db = Store::open(dir.file("r.db"), OpenMode::ReadOnly);
    const store::RunRecord read = db.loadRun(id);
    EXPECT_EQ(read.id, id);
    EXPECT_EQ(read.uid.size(), 32U);
    EXPECT_EQ(read.jobKey, written.jobKey);
    EXPECT_EQ(read.device.key, "sim:h100");
    EXPECT_EQ(read.device.smCount, written.device.smCount);
    EXPECT_EQ(read.device.memoryBandwidth, written.device.memoryBandwidth);
    EXPECT_FALSE(read.device.computeMajor.has_value());
    EXPECT_EQ(read.model.sha256, written.model.sha256);
    EXPECT_EQ(read.model.ops, written.model.ops);
    EXPECT_EQ(read.batch, 1);
    EXPECT_EQ(read.status, store::RunStatus::Ok);
    EXPECT_TRUE(read.simulated);
    EXPECT_TRUE(read.warpsCollected);
    EXPECT_EQ(read.averageActiveWarps, written.averageActiveWarps);
    EXPECT_EQ(read.latenciesNs, written.latenciesNs);
    ASSERT_TRUE(read.schedule.has_value());
    EXPECT_EQ(read.schedule->scheduler, "ios");
    EXPECT_EQ(read.schedule->format, "opsched-schedule");
    EXPECT_EQ(read.schedule->document, written.schedule->document);
    EXPECT_EQ(read.schedule->plan, written.schedule->plan);
    EXPECT_EQ(read.schedule->states, written.schedule->states);
    ASSERT_EQ(read.stages.size(), written.stages.size());
    for (std::size_t i = 0; i < read.stages.size(); ++i) {
        EXPECT_EQ(read.stages[i].startNs, written.stages[i].startNs);
        EXPECT_EQ(read.stages[i].endNs, written.stages[i].endNs);
    }
    ASSERT_EQ(read.kernels.size(), written.kernels.size());
    for (std::size_t i = 0; i < read.kernels.size(); ++i) {
        // Written in start order, read back in start order.
        EXPECT_EQ(read.kernels[i].start, written.kernels[i].start) << i;
        EXPECT_EQ(read.kernels[i].end, written.kernels[i].end) << i;
        EXPECT_EQ(read.kernels[i].streamId, written.kernels[i].streamId) << i;
        EXPECT_EQ(read.kernels[i].opId, written.kernels[i].opId) << i;
        EXPECT_EQ(read.kernels[i].launchId, written.kernels[i].launchId) << i;
        EXPECT_EQ(read.kernels[i].shortName, written.kernels[i].shortName) << i;
        EXPECT_EQ(read.kernels[i].demangledName, written.kernels[i].demangledName) << i;
        EXPECT_EQ(read.kernels[i].warps, written.kernels[i].warps) << i;
        EXPECT_FALSE(read.kernels[i].registersPerThread.has_value()) << "the simulator has no registers";
    }
    ASSERT_EQ(read.warps.size(), written.warps.size());
    for (std::size_t i = 0; i < read.warps.size(); ++i) {
        EXPECT_EQ(read.warps[i].timeNs, written.warps[i].timeNs);
        EXPECT_EQ(read.warps[i].durationNs, written.warps[i].durationNs);
        EXPECT_EQ(read.warps[i].activeWarps, written.warps[i].activeWarps);
        EXPECT_FALSE(read.warps[i].smActivePct.has_value());
    }
    // The host thread's calls: one launch per kernel, waits and barriers, in time order.
    ASSERT_GT(written.hostCalls.size(), written.kernels.size());
    ASSERT_EQ(read.hostCalls.size(), written.hostCalls.size());
    for (std::size_t i = 0; i < read.hostCalls.size(); ++i) {
        EXPECT_EQ(read.hostCalls[i].startNs, written.hostCalls[i].startNs) << i;
        EXPECT_EQ(read.hostCalls[i].endNs, written.hostCalls[i].endNs) << i;
        EXPECT_EQ(read.hostCalls[i].name, written.hostCalls[i].name) << i;
        EXPECT_EQ(read.hostCalls[i].launchId, written.hostCalls[i].launchId) << i;
    }
}

TEST(Store, KernelNamesAreInternedOnce)
{
    test::TempDir dir;
    Store db = Store::open(dir.file("r.db"), OpenMode::ReadWrite);
    db.writeRun(test::simulatedRun("zoo:squeezenet", "sequential"));
    db.writeRun(test::simulatedRun("zoo:squeezenet", "greedy"));
    auto& c = db.connection();
    const auto strings = c.queryInt("SELECT count(*) FROM StringIds").value_or(0);
    const auto distinct = c.queryInt("SELECT count(*) FROM (SELECT DISTINCT s.value FROM kernels k JOIN StringIds s "
                                     "ON s.id IN (k.shortName, k.demangledName))")
                              .value_or(-1);
    EXPECT_EQ(strings, distinct);
    EXPECT_EQ(c.queryInt("SELECT count(*) FROM kernels WHERE shortName IS NULL OR demangledName IS NULL"), 0);
    EXPECT_EQ(c.queryInt("SELECT count(*) FROM devices"), 1) << "one device row shared by both runs";
    EXPECT_EQ(c.queryInt("SELECT count(*) FROM models"), 1);
}

TEST(Store, CompletedJobKeysCountSuccessfulRunsOnly)
{
    test::TempDir dir;
    Store db = Store::open(dir.file("r.db"), OpenMode::ReadWrite);
    store::RunRecord ok = test::simulatedRun("zoo:squeezenet", "sequential");
    store::RunRecord failed = ok;
    failed.jobKey = "another job";
    failed.status = store::RunStatus::Failed;
    failed.error = "it broke";
    failed.schedule.reset();
    failed.kernels.clear();
    failed.warps.clear();
    failed.latenciesNs.clear();
    db.writeRun(ok);
    const auto failedId = db.writeRun(failed);
    const auto keys = db.completedJobKeys();
    EXPECT_EQ(keys.size(), 1U);
    EXPECT_TRUE(keys.contains(ok.jobKey));
    const auto back = db.loadRun(failedId);
    EXPECT_EQ(back.status, store::RunStatus::Failed);
    EXPECT_EQ(back.error, "it broke");
    EXPECT_FALSE(back.schedule.has_value());
    const auto summaries = db.runSummaries();
    ASSERT_EQ(summaries.size(), 2U);
    EXPECT_FALSE(summaries[1].latency.has_value());
}

TEST(Store, ComparisonPicksLatestRunPerSchedulerAndSpeedups)
{
    test::TempDir dir;
    Store db = Store::open(dir.file("r.db"), OpenMode::ReadWrite);
    db.writeRun(test::simulatedRun("zoo:squeezenet", "sequential"));
    db.writeRun(test::simulatedRun("zoo:squeezenet", "ios"));
    const auto again = db.writeRun(test::simulatedRun("zoo:squeezenet", "ios"));
    db.writeRun(test::simulatedRun("zoo:squeezenet", "ios", 2));
    const auto groups = store::compareRuns(db.runSummaries());
    ASSERT_EQ(groups.size(), 2U);
    ASSERT_EQ(groups[0].rows.size(), 2U);
    EXPECT_EQ(groups[0].rows[0].scheduler, "sequential");
    EXPECT_DOUBLE_EQ(*groups[0].rows[0].speedup, 1.0);
    EXPECT_EQ(groups[0].rows[1].run, again);
    EXPECT_GT(*groups[0].rows[1].speedup, 1.0) << "IOS beats sequential on SqueezeNet (simulated)";
    EXPECT_GT(*groups[0].rows[1].warpsVsSequential, 1.0) << "with more active warps";
    EXPECT_FALSE(groups[1].rows[0].speedup.has_value()) << "batch 2 has no sequential run";
    store::ComparisonFilter onlyBatch2;
    onlyBatch2.batch = 2;
    EXPECT_EQ(store::compareRuns(db.runSummaries(), onlyBatch2).size(), 1U);
}

TEST(Store, CostCacheAveragesRepeatedMeasurementsAndMergesIdempotently)
{
    test::TempDir dir;
    Store db = Store::open(dir.file("r.db"), OpenMode::ReadWrite);
    db.addCostCache("sim:h100", 1, { { "a", 100.0 }, { "b", 50.0 } });
    db.addCostCache("sim:h100", 1, { { "a", 200.0 } });
    db.addCostCache("sim:h100", 2, { { "a", 7.0 } });
    auto b1 = db.loadCostCache("sim:h100", 1);
    EXPECT_DOUBLE_EQ(b1["a"], 150.0);
    EXPECT_DOUBLE_EQ(b1["b"], 50.0);
    EXPECT_EQ(db.loadCostCache("sim:h100", 2).size(), 1U);
    EXPECT_TRUE(db.loadCostCache("sim:v100", 1).empty());

    const auto entries = db.costCacheEntries();
    Store other = Store::open(dir.file("o.db"), OpenMode::ReadWrite);
    other.mergeCostCache(entries);
    other.mergeCostCache(entries);
    EXPECT_EQ(other.costCacheEntries().size(), entries.size());
    EXPECT_DOUBLE_EQ(other.loadCostCache("sim:h100", 1)["a"], 150.0);
}

TEST(Store, ReaderReadsWhileAWriteTransactionIsOpen)
{
    test::TempDir dir;
    Store writer = Store::open(dir.file("r.db"), OpenMode::ReadWrite);
    EXPECT_EQ(writer.connection().queryText("PRAGMA journal_mode"), "wal");
    writer.writeRun(test::simulatedRun("zoo:squeezenet", "sequential"));

    Store reader = Store::open(dir.file("r.db"), OpenMode::ReadOnly);
    store::Transaction tx(writer.connection());
    writer.connection().exec("DELETE FROM kernels");
    // WAL: the reader sees the last commit, without waiting for the writer.
    EXPECT_EQ(reader.runSummaries().size(), 1U);
    EXPECT_GT(reader.connection().queryInt("SELECT count(*) FROM kernels").value_or(0), 0);
    tx.commit();
    EXPECT_EQ(reader.connection().queryInt("SELECT count(*) FROM kernels"), 0);
}

TEST(Store, ReadOnlyStoreRefusesWritesAndNeedsAFile)
{
    test::TempDir dir;
    {
        Store::open(dir.file("r.db"), OpenMode::ReadWrite);
    }
    Store db = Store::open(dir.file("r.db"), OpenMode::ReadOnly);
    EXPECT_THROW(db.writeRun(test::simulatedRun("zoo:squeezenet", "sequential")), store::StoreError);
    EXPECT_THROW(db.loadRun(store::RunId(1)), store::StoreError);
    try {
        Store::open(dir.file("missing.db"), OpenMode::ReadOnly);
        FAIL() << "opened a missing file";
    } catch (const store::StoreError& e) {
        EXPECT_NE(std::string(e.what()).find("no results database"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(std::filesystem::exists(dir.file("missing.db")));
}

TEST(LatencyStats, PercentilesInterpolateBetweenRanks)
{
    const auto s = store::latencyStats({ 5, 1, 4, 2, 3 });
    EXPECT_EQ(s.repeats, 5U);
    EXPECT_DOUBLE_EQ(s.medianNs, 3);
    EXPECT_DOUBLE_EQ(s.p10Ns, 1.4);
    EXPECT_DOUBLE_EQ(s.p90Ns, 4.6);
    EXPECT_DOUBLE_EQ(s.meanNs, 3);
    EXPECT_DOUBLE_EQ(s.minNs, 1);
    EXPECT_DOUBLE_EQ(s.maxNs, 5);
    const auto one = store::latencyStats({ 7 });
    EXPECT_DOUBLE_EQ(one.p10Ns, 7);
    EXPECT_DOUBLE_EQ(one.p90Ns, 7);
    EXPECT_EQ(store::latencyStats({}).repeats, 0U);
}

} // namespace
} // namespace opsched
