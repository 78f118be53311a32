#include "map/files/mapping_file.h"

#include "map/files/mapping_json.h"
#include "map/problem/problem_builder.h"

#include "graph/fingerprint.h"

#include <cmath>
#include <fstream>
#include <sstream>

namespace opsched::map {
namespace {

double ms(double seconds)
{
    return seconds * 1e3;
}

} // namespace

using json::fail;
using json::field;
using json::numberField;
using json::stringField;

nlohmann::ordered_json mappingToJson(
    const Graph& graph, const MappingProblem& p, const MapResult& r, double lowerBoundSeconds)
{
    nlohmann::ordered_json j = json::headerToJson(graph, p, "latency", r.mapper);
    j["makespan_ms"] = ms(r.times.makespan);
    j["lower_bound_ms"] = ms(lowerBoundSeconds);
    if (r.joinedMakespan > 0)
        j["joined_makespan_ms"] = ms(r.joinedMakespan);
    json::addSolveFields(j, toString(r.status), r.gap, r.solveSeconds, r.note);
    auto mapping = nlohmann::ordered_json::object();
    for (std::uint32_t t = 0; t < p.taskCount(); ++t)
        mapping[p.tasks[t].name] = p.devices[r.mapping.device[t]].name;
    j["mapping"] = mapping;
    j["order"] = json::orderToJson(p, r.mapping.order);
    auto start = nlohmann::ordered_json::object(), finish = nlohmann::ordered_json::object();
    for (std::uint32_t t = 0; t < p.taskCount(); ++t) {
        start[p.tasks[t].name] = ms(r.times.start[t]);
        finish[p.tasks[t].name] = ms(r.times.finish[t]);
    }
    j["start_ms"] = start;
    j["finish_ms"] = finish;
    auto transfers = nlohmann::ordered_json::array();
    for (const Transfer& x : r.times.transfers)
        transfers.push_back({ { "from", p.tasks[x.fromTask].name }, { "to", p.tasks[x.toTask].name },
            { "from_device", p.devices[x.fromDevice].name }, { "to_device", p.devices[x.toDevice].name },
            { "start_ms", ms(x.start) }, { "end_ms", ms(x.end) }, { "bytes", x.bytes } });
    j["transfers"] = transfers;
    auto costs = nlohmann::ordered_json::object();
    for (std::uint32_t t = 0; t < p.taskCount(); ++t) {
        auto row = nlohmann::ordered_json::object();
        for (std::uint32_t u = 0; u < p.deviceCount(); ++u)
            row[p.devices[u].name] = std::isfinite(p.seconds(t, u)) ? nlohmann::ordered_json(ms(p.seconds(t, u)))
                                                                    : nlohmann::ordered_json(nullptr);
        costs[p.tasks[t].name] = row;
    }
    j["costs"] = costs;
    j["links"] = json::linksToJson(p);
    return j;
}

MappingDocument mappingFromJson(const Graph& graph, const nlohmann::json& j)
{
    json::checkFormat(j);
    if (j.contains("objective") && j.at("objective") != "latency")
        fail("it is a "
            + (j.at("objective").is_string() ? j.at("objective").get<std::string>() : j.at("objective").dump())
            + " mapping (each op's inputs split across devices); opsched runs and shows latency mappings only");
    MappingDocument doc;
    json::checkModel(graph, j);
    doc.model = stringField(j, "model");
    doc.mapper = j.contains("mapper") && j.at("mapper").is_string() ? j.at("mapper").get<std::string>() : "";
    doc.makespanMs = j.contains("makespan_ms") ? numberField(j, "makespan_ms") : 0.0;
    // What the solver said: kept as given, ignored when of another type (hand-made files).
    doc.status = j.contains("status") && j.at("status").is_string() ? j.at("status").get<std::string>() : "";
    if (j.contains("lower_bound_ms") && j.at("lower_bound_ms").is_number())
        doc.lowerBoundMs = j.at("lower_bound_ms").get<double>();
    if (j.contains("solve_s") && j.at("solve_s").is_number())
        doc.solveSeconds = j.at("solve_s").get<double>();
    const json::DeviceList devices = json::readDevices(j);
    doc.devices = devices.names;
    auto deviceOf = [&](const std::string& name) { return devices.of(name); };
    auto opOf = [&](const std::string& name) { return json::opOf(graph, name); };
    const std::size_t n = graph.opCount(), k = doc.devices.size();
    const auto& mapping = field(j, "mapping");
    if (!mapping.is_object())
        fail("\"mapping\" is not an object {op: device}");
    doc.mapping.device.assign(n, UINT32_MAX);
    for (const auto& [op, dev] : mapping.items()) {
        if (!dev.is_string())
            fail("the device of op " + op + " is not a string");
        doc.mapping.device[opOf(op)] = deviceOf(dev.get<std::string>());
    }
    for (std::size_t t = 0; t < n; ++t)
        if (doc.mapping.device[t] == UINT32_MAX)
            fail("op " + graph.ops()[t].name + " is not mapped to any device");
    doc.mapping.order = json::readOrder(graph, j, devices, [&](std::uint32_t t, std::uint32_t u) {
        return doc.mapping.device[t] == u ? std::string() : "mapped to " + doc.devices[doc.mapping.device[t]];
    });
    std::vector<char> listed(n, 0);
    for (const auto& ops : doc.mapping.order)
        for (std::uint32_t t : ops)
            listed[t] = 1;
    for (std::size_t t = 0; t < n; ++t)
        if (!listed[t])
            fail("op " + graph.ops()[t].name + " is missing from its device's \"order\"");

    doc.costsMs.assign(n * k, kUnsupported);
    if (j.contains("costs")) {
        const auto& costs = j.at("costs");
        if (!costs.is_object())
            fail("\"costs\" is not an object {op: {device: ms}}");
        for (const auto& [op, row] : costs.items()) {
            const std::uint32_t t = opOf(op);
            if (!row.is_object())
                fail("the costs of op " + op + " are not an object {device: ms}");
            for (const auto& [dev, value] : row.items()) {
                if (value.is_null())
                    continue;
                if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0)
                    fail("the cost of op " + op + " on " + dev + " is not a non-negative number");
                doc.costsMs[t * k + deviceOf(dev)] = value.get<double>();
            }
        }
    }
    doc.links = json::linksFromJson(j, devices);
    return doc;
}

MappingDocument readMappingFile(const Graph& graph, const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw MappingFileError("cannot read mapping file " + path);
    std::stringstream text;
    text << in.rdbuf();
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text.str());
    } catch (const nlohmann::json::exception& e) {
        throw MappingFileError("mapping file " + path + " is not valid JSON: " + e.what());
    }
    try {
        return mappingFromJson(graph, j);
    } catch (const MappingFileError& e) {
        throw MappingFileError(path + ": " + e.what());
    }
}

MappingProblem problemFromDocument(const Graph& graph, const MappingDocument& doc)
{
    const std::size_t n = graph.opCount(), k = doc.devices.size();
    std::vector<DeviceCosts> devices;
    for (std::size_t u = 0; u < k; ++u) {
        DeviceCosts d { doc.devices[u], std::vector<double>(n), kUnsupported };
        for (std::size_t t = 0; t < n; ++t)
            d.opSeconds[t] = doc.costsMs[t * k + u] / 1e3;
        devices.push_back(std::move(d));
    }
    try {
        return buildProblem(graph, devices, doc.links);
    } catch (const Error& e) {
        throw MappingFileError(std::string("mapping file: its costs do not describe a problem: ") + e.what());
    }
}

} // namespace opsched::map
