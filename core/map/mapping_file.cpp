#include "map/mapping_file.h"

#include "map/problem_builder.h"

#include "graph/fingerprint.h"

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

namespace opsched::map {
namespace {

double ms(double seconds) { return seconds * 1e3; }

[[noreturn]] void fail(const std::string& why)
{
    throw MappingFileError("mapping file: " + why);
}

const nlohmann::json& field(const nlohmann::json& j, const char* key)
{
    if (!j.is_object() || !j.contains(key))
        fail(std::string("missing \"") + key + "\"");
    return j.at(key);
}

std::string stringField(const nlohmann::json& j, const char* key)
{
    const auto& v = field(j, key);
    if (!v.is_string())
        fail(std::string("\"") + key + "\" is not a string");
    return v.get<std::string>();
}

double numberField(const nlohmann::json& j, const char* key)
{
    const auto& v = field(j, key);
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
        fail(std::string("\"") + key + "\" is not a non-negative number");
    return v.get<double>();
}

std::string linkKey(const std::string& from, const std::string& to) { return from + "->" + to; }

} // namespace

nlohmann::ordered_json mappingToJson(const Graph& graph, const MappingProblem& p, const MapResult& r,
                                     double lowerBoundSeconds)
{
    nlohmann::ordered_json j;
    j["format"] = "opsched-mapping";
    j["version"] = kMappingFormatVersion;
    j["model"] = graph.name();
    j["model_sha256"] = modelFingerprint(graph);
    j["batch"] = graph.batch();
    j["objective"] = "latency";
    j["mapper"] = r.mapper;
    auto devices = nlohmann::ordered_json::array();
    for (const auto& d : p.devices)
        devices.push_back(d.name);
    j["devices"] = devices;
    j["makespan_ms"] = ms(r.times.makespan);
    j["lower_bound_ms"] = ms(lowerBoundSeconds);
    j["status"] = toString(r.status);
    j["gap"] = std::isnan(r.gap) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.gap);
    j["solve_s"] = r.solveSeconds;
    if (!r.note.empty())
        j["note"] = r.note;
    auto mapping = nlohmann::ordered_json::object();
    for (std::uint32_t t = 0; t < p.taskCount(); ++t)
        mapping[p.tasks[t].name] = p.devices[r.mapping.device[t]].name;
    j["mapping"] = mapping;
    auto order = nlohmann::ordered_json::object();
    for (std::uint32_t u = 0; u < p.deviceCount(); ++u) {
        auto list = nlohmann::ordered_json::array();
        for (std::uint32_t t : r.mapping.order[u])
            list.push_back(p.tasks[t].name);
        order[p.devices[u].name] = list;
    }
    j["order"] = order;
    auto start = nlohmann::ordered_json::object(), finish = nlohmann::ordered_json::object();
    for (std::uint32_t t = 0; t < p.taskCount(); ++t) {
        start[p.tasks[t].name] = ms(r.times.start[t]);
        finish[p.tasks[t].name] = ms(r.times.finish[t]);
    }
    j["start_ms"] = start;
    j["finish_ms"] = finish;
    auto transfers = nlohmann::ordered_json::array();
    for (const Transfer& x : r.times.transfers)
        transfers.push_back({{"from", p.tasks[x.fromTask].name},
                             {"to", p.tasks[x.toTask].name},
                             {"from_device", p.devices[x.fromDevice].name},
                             {"to_device", p.devices[x.toDevice].name},
                             {"start_ms", ms(x.start)},
                             {"end_ms", ms(x.end)},
                             {"bytes", x.bytes}});
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
    auto links = nlohmann::ordered_json::object();
    for (std::uint32_t u = 0; u < p.deviceCount(); ++u)
        for (std::uint32_t v = 0; v < p.deviceCount(); ++v)
            if (u != v)
                links[linkKey(p.devices[u].name, p.devices[v].name)] = {
                    {"bandwidth_gbps", p.links[u][v].bandwidthBytesPerSecond / 1e9},
                    {"latency_us", p.links[u][v].latencySeconds * 1e6}};
    j["links"] = links;
    return j;
}

