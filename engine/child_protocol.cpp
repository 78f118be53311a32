#include "engine/child_protocol.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace opsched::engine::child {
namespace {

using nlohmann::json;

const char* kindName(ProgressEvent::Kind kind)
{
    switch (kind) {
    case ProgressEvent::Kind::Job:
        return "job";
    case ProgressEvent::Kind::Waiting:
        return "waiting";
    case ProgressEvent::Kind::Summary:
        break;
    }
    return "summary";
}

const char* outcomeName(ProgressEvent::Outcome outcome)
{
    switch (outcome) {
    case ProgressEvent::Outcome::Done:
        return "done";
    case ProgressEvent::Outcome::Skipped:
        return "skipped";
    case ProgressEvent::Outcome::Failed:
        break;
    }
    return "failed";
}

template <typename T> T valueOr(const json& j, const char* key, T fallback)
{
    const auto it = j.find(key);
    if (it == j.end() || it->is_null())
        return fallback;
    return it->get<T>();
}

std::string number(const char* format, double value)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, format, value);
    return buf;
}

std::string shapeArgument(const std::string& name, const std::vector<std::int64_t>& dims)
{
    std::string text = name.empty() ? "" : name + "=";
    for (std::size_t i = 0; i < dims.size(); ++i)
        text += (i ? "x" : "") + std::to_string(dims[i]);
    return text;
}

void addShapes(std::vector<std::string>& args, const InputShapes& shapes)
{
    for (const auto& [name, dims] : shapes) {
        args.push_back("--shape");
        args.push_back(shapeArgument(name, dims));
    }
}

// %g keeps what the user typed ("60", "2.5") and round-trips through the child's parser.
std::string decimal(double value)
{
    return number("%.15g", value);
}

} // namespace

std::string toJsonLine(const ProgressEvent& e)
{
    json j;
    j["event"] = kindName(e.kind);
    j["total"] = e.total;
    if (e.kind == ProgressEvent::Kind::Summary) {
        j["ran"] = e.ran;
        j["skipped"] = e.skipped;
        j["failed"] = e.failed;
        j["interrupted"] = e.interrupted;
        j["seconds"] = e.seconds;
        j["database"] = e.database;
        return j.dump();
    }
    j["what"] = e.what;
    if (!e.otherBatch.empty())
        j["other_batch"] = e.otherBatch;
    if (e.kind == ProgressEvent::Kind::Waiting)
        return j.dump();
    j["done"] = e.done;
    j["outcome"] = outcomeName(e.outcome);
    j["seconds"] = e.seconds;
    if (!e.error.empty())
        j["error"] = e.error;
    if (e.medianMs)
        j["median_ms"] = *e.medianMs;
    if (e.activeWarps)
        j["active_warps"] = *e.activeWarps;
    if (e.run)
        j["run"] = e.run;
    if (!e.notes.empty())
        j["notes"] = e.notes;
    return j.dump();
}

std::optional<ProgressEvent> parseProgressLine(std::string_view line)
{
    if (line.empty() || line.front() != '{')
        return std::nullopt;
    const json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("event") || !j["event"].is_string())
        return std::nullopt;
    try {
        ProgressEvent e;
        const std::string kind = j["event"].get<std::string>();
        if (kind == "job")
            e.kind = ProgressEvent::Kind::Job;
        else if (kind == "waiting")
            e.kind = ProgressEvent::Kind::Waiting;
        else if (kind == "summary")
            e.kind = ProgressEvent::Kind::Summary;
        else
            return std::nullopt;
        e.total = valueOr<std::size_t>(j, "total", 0);
        e.done = valueOr<std::size_t>(j, "done", 0);
        e.what = valueOr<std::string>(j, "what", "");
        e.otherBatch = valueOr<std::string>(j, "other_batch", "");
        const std::string outcome = valueOr<std::string>(j, "outcome", "done");
        e.outcome = outcome == "failed" ? ProgressEvent::Outcome::Failed
            : outcome == "skipped"      ? ProgressEvent::Outcome::Skipped
                                        : ProgressEvent::Outcome::Done;
        e.error = valueOr<std::string>(j, "error", "");
        if (j.contains("median_ms") && j["median_ms"].is_number())
            e.medianMs = j["median_ms"].get<double>();
        if (j.contains("active_warps") && j["active_warps"].is_number())
            e.activeWarps = j["active_warps"].get<double>();
        e.run = valueOr<std::int64_t>(j, "run", 0);
        e.seconds = valueOr<double>(j, "seconds", 0);
        e.notes = valueOr<std::string>(j, "notes", "");
        e.ran = valueOr<std::size_t>(j, "ran", 0);
        e.skipped = valueOr<std::size_t>(j, "skipped", 0);
        e.failed = valueOr<std::size_t>(j, "failed", 0);
        e.interrupted = valueOr<bool>(j, "interrupted", false);
        e.database = valueOr<std::string>(j, "database", "");
        return e;
    } catch (const json::exception&) {
        return std::nullopt; // a field of the wrong type: not one of ours
    }
}

