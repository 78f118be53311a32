// Exports of a stored run: the Chrome trace parses as JSON with one track per stream, ops as
// complete events and active warps as a counter; the schedule export reads back as the schedule;
// the CSV has a line per kernel.
#include "profiler_test_support.h"

#include "export/export.h"
#include "schedule/schedule_file.h"
#include "store/store.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace opsched {
namespace {

store::RunRecord storedRun(const test::TempDir& dir, const std::string& model, const std::string& scheduler)
{
    store::Store db = store::Store::open(dir.file("r.db"), store::OpenMode::ReadWrite);
    const auto id = db.writeRun(test::simulatedRun(model, scheduler));
    return db.loadRun(id);
}

TEST(ChromeTrace, ParsesWithATrackPerStreamOpsAndAWarpsCounter)
{
    test::TempDir dir;
    const auto run = storedRun(dir, "zoo:random?ops=20", "ios-parallel");
    const std::string text = profiler::exportRun(run, profiler::ExportFormat::ChromeTrace);
    const auto doc = nlohmann::json::parse(text); // throws if it is not JSON
    ASSERT_TRUE(doc.contains("traceEvents"));
    const auto& events = doc["traceEvents"];

    std::set<std::int64_t> kernelStreams;
    std::set<std::pair<std::int64_t, std::int64_t>> launches;
    for (const auto& k : run.kernels) {
        kernelStreams.insert(k.streamId);
        launches.insert({ *k.launchId, k.streamId });
    }
    ASSERT_GT(kernelStreams.size(), 1U) << "IOS runs independent convs on several streams";

    std::set<std::string> trackNames;
    std::set<int> opTids;
    std::size_t ops = 0, counters = 0, stages = 0;
    double lastCounter = -1;
    for (const auto& e : events) {
        const std::string ph = e.at("ph");
        if (ph == "M" && e.at("name") == "thread_name")
            trackNames.insert(e.at("args").at("name").get<std::string>());
        if (ph == "X") {
            EXPECT_GE(e.at("ts").get<double>(), 0.0);
            EXPECT_GE(e.at("dur").get<double>(), 0.0);
            if (e.at("cat") == "op") {
                ++ops;
                opTids.insert(e.at("tid").get<int>());
                EXPECT_FALSE(e.at("name").get<std::string>().empty());
            } else if (e.at("cat") == "stage") {
                ++stages;
            }
        }
        if (ph == "C") {
            EXPECT_EQ(e.at("name"), "active warps");
            const double ts = e.at("ts");
            EXPECT_GT(ts, lastCounter) << "counter samples in time order";
            lastCounter = ts;
            ++counters;
        }
    }
    for (auto s : kernelStreams)
        EXPECT_TRUE(trackNames.contains("stream " + std::to_string(s))) << s;
    EXPECT_TRUE(trackNames.contains("stages"));
    EXPECT_EQ(opTids.size(), kernelStreams.size());
    EXPECT_EQ(ops, launches.size()) << "one complete event per launch with kernels";
    EXPECT_EQ(stages, run.stages.size());
    EXPECT_EQ(counters, run.warps.size());
    // Microseconds from the run start: the last event ends at the latency.
    EXPECT_NEAR(lastCounter, run.latenciesNs[0] * 1e-3, 1e-3);
    EXPECT_EQ(doc.at("otherData").at("scheduler"), "ios-parallel");
}

TEST(ChromeTrace, OpNamesComeFromThePlan)
{
    test::TempDir dir;
    const auto run = storedRun(dir, "zoo:squeezenet", "sequential");
    const auto doc = profiler::chromeTrace(run);
    std::set<std::string> names;
    for (const auto& e : doc["traceEvents"])
        if (e["ph"] == "X")
            names.insert(e["name"].get<std::string>());
    EXPECT_TRUE(names.contains("conv1"));
    EXPECT_TRUE(names.contains("fire2.squeeze"));
}

TEST(ChromeTrace, FlowsPairUpAndGoBetweenStreamsForwardInTime)
{
    // The window's arrows as flow events: each "s" on the stream that ends a wait, its "f" on another
    // stream no earlier; Nimble's waits into Inception's concats show as joins into their consumers.
    test::TempDir dir;
    for (const char* scheduler : { "nimble", "greedy" }) {
        const auto run = storedRun(dir, "zoo:inception_v3", scheduler);
        const auto doc = profiler::chromeTrace(run);
        std::map<int, std::pair<const nlohmann::ordered_json*, const nlohmann::ordered_json*>> flows;
        for (const auto& e : doc["traceEvents"]) {
            if (e["ph"] == "s")
                flows[e["id"].get<int>()].first = &e;
            if (e["ph"] == "f")
                flows[e["id"].get<int>()].second = &e;
        }
        ASSERT_GT(flows.size(), 10U) << scheduler;
        for (const auto& [id, pair] : flows) {
            ASSERT_TRUE(pair.first && pair.second) << scheduler << " flow " << id << " is not a pair";
            EXPECT_NE((*pair.first)["tid"], (*pair.second)["tid"]);
            EXPECT_LE((*pair.first)["ts"].get<double>(), (*pair.second)["ts"].get<double>() + 1e-6);
            EXPECT_EQ((*pair.second)["bp"], "e");
        }
    }
}

TEST(ChromeTrace, HostCallsOnATrackOfTheirOwn)
{
    test::TempDir dir;
    const auto run = storedRun(dir, "zoo:squeezenet", "nimble");
    ASSERT_FALSE(run.hostCalls.empty());
    const auto doc = profiler::chromeTrace(run);
    std::size_t host = 0, launches = 0;
    bool named = false;
    for (const auto& e : doc["traceEvents"]) {
        if (e["ph"] == "M" && e["name"] == "thread_name" && e["args"]["name"] == "host")
            named = true;
        if (e["ph"] == "X" && e["cat"] == "host") {
            ++host;
            launches += e["name"] == "cudaLaunchKernel";
        }
    }
    EXPECT_TRUE(named);
    EXPECT_EQ(host, run.hostCalls.size());
    EXPECT_EQ(launches, run.kernels.size()) << "one launch call per kernel without a CUDA graph";
}

TEST(ChromeTrace, ADamagedPlanGivesNoArrowsNotACrash)
{
    test::TempDir dir;
    auto run = storedRun(dir, "zoo:squeezenet", "nimble");
    run.schedule->plan["launches"][0]["wait_for"] = nlohmann::json::array({ 99999 });
    const auto doc = profiler::chromeTrace(run);
    for (const auto& e : doc["traceEvents"])
        EXPECT_NE(e["ph"], "s");
}

TEST(ScheduleExport, ReadsBackAsTheSchedule)
{
    test::TempDir dir;
    const auto run = storedRun(dir, "zoo:squeezenet", "ios");
    const auto text = profiler::exportRun(run, profiler::ExportFormat::Schedule);
    const Graph graph = loadModel("zoo:squeezenet", 1);
    const ScheduleDocument doc = scheduleFromJson(graph, nlohmann::json::parse(text));
    ASSERT_TRUE(doc.schedule.has_value());
    EXPECT_TRUE(validate(graph, *doc.schedule).empty());
    EXPECT_EQ(doc.scheduler, "ios");
    EXPECT_EQ(doc.device, "sim:h100");
    EXPECT_NEAR(*doc.latencyMs, run.latenciesNs[0] * 1e-6, 1e-9);
}

TEST(CsvExport, OneLinePerKernel)
{
    test::TempDir dir;
    const auto run = storedRun(dir, "zoo:squeezenet", "greedy");
    const auto csv = profiler::exportRun(run, profiler::ExportFormat::Csv);
    EXPECT_EQ(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')), run.kernels.size() + 1);
    EXPECT_EQ(csv.rfind("start,end,streamId,", 0), 0U);
}

TEST(Export, FailedRunHasNoSchedule)
{
    store::RunRecord failed;
    failed.status = store::RunStatus::Failed;
    failed.error = "boom";
    EXPECT_THROW(profiler::exportRun(failed, profiler::ExportFormat::Schedule), Error);
    EXPECT_NO_THROW(nlohmann::json::parse(profiler::exportRun(failed, profiler::ExportFormat::ChromeTrace)));
}

TEST(Export, FormatNames)
{
    EXPECT_EQ(profiler::parseExportFormat("chrome-trace"), profiler::ExportFormat::ChromeTrace);
    EXPECT_EQ(profiler::parseExportFormat("pdf"), std::nullopt);
}

} // namespace
} // namespace opsched