MappingDocument mappingFromJson(const Graph& graph, const nlohmann::json& j)
{
    if (!j.is_object())
        fail("not a JSON object");
    if (stringField(j, "format") != "opsched-mapping")
        fail("format is \"" + stringField(j, "format") + "\", expected \"opsched-mapping\"");
    const auto& version = field(j, "version");
    if (!version.is_number_integer() || version.get<long long>() != kMappingFormatVersion)
        fail("version " + version.dump() + " is not supported (this opsched reads version " +
             std::to_string(kMappingFormatVersion) + ")");
    if (j.contains("objective") && j.at("objective") != "latency")
        fail("it is a " + (j.at("objective").is_string() ? j.at("objective").get<std::string>() : j.at("objective").dump()) +
             " mapping (each op's inputs split across devices); opsched runs and shows latency mappings only");
    MappingDocument doc;
    doc.model = stringField(j, "model");
    if (j.contains("model_sha256") && j.at("model_sha256").is_string() &&
        j.at("model_sha256").get<std::string>() != modelFingerprint(graph))
        fail("it was made for another model or batch than " + graph.name() + " at batch " +
             std::to_string(graph.batch()) + " (model_sha256 differs)");
    doc.mapper = j.contains("mapper") && j.at("mapper").is_string() ? j.at("mapper").get<std::string>() : "";
    doc.makespanMs = j.contains("makespan_ms") ? numberField(j, "makespan_ms") : 0.0;
    const auto& devices = field(j, "devices");
    if (!devices.is_array() || devices.empty())
        fail("\"devices\" is not a non-empty list");
    std::map<std::string, std::uint32_t> deviceIndex;
    for (const auto& d : devices) {
        if (!d.is_string())
            fail("a device is not a string");
        if (!deviceIndex.emplace(d.get<std::string>(), static_cast<std::uint32_t>(doc.devices.size())).second)
            fail("device " + d.get<std::string>() + " is listed twice");
        doc.devices.push_back(d.get<std::string>());
    }
    auto deviceOf = [&](const std::string& name) {
        const auto it = deviceIndex.find(name);
        if (it == deviceIndex.end())
            fail("device \"" + name + "\" is not in \"devices\"");
        return it->second;
    };
    auto opOf = [&](const std::string& name) {
        const auto id = graph.findOp(name);
        if (!id)
            fail("op \"" + name + "\" is not in model " + graph.name());
        return id->value();
    };
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
    const auto& order = field(j, "order");
    if (!order.is_object())
        fail("\"order\" is not an object {device: [op, ...]}");
    doc.mapping.order.assign(k, {});
    std::vector<char> listed(n, 0);
    for (const auto& [dev, ops] : order.items()) {
        const std::uint32_t u = deviceOf(dev);
        if (!ops.is_array())
            fail("the order of " + dev + " is not a list of ops");
        for (const auto& op : ops) {
            if (!op.is_string())
                fail("an op in the order of " + dev + " is not a string");
            const std::uint32_t t = opOf(op.get<std::string>());
            if (doc.mapping.device[t] != u)
                fail("op " + op.get<std::string>() + " is in the order of " + dev + " but mapped to " +
                     doc.devices[doc.mapping.device[t]]);
            if (listed[t]++)
                fail("op " + op.get<std::string>() + " is listed twice in \"order\"");
            doc.mapping.order[u].push_back(t);
        }
    }
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
    doc.links.assign(k, std::vector<Link>(k));
    if (j.contains("links")) {
        const auto& links = j.at("links");
        if (!links.is_object())
            fail("\"links\" is not an object {\"u->v\": {bandwidth_gbps, latency_us}}");
        for (const auto& [key, value] : links.items()) {
            const auto arrow = key.find("->");
            if (arrow == std::string::npos)
                fail("link \"" + key + "\" is not of the form \"from->to\"");
            const std::uint32_t u = deviceOf(key.substr(0, arrow)), v = deviceOf(key.substr(arrow + 2));
            doc.links[u][v] = {numberField(value, "bandwidth_gbps") * 1e9, numberField(value, "latency_us") * 1e-6};
        }
    }
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
        DeviceCosts d{doc.devices[u], std::vector<double>(n), kUnsupported};
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
