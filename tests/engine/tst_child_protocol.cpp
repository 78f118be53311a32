// The contract between opsched-cli and the window: every progress event survives the trip through
// a JSON line, reads as the CLI's text for people, and anything else on the child's stdout is not
// taken for progress; requests become the arguments the CLI parses, defaults left out.
#include "engine/child_protocol.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace opsched::engine;
using child::ProgressEvent;

namespace {

ProgressEvent doneJob()
{
    ProgressEvent e;
    e.done = 3;
    e.total = 42;
    e.what = "squeezenet ios batch 1";
    e.medianMs = 0.385;
    e.activeWarps = 1234.4;
    e.run = 7;
    e.seconds = 0.2;
    e.notes = "cudnn algorithm 1";
    return e;
}

std::string after(const std::vector<std::string>& args, const std::string& flag)
{
    const auto it = std::find(args.begin(), args.end(), flag);
    return it == args.end() || it + 1 == args.end() ? std::string("<absent>") : *(it + 1);
}

bool has(const std::vector<std::string>& args, const std::string& flag)
{
    return std::find(args.begin(), args.end(), flag) != args.end();
}

TEST(ChildProtocol, MapPhasesRoundTripAndAreNeverTakenForProfileLines)
{
    child::MapProgressEvent e;
    e.phase = child::MapProgressEvent::Phase::Done;
    e.mapper = "milp-split";
    e.objective = "latency";
    e.devices = "cpu:0,cpu:1";
    e.timeLimitSeconds = 2.5;
    e.seconds = 1.25;
    e.ops = 42;
    e.deviceCount = 2;
    e.status = "optimal";
    e.objectiveMs = 3.5;
    const std::string line = child::toJsonLine(e);
    const auto back = child::parseMapProgressLine(line);
    ASSERT_TRUE(back);
    EXPECT_TRUE(back->phase == e.phase);
    EXPECT_EQ(back->mapper, e.mapper);
    EXPECT_EQ(back->devices, e.devices);
    EXPECT_EQ(back->timeLimitSeconds, e.timeLimitSeconds);
    EXPECT_EQ(back->ops, e.ops);
    EXPECT_EQ(back->status, e.status);
    EXPECT_EQ(back->objectiveMs, e.objectiveMs);
    EXPECT_EQ(child::describe(*back), "found: 3.5000 ms makespan, optimal, after 1.2 s");
    // Each stream's lines stay its own, and text or other JSON is not an event.
    EXPECT_FALSE(child::parseProgressLine(line));
    child::ProgressEvent job;
    EXPECT_FALSE(child::parseMapProgressLine(child::toJsonLine(job)));
    EXPECT_FALSE(child::parseMapProgressLine("{\"map\": \"sideways\"}"));
    EXPECT_FALSE(child::parseMapProgressLine("{\"map\": 3}"));
    EXPECT_FALSE(child::parseMapProgressLine("found: 3 ms"));
    EXPECT_FALSE(child::parseMapProgressLine("{"));

    MapRequest r;
    r.model = "zoo:rwnn";
    r.devices = "cpu:0";
    const auto args = child::mapArguments(r, "/tmp/m.json");
    EXPECT_EQ(after(args, "--progress"), "json");
}

} // namespace

TEST(ChildProtocol, EveryEventSurvivesAJsonLine)
{
    ProgressEvent failed;
    failed.done = 2;
    failed.total = 2;
    failed.what = "bert ios batch 8";
    failed.outcome = ProgressEvent::Outcome::Failed;
    failed.error = "out of memory: \"cudaMalloc\" failed\nsecond line";
    ProgressEvent skipped = failed;
    skipped.outcome = ProgressEvent::Outcome::Skipped;
    skipped.error.clear();
    skipped.otherBatch = "pid 1234 on node7";
    ProgressEvent waiting;
    waiting.kind = ProgressEvent::Kind::Waiting;
    waiting.total = 5;
    waiting.what = "vgg11 greedy batch 2";
    waiting.otherBatch = "pid 99 on node1";
    ProgressEvent summary;
    summary.kind = ProgressEvent::Kind::Summary;
    summary.total = 42;
    summary.ran = 40;
    summary.skipped = 1;
    summary.failed = 1;
    summary.interrupted = true;
    summary.seconds = 12.5;
    summary.database = "runs.db";
    for (const ProgressEvent& e : { doneJob(), failed, skipped, waiting, summary }) {
        const std::string line = child::toJsonLine(e);
        EXPECT_EQ(line.find('\n'), std::string::npos) << line; // one event, one line
        const auto back = child::parseProgressLine(line);
        ASSERT_TRUE(back) << line;
        EXPECT_EQ(child::describe(*back), child::describe(e)) << line;
        EXPECT_EQ(back->kind, e.kind);
        EXPECT_EQ(back->outcome, e.outcome);
        EXPECT_EQ(back->error, e.error);
        EXPECT_EQ(back->otherBatch, e.otherBatch);
        EXPECT_EQ(back->run, e.run);
    }
}

