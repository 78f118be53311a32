#include "engine/results/mapping_file_result.h"

#include "engine/results/mapping_result.h"
#include "engine/results/throughput_mapping_result.h"

#include "map/files/throughput_mapping_file.h"

#include "map/files/mapping_file.h"
#include "util/error.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

namespace opsched {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& why)
{
    throw Error(path + ": " + why);
}

std::string text(const nlohmann::json& j, const char* key)
{
    return j.contains(key) && j.at(key).is_string() ? j.at(key).get<std::string>() : std::string();
}

// The model a file names, when it is not the open one: a message that says so first.
std::string withModel(const nlohmann::json& j, const Graph& graph, std::string why)
{
    const std::string fileModel = text(j, "model");
    if (!fileModel.empty() && fileModel != graph.name())
        return "it maps model " + fileModel + ", not the open model " + graph.name() + " (" + why + ")";
    return why;
}

ScheduleRequest requestFor(const std::string& mapper, const std::vector<std::string>& devices, std::int64_t batch)
{
    ScheduleRequest request;
    request.scheduler = std::string(kMapperPrefix) + (mapper.empty() ? "file" : mapper);
    request.device.clear();
    for (std::size_t u = 0; u < devices.size(); ++u)
        request.device += (u ? "," : "") + devices[u];
    request.batch = batch;
    return request;
}

// The makespan is recomputed from the file's inputs; a file whose own number disagrees (edited
// by hand) says so in the params rather than being trusted.
void noteFileMakespan(ScheduleResult& result, const std::string& path, double fileMs)
{
    result.output.params["file"] = path;
    if (fileMs > 0 && std::abs(fileMs - result.latency * 1e3) > 1e-6 * std::max(1.0, fileMs))
        result.output.params["file_makespan_ms"] = fileMs;
}

// A throughput mapping: over the model at batch 1 (its inputs are the batch), evaluated from the
// file's per-batch costs and links.
std::shared_ptr<const ScheduleResult> loadThroughput(
    const Graph& openGraph, const std::string& path, const nlohmann::json& j)
{
    const Graph graph = openGraph.batch() == 1 ? openGraph : openGraph.withBatch(1);
    map::ThroughputMappingDocument doc;
    try {
        doc = map::throughputMappingFromJson(graph, j);
    } catch (const Error& e) {
        fail(path, withModel(j, graph, e.what()));
    }
    std::vector<map::Transfer> transfers;
    const map::ThroughputTimes times = map::evaluate(doc.problem, doc.mapping, &transfers);
    if (!times.feasible)
        fail(path, "its mapping cannot run: " + times.problem);
    auto result = throughputMappingResult(graph, doc.problem, doc.mapping, times, transfers,
        requestFor(doc.mapper, deviceNames(doc.problem.base), graph.batch()),
        { doc.mapper, doc.status, doc.lowerBoundMs, doc.solveSeconds });
    noteFileMakespan(*result, path, doc.makespanMs);
    return result;
}

} // namespace

bool looksLikeMappingFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return false;
    // The format is the file's first field (mappingToJson); a few KB also allows hand-made files.
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    return head.find("\"opsched-mapping\"") != std::string::npos;
}

std::shared_ptr<const ScheduleResult> loadMappingResult(const Graph& openGraph, const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        fail(path, "cannot be read");
    std::stringstream content;
    content << in.rdbuf();
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(content.str());
    } catch (const nlohmann::json::exception& e) {
        fail(path, std::string("is not a valid mapping file: its JSON is broken or cut short (") + e.what() + ")");
    }
    if (!j.is_object() || text(j, "format") != "opsched-mapping")
        fail(path, "is not a mapping file (no \"format\": \"opsched-mapping\"); opsched-cli map -o writes them");
    if (text(j, "objective") == "throughput")
        return loadThroughput(openGraph, path, j);

    // The file is for the model at its own batch; the open model is rebuilt at that batch so that
    // a file made with --batch N loads whatever batch the window opened the model at.
    std::int64_t batch = openGraph.batch();
    if (j.contains("batch")) {
        if (!j.at("batch").is_number_integer() || j.at("batch").get<std::int64_t>() < 1)
            fail(path, "\"batch\" is not a positive integer");
        batch = j.at("batch").get<std::int64_t>();
    }
    const Graph graph = batch == openGraph.batch() ? openGraph : openGraph.withBatch(batch);
    map::MappingDocument doc;
    try {
        doc = map::mappingFromJson(graph, j);
    } catch (const Error& e) {
        fail(path, withModel(j, graph, e.what()));
    }
    // The timeline is the prediction from the file's costs: without them there is nothing to draw.
    const std::size_t k = doc.devices.size();
    for (std::size_t t = 0; t < graph.opCount(); ++t)
        if (!std::isfinite(doc.costsMs[t * k + doc.mapping.device[t]]))
            fail(path,
                "has no cost for op " + graph.ops()[t].name + " on " + doc.devices[doc.mapping.device[t]]
                    + ", so the window cannot predict its timeline (opsched-cli run --mapping measures it)");

    map::MappingProblem problem;
    map::MappingTimes times;
    try {
        problem = map::problemFromDocument(graph, doc);
        times = map::evaluate(problem, doc.mapping);
    } catch (const Error& e) {
        fail(path, e.what());
    }
    if (!times.feasible)
        fail(path, "its mapping cannot run: " + times.problem);

    const MappingSummary summary { doc.mapper, doc.status, doc.lowerBoundMs, doc.solveSeconds };
    auto result = mappingResult(
        graph, problem, doc.mapping, times, requestFor(doc.mapper, doc.devices, graph.batch()), summary);
    noteFileMakespan(*result, path, doc.makespanMs);
    return result;
}

} // namespace opsched
