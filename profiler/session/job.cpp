#include "session/job.h"

#include <cctype>

namespace opsched::profiler {

SchedulerParams ProfileSettings::schedulerParams() const
{
    SchedulerParams p;
    p.r = r;
    p.s = s;
    p.maxPartOps = maxPartOps;
    p.lowering = lowering;
    return p;
}

std::vector<ProfileJob> expandJobs(const std::vector<std::string>& models, const std::vector<std::string>& schedulers,
    const std::vector<std::int64_t>& batches)
{
    std::vector<ProfileJob> jobs;
    jobs.reserve(models.size() * schedulers.size() * batches.size());
    for (const auto& model : models)
        for (auto batch : batches)
            for (const auto& scheduler : schedulers)
                jobs.push_back({ model, scheduler, batch });
    return jobs;
}

std::string jobKey(const std::string& modelSha256, const ProfileJob& job, const ProfileSettings& settings,
    const std::string& deviceKey)
{
    return "model=" + modelSha256 + ";scheduler=" + job.scheduler + ";batch=" + std::to_string(job.batch)
        + ";device=" + deviceKey + ";r=" + std::to_string(settings.r) + ";s=" + std::to_string(settings.s)
        + ";part=" + std::to_string(settings.maxPartOps) + ";cuda_graph=" + (settings.cudaGraph ? "1" : "0") + ";warps="
        + (settings.warps ? "1" : "0")
        // Only when not the default, so the keys of existing databases still match (resume).
        + (settings.lowering == Lowering::Barriers
                ? ""
                : std::string(";lowering=") + (settings.lowering ? toString(*settings.lowering) : "best"));
}

std::string jobLabel(const std::string& modelName, const ProfileJob& job, const std::string& deviceKey)
{
    std::string label = modelName + "_" + job.scheduler + "_b" + std::to_string(job.batch) + "_" + deviceKey;
    for (char& c : label)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.')
            c = '-';
    return label;
}

} // namespace opsched::profiler
