#include "mapping_file_result.h"

#include "mapping_result.h"

#include "map/mapping_file.h"
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
    // Throughput mappings split ops into batches; the window shows one input's mapping only.
    if (const std::string objective = text(j, "objective"); !objective.empty() && objective != "latency")
        fail(path, "is a " + objective + " mapping; the window shows latency mappings (map --objective latency)");

    // The file is for the model at its own batch; the open model is rebuilt at that batch so that
    // a file made with --batch N loads whatever batch the window opened the model at.
    std::int64_t batch = openGraph.batch();
    if (j.contains("batch")) {
        if (!j.at("batch").is_number_integer() || j.at("batch").get<std::int64_t>() < 1)
            fail(path, "\"batch\" is not a positive integer");
        batch = j.at("batch").get<std::int64_t>();
    }
    const Graph graph = batch == openGraph.batch() ? openGraph : openGraph.withBatch(batch);
    const std::string fileModel = text(j, "model");
    map::MappingDocument doc;
    try {
        doc = map::mappingFromJson(graph, j);
    } catch (const Error& e) {
        std::string why = e.what();
        if (!fileModel.empty() && fileModel != graph.name())
            why = "it maps model " + fileModel + ", not the open model " + graph.name() + " (" + why + ")";
        fail(path, why);
    }
    // The timeline is the prediction from the file's costs: without them there is nothing to draw.
    const std::size_t k = doc.devices.size();
    for (std::size_t t = 0; t < graph.opCount(); ++t)
        if (!std::isfinite(doc.costsMs[t * k + doc.mapping.device[t]]))
            fail(path, "has no cost for op " + graph.ops()[t].name + " on " + doc.devices[doc.mapping.device[t]] +
                           ", so the window cannot predict its timeline (opsched-cli run --mapping measures it)");

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

    ScheduleRequest request;
    request.scheduler = std::string(kMapperPrefix) + (doc.mapper.empty() ? "file" : doc.mapper);
    request.device.clear();
    for (std::size_t u = 0; u < k; ++u)
        request.device += (u ? "," : "") + doc.devices[u];
    request.batch = graph.batch();
    MappingSummary summary;
    summary.mapper = doc.mapper;
    summary.status = text(j, "status");
    if (j.contains("lower_bound_ms") && j.at("lower_bound_ms").is_number())
        summary.lowerBoundMs = j.at("lower_bound_ms").get<double>();
    if (j.contains("solve_s") && j.at("solve_s").is_number())
        summary.solveSeconds = j.at("solve_s").get<double>();
    auto result = mappingResult(graph, problem, doc.mapping, times, request, summary);
    result->output.params["file"] = path;
    // The makespan is recomputed from the file's inputs; a file whose own number disagrees (edited
    // by hand) says so in the params rather than being trusted.
    if (doc.makespanMs > 0 && std::abs(doc.makespanMs - times.makespan * 1e3) > 1e-6 * std::max(1.0, doc.makespanMs))
        result->output.params["file_makespan_ms"] = doc.makespanMs;
    return result;
}

} // namespace opsched
