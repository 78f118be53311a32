// Helpers for the profiler tests: scratch directories, file hashes, and runs recorded on the
// simulated GPU (small models only, so the whole suite stays fast).
#pragma once

#include "model/model_ref.h"
#include "schedule/schedulers.h"
#include "session/job.h"
#include "session/sim_run.h"
#include "sim/sim_device.h"
#include "store/records.h"
#include "util/sha256.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace opsched::test {

// A fresh directory under the system temp dir, removed afterwards.
class TempDir {
public:
    TempDir()
    {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        std::string name = "opsched-" + std::to_string(::getpid()) + "-";
        name += info ? std::string(info->test_suite_name()) + "-" + info->name() : "scratch";
        path_ = std::filesystem::temp_directory_path() / name;
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~TempDir()
    {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    std::string file(const std::string& name) const { return (path_ / name).string(); }

private:
    std::filesystem::path path_;
};

inline std::string readBytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream os;
    os << in.rdbuf();
    return os.str();
}

inline std::string fileHash(const std::string& path)
{
    return sha256Hex(readBytes(path));
}

inline void writeBytes(const std::string& path, const std::string& bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
}

// A complete run record of `scheduler` on `model`, simulated on sim:h100.
inline store::RunRecord simulatedRun(
    const std::string& model, const std::string& scheduler, std::int64_t batch = 1, bool warps = true, int repeats = 3)
{
    const Graph graph = loadModel(model, batch);
    const SimDevice& device = findSimDevice("sim:h100");
    SimulatedStageCost cost(device);
    const SchedulerOutput out = runScheduler(scheduler, graph, cost);
    store::RunRecord run;
    run.device = profiler::simDeviceRecord(device);
    run.model = profiler::modelRecord(graph, model);
    run.batch = batch;
    profiler::ProfileSettings settings;
    settings.warps = warps;
    run.jobKey = profiler::jobKey(run.model.sha256, { model, scheduler, batch }, settings, run.device.key);
    run.startedAt = store::utcNow();
    profiler::SimRunOptions options;
    options.repeats = repeats;
    options.warps = warps;
    profiler::fillSimulatedRun(run, graph, out, device, options);
    run.schedule = profiler::scheduleRecord(graph, out, run.device.key, false, run.latenciesNs.front() * 1e-9);
    run.finishedAt = store::utcNow();
    run.host = "test";
    run.opschedVersion = "test";
    return run;
}

} // namespace opsched::test
