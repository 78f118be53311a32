#include "model/model_ref.h"
#include "schedule/basic_schedulers.h"
#include "schedule/schedule_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace opsched;

namespace {

void expectError(const Graph& g, const nlohmann::json& j, const std::string& text)
{
    try {
        scheduleFromJson(g, j);
        FAIL() << "expected an error mentioning: " << text;
    } catch (const ScheduleFileError& e) {
        EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
}

TEST(ScheduleFile, RoundTrips)
{
    const Graph g = loadModel("zoo:inception_v3");
    ScheduleDocument doc = makeScheduleDocument(g, greedySchedule(g), "greedy");
    doc.device = "sim:v100";
    doc.params["max_groups"] = 8;
    doc.latencyMs = 1.25;
    const auto j = toJson(g, doc);
    EXPECT_EQ(j["format"], "opsched-schedule");
    EXPECT_EQ(j["version"], 1);
    EXPECT_EQ(j["model"], "inception_v3");
    EXPECT_EQ(j["latency_ms"], 1.25);

    const ScheduleDocument back = scheduleFromJson(g, nlohmann::json::parse(j.dump()));
    EXPECT_EQ(back.schedule, doc.schedule);
    EXPECT_EQ(back.scheduler, "greedy");
    EXPECT_EQ(back.device, "sim:v100");
    EXPECT_EQ(back.params["max_groups"], 8);
    EXPECT_EQ(*back.latencyMs, 1.25);
}

TEST(ScheduleFile, FingerprintIgnoresBatchButNotStructure)
{
    const Graph g = loadModel("zoo:squeezenet");
    const auto j = toJson(g, makeScheduleDocument(g, sequentialSchedule(g), "sequential"));
    // The same model at another batch size accepts the schedule.
    EXPECT_NO_THROW(scheduleFromJson(g.withBatch(8), nlohmann::json::parse(j.dump())));

    const Graph other = loadModel("zoo:random?ops=10&seed=1");
    const Graph otherSeed = loadModel("zoo:random?ops=10&seed=2");
    const auto jr = toJson(other, makeScheduleDocument(other, sequentialSchedule(other), "sequential"));
    expectError(otherSeed, nlohmann::json::parse(jr.dump()), "another version of model 'random'");
}

TEST(ScheduleFile, ClearErrors)
{
    const Graph g = loadModel("zoo:squeezenet");
    const auto good = nlohmann::json::parse(toJson(g, makeScheduleDocument(g, sequentialSchedule(g), "s")).dump());

    expectError(g, nlohmann::json::array(), "not a JSON object");
    auto j = good;
    j["format"] = "something-else";
    expectError(g, j, "expected \"opsched-schedule\"");
    j = good;
    j["version"] = 99;
    expectError(g, j, "version 99 is not supported");
    j = good;
    j["model"] = "inception_v3";
    expectError(g, j, "made for model 'inception_v3'");
    j = good;
    j["stages"][0]["groups"][0][0] = "no_such_op";
    expectError(g, j, "has no op 'no_such_op'");
    j = good;
    j["stages"][0]["strategy"] = "sideways";
    expectError(g, j, "unknown strategy \"sideways\"");
    j = good;
    j.erase("stages");
    expectError(g, j, "missing field \"stages\"");
    j = good;
    j["stages"][1]["groups"] = 5;
    expectError(g, j, "\"groups\" must be an array");
}

// Impossible header values are refused, not carried into evaluate or run.
TEST(ScheduleFile, RefusesImpossibleHeaderValues)
{
    const Graph g = loadModel("zoo:squeezenet");
    const auto good = nlohmann::json::parse(toJson(g, makeScheduleDocument(g, sequentialSchedule(g), "s")).dump());
    for (const auto& batch :
        { nlohmann::json(-3), nlohmann::json(0), nlohmann::json(1e9), nlohmann::json(2.5), nlohmann::json("8") }) {
        auto j = good;
        j["batch"] = batch;
        expectError(g, j, "field \"batch\" must be an integer between 1 and 65536, not " + batch.dump());
    }
    for (const auto& latency : { nlohmann::json(-1.0), nlohmann::json("fast") }) {
        auto j = good;
        j["latency_ms"] = latency;
        expectError(g, j, "field \"latency_ms\" must be a non-negative number or null");
    }
    auto j = good;
    j["device"] = 7;
    expectError(g, j, "\"device\"");
    j = good;
    j["params"] = "r=3";
    expectError(g, j, "field \"params\" must be an object");
    j = good;
    j["batch"] = nullptr;
    j["latency_ms"] = nullptr;
    EXPECT_NO_THROW(scheduleFromJson(g, j)); // absent values are fine

    const auto plan
        = nlohmann::json::parse(toJson(g, makePlanDocument(g, compileSchedule(g, sequentialSchedule(g)), "p")).dump());
    j = plan;
    j["launches"][0]["stream"] = 4294967296ULL; // would wrap to stream 0 as a 32-bit number
    expectError(g, j, "launch 0: \"stream\" must be an integer from 0 to 0");
    j = plan;
    j["launches"][3]["wait_for"] = nlohmann::json::array({ 4294967297ULL });
    expectError(g, j, "must hold launch indices");
}

TEST(ScheduleFile, FilesReadAndWriteAtomically)
{
    const Graph g = loadModel("zoo:googlenet");
    const auto dir = std::filesystem::temp_directory_path() / "opsched-tst-schedule-file";
    std::filesystem::create_directories(dir);
    const auto path = (dir / "googlenet.json").string();
    writeScheduleFile(path, toJson(g, makeScheduleDocument(g, greedySchedule(g), "greedy")));
    EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
    EXPECT_EQ(readScheduleFile(g, path).schedule, greedySchedule(g));

    std::ofstream(dir / "broken.json") << "{\"format\": ";
    EXPECT_THROW(readScheduleFile(g, (dir / "broken.json").string()), ScheduleFileError);
    EXPECT_THROW(readScheduleFile(g, (dir / "missing.json").string()), ScheduleFileError);
    std::filesystem::remove_all(dir);
}

} // namespace
