// Device references parsed once (engine/device_ref.h): their kinds, the lists the mappers take,
// the costs each kind gives, and the defaults the CLI and the window share (engine/limits.h).
#include "engine/device_ref.h"
#include "engine/limits.h"
#include "engine/map_devices.h"
#include "engine/requests.h"
#include "engine/scheduling.h"

#include "model/model_ref.h"
#include "plan/plan.h"
#include "session/job.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <functional>

using namespace opsched;
using namespace opsched::engine;

namespace {

const std::string kDeviceFile = std::string(OPSCHED_TEST_DATA_DIR) + "/sim_devices/h100_fitted.json";

std::string errorOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

} // namespace

TEST(DeviceRef, KindsFromOneParse)
{
    EXPECT_EQ(parseDeviceRef("sim:h100").kind, DeviceKind::SimPreset);
    EXPECT_EQ(parseDeviceRef("sim:h100").preset, "h100");
    EXPECT_EQ(parseDeviceRef("h100").kind, DeviceKind::SimPreset);
    EXPECT_FALSE(parseDeviceRef("h100").prefixed());
    EXPECT_EQ(parseDeviceRef("sim:" + kDeviceFile).kind, DeviceKind::SimFile);
    EXPECT_EQ(parseDeviceRef("sim:" + kDeviceFile).path, kDeviceFile);
    EXPECT_EQ(parseDeviceRef("cpu").kind, DeviceKind::Cpu);
    EXPECT_EQ(parseDeviceRef("cpu:3").kind, DeviceKind::CpuPartition);
    EXPECT_EQ(parseDeviceRef("cpu:3").index, 3);
    EXPECT_EQ(parseDeviceRef("cuda:1").kind, DeviceKind::Cuda);
    EXPECT_EQ(parseDeviceRef("cuda:1").index, 1);
    EXPECT_EQ(parseDeviceRef("cuda").index, 0);
    EXPECT_TRUE(parseDeviceRef("sim:t4").simulated());
    EXPECT_FALSE(parseDeviceRef("cuda:0").simulated());
}

TEST(DeviceRef, MalformedNumbersAreRefusedOnce)
{
    EXPECT_EQ(errorOf([] { parseDeviceRef("cuda:x"); }), messages::malformedCuda("cuda:x"));
    EXPECT_EQ(errorOf([] { parseDeviceRef("cpu:"); }), messages::malformedCpuPartition("cpu:"));
    EXPECT_EQ(errorOf([] { (void)cudaDeviceIndex("cuda:first"); }), messages::malformedCuda("cuda:first"));
}

TEST(DeviceRef, ListsTrimBlanksAndRefuseEmptyOrRepeatedNames)
{
    EXPECT_EQ(parseDeviceNames(" sim:t4 , sim:a100,"), (std::vector<std::string> { "sim:t4", "sim:a100" }));
    EXPECT_NE(errorOf([] { parseDeviceList("sim:t4,,sim:a100"); }).find("an empty device name"), std::string::npos);
    EXPECT_NE(errorOf([] { parseDeviceList("sim:t4,sim:t4"); }).find("listed twice"), std::string::npos);
    EXPECT_NE(errorOf([] { parseDeviceList(""); }).find("no devices given"), std::string::npos);
    EXPECT_TRUE(isSimulatedDeviceList("sim:xeon, sim:t4"));
    EXPECT_FALSE(isSimulatedDeviceList("sim:t4,cpu:0"));
    EXPECT_FALSE(isSimulatedDeviceList("sim:t4,,sim:a100")); // does not parse
}

TEST(DeviceRef, SchedulersGetSimulatedDevicesAndRefuseCpus)
{
    EXPECT_EQ(makeCostModel("sim:h100")->deviceName(), "sim:h100");
    EXPECT_EQ(makeCostModel("sim:" + kDeviceFile)->deviceName(), "sim:h100-fitted");
    EXPECT_EQ(errorOf([] { makeCostModel("cpu"); }), messages::cpuNotForSchedules("cpu"));
    EXPECT_EQ(errorOf([] { makeCostModel("cpu:1"); }), messages::cpuNotForSchedules("cpu:1"));
    EXPECT_NE(errorOf([] { makeCostModel("gpu:0"); }).find("unknown simulated device 'gpu:0'"), std::string::npos);
}

TEST(DeviceRef, MappersCostSimulatedFilesLikePresets)
{
    const Graph graph = loadModel("zoo:random?ops=6&width=2&seed=3", 1);
    const std::vector<std::string> all { "sim:t4", "sim:" + kDeviceFile };
    const map::DeviceCosts file = deviceCosts(graph, all[1], {}, all);
    EXPECT_EQ(file.name, all[1]);
    ASSERT_EQ(file.opSeconds.size(), graph.opCount());
    const map::DeviceCosts h100 = deviceCosts(graph, "sim:h100", {}, all);
    for (std::size_t i = 0; i < graph.opCount(); ++i)
        EXPECT_GE(file.opSeconds[i], h100.opSeconds[i]); // the same GPU with a slower host launch
    EXPECT_EQ(errorOf([&] { deviceCosts(graph, "tpu:0", {}, all); }), messages::unknownMapDevice("tpu:0"));
}

TEST(Limits, TheCliDefaultsEverywhere)
{
    EXPECT_STREQ(kDefaultDevice, "sim:v100");
    EXPECT_EQ(TargetRequest {}.device, kDefaultDevice);
    EXPECT_EQ(ScheduleRequest {}.device, kDefaultDevice);
    EXPECT_EQ(ScheduleRequest {}.pruning.r, 3u);
    EXPECT_EQ(ScheduleRequest {}.pruning.s, 8u);
    EXPECT_EQ(kIosR.max, 64u);
    EXPECT_EQ(kBatch.max, 65536);
    EXPECT_EQ(MapRequest {}.timeLimitSeconds, 60);
    // The profiler's jobs, below the engine, start from the same constants.
    const profiler::ProfileSettings profile;
    EXPECT_EQ(profile.deviceRef, kDefaultDevice);
    EXPECT_EQ(profile.r, kIosR.def);
    EXPECT_EQ(profile.s, kIosS.def);
    EXPECT_EQ(profile.repeats, kProfileRepeat.def);
}

TEST(Scheduling, TheRequestsPruningIsTheSchedulersParameters)
{
    PruningRequest pruning;
    pruning.r = 2;
    pruning.s = 5;
    EXPECT_EQ(schedulerParams(pruning).r, 2u);
    EXPECT_EQ(schedulerParams(pruning).s, 5u);
    EXPECT_EQ(schedulerParams(pruning).lowering, Lowering::Barriers);
    pruning.lowering = "events";
    EXPECT_EQ(schedulerParams(pruning).lowering, Lowering::Events);
    pruning.lowering = "best";
    EXPECT_FALSE(schedulerParams(pruning).lowering); // both lowerings evaluated, the faster kept
    const Graph graph = loadModel("zoo:squeezenet", 1);
    auto cost = makeCostModel("sim:v100");
    const SchedulerOutput out = runCheckedScheduler("ios", graph, *cost, pruning);
    EXPECT_TRUE(validate(graph, out.plan).empty());
    EXPECT_NE(
        errorOf([&] { runCheckedScheduler("no-such", graph, *cost, pruning); }).find("no-such"), std::string::npos);
}