std::string describe(const ProgressEvent& e)
{
    switch (e.kind) {
    case ProgressEvent::Kind::Waiting:
        return "waiting: " + e.what + " is running in another batch (" + e.otherBatch
            + "); back to it after the other jobs";
    case ProgressEvent::Kind::Summary:
        return std::to_string(e.total) + " jobs: " + std::to_string(e.ran) + " run, " + std::to_string(e.skipped)
            + " already in the database, " + std::to_string(e.failed) + " failed"
            + (e.interrupted ? ", interrupted" : "") + "; " + number("%.2f", e.seconds) + " s; database " + e.database;
    case ProgressEvent::Kind::Job:
        break;
    }
    std::string line = "[" + std::to_string(e.done) + "/" + std::to_string(e.total) + "] " + e.what + ": ";
    switch (e.outcome) {
    case ProgressEvent::Outcome::Skipped:
        return line
            + (e.otherBatch.empty() ? "already in the database, skipped"
                                    : "done by another batch (" + e.otherBatch + "), skipped");
    case ProgressEvent::Outcome::Failed:
        return line + "FAILED: " + e.error;
    case ProgressEvent::Outcome::Done:
        break;
    }
    line += number("%.3f ms", e.medianMs.value_or(0));
    if (e.activeWarps)
        line += number(", %.0f active warps", *e.activeWarps);
    line += " (run " + std::to_string(e.run) + ", " + number("%.2f", e.seconds) + " s)";
    if (!e.notes.empty())
        line += "; " + e.notes;
    return line;
}

namespace {

const char* phaseName(MapProgressEvent::Phase phase)
{
    switch (phase) {
    case MapProgressEvent::Phase::Costs:
        return "costs";
    case MapProgressEvent::Phase::Search:
        return "search";
    case MapProgressEvent::Phase::Done:
        break;
    }
    return "done";
}

} // namespace

std::string toJsonLine(const MapProgressEvent& e)
{
    json j;
    j["map"] = phaseName(e.phase);
    j["mapper"] = e.mapper;
    j["objective"] = e.objective;
    j["devices"] = e.devices;
    j["time_limit_s"] = e.timeLimitSeconds;
    j["seconds"] = e.seconds;
    if (e.phase != MapProgressEvent::Phase::Costs) {
        j["ops"] = e.ops;
        j["device_count"] = e.deviceCount;
    }
    if (e.phase == MapProgressEvent::Phase::Done) {
        j["status"] = e.status;
        j["objective_ms"] = e.objectiveMs;
    }
    return j.dump();
}

std::optional<MapProgressEvent> parseMapProgressLine(std::string_view line)
{
    if (line.empty() || line.front() != '{')
        return std::nullopt;
    const json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("map") || !j["map"].is_string())
        return std::nullopt;
    try {
        MapProgressEvent e;
        const std::string phase = j["map"].get<std::string>();
        if (phase == "costs")
            e.phase = MapProgressEvent::Phase::Costs;
        else if (phase == "search")
            e.phase = MapProgressEvent::Phase::Search;
        else if (phase == "done")
            e.phase = MapProgressEvent::Phase::Done;
        else
            return std::nullopt;
        e.mapper = valueOr<std::string>(j, "mapper", "");
        e.objective = valueOr<std::string>(j, "objective", "");
        e.devices = valueOr<std::string>(j, "devices", "");
        e.timeLimitSeconds = valueOr<double>(j, "time_limit_s", 0);
        e.seconds = valueOr<double>(j, "seconds", 0);
        e.ops = valueOr<std::size_t>(j, "ops", 0);
        e.deviceCount = valueOr<std::size_t>(j, "device_count", 0);
        e.status = valueOr<std::string>(j, "status", "");
        e.objectiveMs = valueOr<double>(j, "objective_ms", 0);
        return e;
    } catch (const json::exception&) {
        return std::nullopt; // a field of the wrong type: not one of ours
    }
}

