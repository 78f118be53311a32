// Simulated devices as files (what `calibrate` writes, what --device sim:FILE.json reads): a round
// trip keeps every constant, and bad files are refused with the field named.
#include "profiler/profiler_test_support.h"

#include "sim/sim_device_file.h"
#include "sim/sim_stage_timer.h"
#include "util/error.h"

#include <gtest/gtest.h>

namespace opsched {
namespace {

TEST(SimDeviceFile, RoundTripKeepsEveryConstant)
{
    test::TempDir dir;
    SimDevice d = findSimDevice("sim:h100");
    d.name = "h100-fitted";
    d.computeEfficiency = 0.55;
    d.contention = 0.0;
    d.launchLatencySeconds = 1.25e-6;
    d.deviceLaunchSeconds = 2.5e-6;
    const std::string path = dir.file("dev.json");
    writeSimDeviceFile(path, d, "h100");
    const SimDevice back = readSimDeviceFile(path);
    EXPECT_EQ(back.name, "h100-fitted");
    EXPECT_EQ(back.deviceLaunchSeconds, 2.5e-6);
    EXPECT_EQ(simDeviceFingerprint(back), simDeviceFingerprint(d));
    EXPECT_NE(simDeviceFingerprint(back), simDeviceFingerprint(findSimDevice("sim:h100")));
    EXPECT_TRUE(isSimDeviceFileRef("sim:" + path));
    EXPECT_FALSE(isSimDeviceFileRef("sim:h100"));
}

TEST(SimDeviceFile, FieldsLeftOutKeepTheBasePreset)
{
    const auto j = nlohmann::json::parse(
        R"({"format": "opsched-sim-device", "version": 1, "name": "mine", "base": "a100", "compute_efficiency": 0.5})");
    const SimDevice d = simDeviceFromJson(j, "test");
    SimDevice expected = findSimDevice("sim:a100");
    expected.name = "mine";
    expected.computeEfficiency = 0.5;
    EXPECT_EQ(simDeviceFingerprint(d), simDeviceFingerprint(expected));
}

TEST(SimDeviceFile, EveryPresetHasALaunchCostAndFilesCarryIt)
{
    for (const auto& preset : simDevices()) {
        EXPECT_GT(preset.deviceLaunchSeconds, 0.0) << preset.name;
        EXPECT_LE(preset.deviceLaunchSeconds, preset.launchLatencySeconds) << preset.name;
        EXPECT_EQ(toJson(preset, preset.name)["device_launch_seconds"].get<double>(), preset.deviceLaunchSeconds);
    }
    const auto j = nlohmann::json::parse(
        R"({"format": "opsched-sim-device", "version": 1, "name": "mine", "base": "h100", "device_launch_seconds": 0})");
    EXPECT_EQ(simDeviceFromJson(j, "test").deviceLaunchSeconds, 0.0);
}

TEST(SimDeviceFile, BadFilesNameTheProblem)
{
    struct Case {
        const char* json;
        const char* message;
    };
    const std::vector<Case> cases = {
        { R"({"format": "opsched-schedule", "version": 1})", "not a simulated device file" },
        { R"({"format": "opsched-sim-device", "version": 7, "name": "x"})", "unsupported version" },
        { R"({"format": "opsched-sim-device", "version": 1, "name": "x", "base": "z80"})", "unknown simulated device" },
        { R"({"format": "opsched-sim-device", "version": 1, "name": "x", "warp_drive": 9})",
            "unknown field \"warp_drive\"" },
        { R"({"format": "opsched-sim-device", "version": 1, "name": "x", "compute_efficiency": 0})",
            "\"compute_efficiency\" must be a number from 0.0001 to 1, not 0" },
        { R"({"format": "opsched-sim-device", "version": 1, "name": "x", "compute_efficiency": 5.45})",
            "\"compute_efficiency\" must be a number from 0.0001 to 1, not 5.45" },
        { R"({"format": "opsched-sim-device", "version": 1, "name": "x", "event_wait_seconds": 4e6})",
            "\"event_wait_seconds\" must be a number from 0 to 1" },
        { R"({"format": 6291456, "version": 1, "name": "x"})", "not a simulated device file" },
        { R"({"format": "opsched-sim-device", "version": 1, "name": "x", "contention": -1})",
            "\"contention\" must be a number from 0 to 100, not -1" },
        { R"({"format": "opsched-sim-device", "version": 1, "name": "x", "device_launch_seconds": -1e-6})",
            "\"device_launch_seconds\" must be a number from 0 to 1" },
        { R"({"format": "opsched-sim-device", "version": 1, "name": "x", "peak_flops": "fast"})", "\"peak_flops\"" },
        { R"({"format": "opsched-sim-device", "version": 1, "name": "x", "multiprocessors": 0})",
            "\"multiprocessors\" must be a positive integer" },
        { R"({"format": "opsched-sim-device", "version": 1, "name": ""})", "\"name\" is empty" },
    };
    for (const auto& c : cases) {
        try {
            simDeviceFromJson(nlohmann::json::parse(c.json), "'dev.json'");
            ADD_FAILURE() << c.json << " was accepted";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
        }
    }
    test::TempDir dir;
    test::writeBytes(dir.file("broken.json"), "{ not json");
    EXPECT_THROW(readSimDeviceFile(dir.file("broken.json")), Error);
    EXPECT_THROW(readSimDeviceFile(dir.file("missing.json")), Error);
}

} // namespace
} // namespace opsched