TEST(ChildProtocol, DescribesEventsAsTheCliPrintsThem)
{
    EXPECT_EQ(child::describe(doneJob()),
        "[3/42] squeezenet ios batch 1: 0.385 ms, 1234 active warps (run 7, 0.20 s); cudnn algorithm 1");
    ProgressEvent failed = doneJob();
    failed.outcome = ProgressEvent::Outcome::Failed;
    failed.error = "out of memory";
    EXPECT_EQ(child::describe(failed), "[3/42] squeezenet ios batch 1: FAILED: out of memory");
    ProgressEvent skipped = doneJob();
    skipped.outcome = ProgressEvent::Outcome::Skipped;
    EXPECT_EQ(child::describe(skipped), "[3/42] squeezenet ios batch 1: already in the database, skipped");
    ProgressEvent summary;
    summary.kind = ProgressEvent::Kind::Summary;
    summary.total = 2;
    summary.ran = 2;
    summary.seconds = 0.02;
    summary.database = "x.db";
    EXPECT_EQ(child::describe(summary), "2 jobs: 2 run, 0 already in the database, 0 failed; 0.02 s; database x.db");
}

TEST(ChildProtocol, OtherLinesAreNotProgress)
{
    for (const char* line : { "", "[1/2] squeezenet ios batch 1: FAILED: looks like a job",
             "opsched-cli: warning: no warps", "{", "{\"event\": 3}", "{\"event\": \"party\"}", "[1, 2]",
             "{\"event\": \"job\", \"done\": \"three\"}", "{\"no_event\": true}" })
        EXPECT_FALSE(child::parseProgressLine(line)) << line;
}

TEST(ChildProtocol, ProfileRequestBecomesArgumentsWithoutDefaults)
{
    ProfileRequest r;
    r.models = { "zoo:squeezenet", "model.onnx" };
    r.database = "runs.db";
    auto args = child::profileArguments(r);
    EXPECT_EQ(args.front(), "profile");
    EXPECT_EQ(args[1], "zoo:squeezenet");
    EXPECT_EQ(args[2], "model.onnx");
    EXPECT_EQ(after(args, "--db"), "runs.db");
    EXPECT_EQ(after(args, "--progress"), "json");
    for (const char* flag : { "--schedulers", "--repeat", "--r", "--s", "--lowering", "--warps", "--cuda-graph",
             "--shape", "--cost-cache", "--export-dir" })
        EXPECT_FALSE(has(args, flag)) << flag;
    r.pruning.r = 2;
    r.costCache = true;
    r.exportDir = "traces";
    r.pruning.lowering = "events";
    r.repeat = 25;
    r.shapes = { { "x", { 1, 80, 100 } }, { "y", { 1, 4 } } };
    args = child::profileArguments(r);
    EXPECT_EQ(after(args, "--r"), "2");
    EXPECT_EQ(after(args, "--lowering"), "events");
    EXPECT_EQ(after(args, "--repeat"), "25");
    EXPECT_EQ(std::count(args.begin(), args.end(), "--shape"), 2);
    EXPECT_EQ(after(args, "--shape"), "x=1x80x100");
    EXPECT_TRUE(has(args, "--cost-cache"));
    EXPECT_EQ(after(args, "--export-dir"), "traces");
}

TEST(ChildProtocol, MapRequestBecomesArguments)
{
    MapRequest r;
    r.model = "zoo:rwnn";
    r.devices = "cpu:0,cpu:1";
    auto args = child::mapArguments(r, "/tmp/m.json");
    EXPECT_EQ(args.front(), "map");
    EXPECT_EQ(after(args, "--mapper"), kDefaultMapper);
    EXPECT_EQ(after(args, "--time-limit"), "60");
    EXPECT_EQ(after(args, "-o"), "/tmp/m.json");
    EXPECT_TRUE(has(args, "--json"));
    for (const char* flag : { "--objective", "--inputs", "--link", "--memory", "--seed", "--max-module-tasks" })
        EXPECT_FALSE(has(args, flag)) << flag;
    r.objective = "throughput";
    r.link = "25,10";
    r.seed = 9;
    r.timeLimitSeconds = 0.25;
    args = child::mapArguments(r, "/tmp/m.json");
    EXPECT_EQ(after(args, "--objective"), "throughput");
    EXPECT_EQ(after(args, "--inputs"), std::to_string(kMapInputs.def));
    EXPECT_EQ(after(args, "--link"), "25,10");
    EXPECT_EQ(after(args, "--seed"), "9");
    EXPECT_EQ(after(args, "--time-limit"), "0.25");
}
