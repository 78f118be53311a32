#include "schedule/schedule_file.h"

#include "graph/fingerprint.h"
#include "graph/input_shapes.h"
#include "plan/lowering.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

namespace opsched {
namespace {

[[noreturn]] void fail(const std::string& what)
{
    throw ScheduleFileError("schedule file: " + what);
}

const nlohmann::json& field(const nlohmann::json& j, const char* key)
{
    if (!j.contains(key))
        fail(std::string("missing field \"") + key + "\"");
    return j.at(key);
}

std::string stringField(const nlohmann::json& j, const char* key)
{
    const auto& v = field(j, key);
    if (!v.is_string())
        fail(std::string("field \"") + key + "\" must be a string");
    return v.get<std::string>();
}

} // namespace

ScheduleDocument makeScheduleDocument(const Graph& graph, Schedule schedule, std::string scheduler)
{
    ScheduleDocument doc;
    doc.model = graph.name();
    doc.modelSha256 = modelFingerprint(graph);
    doc.batch = graph.batch();
    doc.scheduler = std::move(scheduler);
    doc.schedule = std::move(schedule);
    return doc;
}

ScheduleDocument makePlanDocument(const Graph& graph, Plan plan, std::string scheduler)
{
    ScheduleDocument doc = makeScheduleDocument(graph, Schedule {}, std::move(scheduler));
    doc.schedule.reset();
    doc.plan = std::move(plan);
    return doc;
}

Plan ScheduleDocument::executablePlan(const Graph& graph) const
{
    if (plan)
        return *plan;
    Lowering lowering = Lowering::Barriers;
    if (const auto it = params.find("lowering"); it != params.end() && it->is_string())
        if (const auto parsed = parseLowering(it->get<std::string>()))
            lowering = *parsed;
    return lowerSchedule(graph, schedule.value_or(Schedule {}), lowering);
}

nlohmann::ordered_json toJson(const Graph& graph, const ScheduleDocument& doc)
{
    nlohmann::ordered_json j;
    j["format"] = doc.plan ? "opsched-plan" : "opsched-schedule";
    j["version"] = kScheduleFormatVersion;
    j["model"] = doc.model;
    j["model_sha256"] = doc.modelSha256;
    j["batch"] = doc.batch;
    j["input_shapes"] = inputShapesOf(graph); // a model with free dimensions fits one set of them
    j["device"] = doc.device;
    j["scheduler"] = doc.scheduler;
    j["params"] = doc.params;
    j["latency_ms"] = doc.latencyMs ? nlohmann::ordered_json(*doc.latencyMs) : nlohmann::ordered_json(nullptr);
    if (doc.plan) {
        j["streams"] = doc.plan->streams;
        auto& launches = j["launches"] = nlohmann::ordered_json::array();
        for (const auto& l : doc.plan->launches) {
            nlohmann::ordered_json jl;
            auto names = nlohmann::ordered_json::array();
            for (auto id : l.ops)
                names.push_back(graph.op(id).name);
            jl["ops"] = std::move(names);
            jl["stream"] = l.stream.value();
            jl["wait_for"] = l.waitFor;
            launches.push_back(std::move(jl));
        }
        j["barriers"] = doc.plan->barriers;
        return j;
    }
    auto& stages = j["stages"] = nlohmann::ordered_json::array();
    for (const auto& stage : doc.schedule.value_or(Schedule {}).stages) {
        nlohmann::ordered_json s;
        s["strategy"] = toString(stage.strategy);
        auto& groups = s["groups"] = nlohmann::ordered_json::array();
        for (const auto& group : stage.groups) {
            auto names = nlohmann::ordered_json::array();
            for (auto id : group)
                names.push_back(graph.op(id).name);
            groups.push_back(std::move(names));
        }
        stages.push_back(std::move(s));
    }
    return j;
}

namespace {

// The header fields after format and version: model (and its fingerprint), then the optional ones.
// Header values a program wrote are checked as strictly as the rest: an impossible one means
// the file was damaged or edited wrongly, and using it would mislead (a batch of -3).
void readHeader(const Graph& graph, const nlohmann::json& j, ScheduleDocument& doc)
{
    doc.model = stringField(j, "model");
    if (doc.model != graph.name())
        fail("it was made for model '" + doc.model + "', not '" + graph.name() + "'");
    // Batch aside (a schedule fits any batch), the inputs must have the shapes it was made for.
    if (const auto why = inputShapesMismatch(graph, recordedInputShapes(j)); !why.empty())
        fail(why);
    if (j.contains("model_sha256") && !j.at("model_sha256").is_null()) {
        doc.modelSha256 = stringField(j, "model_sha256");
        if (doc.modelSha256 != modelFingerprint(graph))
            fail("it was made for another version of model '" + doc.model + "' (model_sha256 differs)");
    }
    if (j.contains("batch") && !j.at("batch").is_null()) {
        const auto& b = j.at("batch");
        if (!b.is_number_integer() || b.get<std::int64_t>() < 1 || b.get<std::int64_t>() > 65536)
            fail("field \"batch\" must be an integer between 1 and 65536, not " + b.dump());
        doc.batch = b.get<std::int64_t>();
    }
    if (j.contains("device") && !j.at("device").is_null())
        doc.device = stringField(j, "device");
    if (j.contains("scheduler") && !j.at("scheduler").is_null())
        doc.scheduler = stringField(j, "scheduler");
    if (j.contains("params") && !j.at("params").is_null()) {
        if (!j.at("params").is_object())
            fail("field \"params\" must be an object");
        doc.params = nlohmann::ordered_json(j.at("params"));
    }
    if (doc.params.contains("lowering")) {
        const auto& l = doc.params.at("lowering");
        if (!l.is_string() || !parseLowering(l.get<std::string>()))
            fail("params.lowering must be \"barriers\" or \"events\", not " + l.dump());
    }
    if (j.contains("latency_ms") && !j.at("latency_ms").is_null()) {
        const auto& l = j.at("latency_ms");
        if (!l.is_number() || !(l.get<double>() >= 0) || !std::isfinite(l.get<double>()))
            fail("field \"latency_ms\" must be a non-negative number or null, not " + l.dump());
        doc.latencyMs = l.get<double>();
    }
}

OpId opByName(const Graph& graph, const nlohmann::json& name, const std::string& where)
{
    if (!name.is_string())
        fail(where + ": op names must be strings");
    const auto id = graph.findOp(name.get<std::string>());
    if (!id)
        fail(where + ": model '" + graph.name() + "' has no op '" + name.get<std::string>() + "'");
    return *id;
}

std::vector<std::uint32_t> indexList(const nlohmann::json& list, const std::string& where)
{
    std::vector<std::uint32_t> out;
    if (!list.is_array())
        fail(where + " must be an array of launch indices");
    for (const auto& v : list) {
        if (!v.is_number_unsigned() || v.get<std::uint64_t>() > std::numeric_limits<std::uint32_t>::max())
            fail(where + " must hold launch indices (non-negative integers)");
        out.push_back(v.get<std::uint32_t>());
    }
    return out;
}

// An "opsched-plan" document's streams, launches and barriers.
Plan planFromJson(const Graph& graph, const nlohmann::json& j)
{
    Plan plan;
    const auto& streams = field(j, "streams");
    if (!streams.is_number_unsigned() || streams.get<std::uint64_t>() == 0 || streams.get<std::uint64_t>() > 1024)
        fail("field \"streams\" must be an integer between 1 and 1024");
    plan.streams = streams.get<std::uint32_t>();
    const auto& launches = field(j, "launches");
    if (!launches.is_array())
        fail("field \"launches\" must be an array");
    for (std::size_t i = 0; i < launches.size(); ++i) {
        const auto& jl = launches[i];
        const std::string where = "launch " + std::to_string(i);
        if (!jl.is_object())
            fail(where + " is not an object");
        Launch l;
        const auto& ops = field(jl, "ops");
        if (!ops.is_array() || ops.empty())
            fail(where + ": \"ops\" must be a non-empty array of op names");
        for (const auto& name : ops)
            l.ops.push_back(opByName(graph, name, where));
        const auto& stream = field(jl, "stream");
        if (!stream.is_number_unsigned() || stream.get<std::uint64_t>() >= plan.streams)
            fail(where + ": \"stream\" must be an integer from 0 to " + std::to_string(plan.streams - 1)
                + " (the plan's \"streams\" is " + std::to_string(plan.streams) + ")");
        l.stream = StreamId(stream.get<std::uint32_t>());
        if (jl.contains("wait_for"))
            l.waitFor = indexList(jl.at("wait_for"), where + ": \"wait_for\"");
        plan.launches.push_back(std::move(l));
    }
    if (j.contains("barriers"))
        plan.barriers = indexList(j.at("barriers"), "field \"barriers\"");
    return plan;
}

// An "opsched-schedule" document's stages.
Schedule stagesFromJson(const Graph& graph, const nlohmann::json& j)
{
    Schedule schedule;
    const auto& stages = field(j, "stages");
    if (!stages.is_array())
        fail("field \"stages\" must be an array");
    for (std::size_t s = 0; s < stages.size(); ++s) {
        const auto& js = stages[s];
        const std::string where = "stage " + std::to_string(s);
        if (!js.is_object())
            fail(where + " is not an object");
        Stage stage;
        const std::string strategy = js.contains("strategy") ? stringField(js, "strategy") : "concurrent";
        if (strategy == "merge")
            stage.strategy = StageStrategy::Merge;
        else if (strategy != "concurrent")
            fail(where + ": unknown strategy \"" + strategy + "\" (expected \"concurrent\" or \"merge\")");
        const auto& groups = field(js, "groups");
        if (!groups.is_array())
            fail(where + ": \"groups\" must be an array of arrays of op names");
        for (const auto& jg : groups) {
            if (!jg.is_array())
                fail(where + ": each group must be an array of op names");
            auto& group = stage.groups.emplace_back();
            for (const auto& name : jg)
                group.push_back(opByName(graph, name, where));
        }
        schedule.stages.push_back(std::move(stage));
    }
    return schedule;
}

} // namespace

ScheduleDocument scheduleFromJson(const Graph& graph, const nlohmann::json& j)
{
    if (!j.is_object())
        fail("the document is not a JSON object");
    const std::string format = stringField(j, "format");
    if (format != "opsched-schedule" && format != "opsched-plan")
        fail("format is \"" + format + "\", expected \"opsched-schedule\" or \"opsched-plan\"");
    const auto& version = field(j, "version");
    if (!version.is_number_integer())
        fail("field \"version\" must be an integer");
    if (version.get<int>() != kScheduleFormatVersion)
        fail("version " + std::to_string(version.get<int>()) + " is not supported (this opsched reads version "
            + std::to_string(kScheduleFormatVersion) + ")");

    ScheduleDocument doc;
    readHeader(graph, j, doc);
    if (format == "opsched-plan")
        doc.plan = planFromJson(graph, j);
    else
        doc.schedule = stagesFromJson(graph, j);
    return doc;
}

ScheduleDocument readScheduleFile(const Graph& graph, const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        throw ScheduleFileError("cannot open schedule file '" + path + "'");
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::parse_error& e) {
        throw ScheduleFileError("'" + path + "' is not valid JSON: " + e.what());
    }
    try {
        return scheduleFromJson(graph, j);
    } catch (const ScheduleFileError& e) {
        throw ScheduleFileError("'" + path + "': " + e.what());
    }
}

void writeScheduleFile(const std::string& path, const nlohmann::ordered_json& json)
{
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        if (!out)
            throw Error("cannot write '" + tmp + "'");
        out << json.dump(2) << "\n";
        if (!out.flush())
            throw Error("writing '" + tmp + "' failed");
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        throw Error("cannot replace '" + path + "'");
    }
}

} // namespace opsched