std::string describe(const MapProgressEvent& e)
{
    switch (e.phase) {
    case MapProgressEvent::Phase::Costs:
        return "pricing every op on " + e.devices;
    case MapProgressEvent::Phase::Search:
        return "searching: " + e.mapper + " over " + std::to_string(e.deviceCount) + " devices, "
            + std::to_string(e.ops) + " ops, at most " + number("%g", e.timeLimitSeconds) + " s";
    case MapProgressEvent::Phase::Done:
        break;
    }
    return "found: " + number("%.4f ms", e.objectiveMs) + (e.objective == "pipeline" ? " period" : " makespan") + ", "
        + e.status + ", after " + number("%.1f", e.seconds) + " s";
}

std::vector<std::string> profileArguments(const ProfileRequest& r)
{
    const ProfileRequest defaults;
    std::vector<std::string> args { "profile" };
    args.insert(args.end(), r.models.begin(), r.models.end());
    addShapes(args, r.shapes);
    if (!r.schedulers.empty())
        args.insert(args.end(), { "--schedulers", r.schedulers });
    args.insert(args.end(), { "--batch", r.batches, "--device", r.device, "--db", r.database });
    if (r.repeat != defaults.repeat)
        args.insert(args.end(), { "--repeat", std::to_string(r.repeat) });
    if (r.pruning.r != defaults.pruning.r)
        args.insert(args.end(), { "--r", std::to_string(r.pruning.r) });
    if (r.pruning.s != defaults.pruning.s)
        args.insert(args.end(), { "--s", std::to_string(r.pruning.s) });
    if (r.pruning.lowering != defaults.pruning.lowering)
        args.insert(args.end(), { "--lowering", r.pruning.lowering });
    if (r.warps)
        args.push_back("--warps");
    if (r.cudaGraph)
        args.push_back("--cuda-graph");
    if (r.costCache)
        args.push_back("--cost-cache");
    if (!r.exportDir.empty())
        args.insert(args.end(), { "--export-dir", r.exportDir });
    args.insert(args.end(), { "--progress", "json" });
    return args;
}

std::vector<std::string> mapArguments(const MapRequest& r, const std::string& output)
{
    const MapRequest defaults;
    std::vector<std::string> args { "map", r.model, "--batch", std::to_string(r.batch) };
    addShapes(args, r.shapes);
    args.insert(args.end(), { "--devices", r.devices, "--mapper", r.mapper });
    if (r.objective != defaults.objective)
        args.insert(args.end(), { "--objective", r.objective });
    if (r.objective == "throughput" || r.inputs != defaults.inputs)
        args.insert(args.end(), { "--inputs", std::to_string(r.inputs) });
    args.insert(args.end(), { "--time-limit", decimal(r.timeLimitSeconds) });
    if (!r.link.empty())
        args.insert(args.end(), { "--link", r.link });
    if (!r.memory.empty())
        args.insert(args.end(), { "--memory", r.memory });
    if (r.seed != defaults.seed)
        args.insert(args.end(), { "--seed", std::to_string(r.seed) });
    if (r.maxModuleTasks != defaults.maxModuleTasks)
        args.insert(args.end(), { "--max-module-tasks", std::to_string(r.maxModuleTasks) });
    // Progress as JSON lines on stdout; --json keeps the summary after them machine-readable (it is not
    // read: the file is what is read back).
    args.insert(args.end(), { "-o", output, "--json", "--progress", "json" });
    return args;
}

} // namespace opsched::engine::child
