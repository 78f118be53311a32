#include "map/files/mapping_json.h"

#include "map/files/mapping_json.h"

#include "graph/fingerprint.h"
#include "graph/input_shapes.h"

#include <cmath>

namespace opsched::map::json {
namespace {

std::string linkKey(const std::string& from, const std::string& to)
{
    return from + "->" + to;
}

} // namespace

void fail(const std::string& why)
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

std::string optionalString(const nlohmann::json& j, const char* key)
{
    return j.is_object() && j.contains(key) && j.at(key).is_string() ? j.at(key).get<std::string>() : std::string();
}

void checkFormat(const nlohmann::json& j)
{
    if (!j.is_object())
        fail("not a JSON object");
    if (stringField(j, "format") != "opsched-mapping")
        fail("format is \"" + stringField(j, "format") + "\", expected \"opsched-mapping\"");
    const auto& version = field(j, "version");
    if (!version.is_number_integer() || version.get<long long>() != kMappingFormatVersion)
        fail("version " + version.dump() + " is not supported (this opsched reads version "
            + std::to_string(kMappingFormatVersion) + ")");
}

void checkModel(const Graph& graph, const nlohmann::json& j)
{
    stringField(j, "model");
    if (const auto why = inputShapesMismatch(graph, recordedInputShapes(j)); !why.empty())
        fail(why);
    if (j.contains("model_sha256") && j.at("model_sha256").is_string()
        && j.at("model_sha256").get<std::string>() != modelFingerprint(graph))
        fail("it was made for another model or batch than " + graph.name() + " at batch "
            + std::to_string(graph.batch()) + " (model_sha256 differs)");
}

std::uint32_t DeviceList::of(const std::string& name) const
{
    const auto it = index.find(name);
    if (it == index.end())
        fail("device \"" + name + "\" is not in \"devices\"");
    return it->second;
}

DeviceList readDevices(const nlohmann::json& j)
{
    const auto& devices = field(j, "devices");
    if (!devices.is_array() || devices.empty())
        fail("\"devices\" is not a non-empty list");
    DeviceList out;
    for (const auto& d : devices) {
        if (!d.is_string())
            fail("a device is not a string");
        if (!out.index.emplace(d.get<std::string>(), static_cast<std::uint32_t>(out.names.size())).second)
            fail("device " + d.get<std::string>() + " is listed twice");
        out.names.push_back(d.get<std::string>());
    }
    return out;
}

std::uint32_t opOf(const Graph& graph, const std::string& name)
{
    const auto id = graph.findOp(name);
    if (!id)
        fail("op \"" + name + "\" is not in model " + graph.name());
    return id->value();
}

std::vector<std::vector<std::uint32_t>> readOrder(const Graph& graph, const nlohmann::json& j,
    const DeviceList& devices, const std::function<std::string(std::uint32_t op, std::uint32_t device)>& misplaced)
{
    const auto& order = field(j, "order");
    if (!order.is_object())
        fail("\"order\" is not an object {device: [op, ...]}");
    std::vector<std::vector<std::uint32_t>> out(devices.names.size());
    std::vector<std::vector<char>> listed(devices.names.size(), std::vector<char>(graph.opCount(), 0));
    for (const auto& [dev, ops] : order.items()) {
        const std::uint32_t u = devices.of(dev);
        if (!ops.is_array())
            fail("the order of " + dev + " is not a list of ops");
        for (const auto& op : ops) {
            if (!op.is_string())
                fail("an op in the order of " + dev + " is not a string");
            const std::uint32_t t = opOf(graph, op.get<std::string>());
            if (const std::string why = misplaced(t, u); !why.empty())
                fail("op " + op.get<std::string>() + " is in the order of " + dev + " but " + why);
            if (listed[u][t]++)
                fail("op " + op.get<std::string>() + " is listed twice in the order of " + dev);
            out[u].push_back(t);
        }
    }
    return out;
}

nlohmann::ordered_json linksToJson(const MappingProblem& p)
{
    auto links = nlohmann::ordered_json::object();
    for (std::uint32_t u = 0; u < p.deviceCount(); ++u)
        for (std::uint32_t v = 0; v < p.deviceCount(); ++v)
            if (u != v)
                links[linkKey(p.devices[u].name, p.devices[v].name)]
                    = { { "bandwidth_gbps", p.links[u][v].bandwidthBytesPerSecond / 1e9 },
                          { "latency_us", p.links[u][v].latencySeconds * 1e6 } };
    return links;
}

std::vector<std::vector<Link>> linksFromJson(const nlohmann::json& j, const DeviceList& devices)
{
    const std::size_t k = devices.names.size();
    std::vector<std::vector<Link>> out(k, std::vector<Link>(k));
    if (!j.contains("links"))
        return out;
    const auto& links = j.at("links");
    if (!links.is_object())
        fail("\"links\" is not an object {\"u->v\": {bandwidth_gbps, latency_us}}");
    for (const auto& [key, value] : links.items()) {
        const auto arrow = key.find("->");
        if (arrow == std::string::npos)
            fail("link \"" + key + "\" is not of the form \"from->to\"");
        const std::uint32_t u = devices.of(key.substr(0, arrow)), v = devices.of(key.substr(arrow + 2));
        out[u][v] = { numberField(value, "bandwidth_gbps") * 1e9, numberField(value, "latency_us") * 1e-6 };
    }
    return out;
}

nlohmann::ordered_json headerToJson(
    const Graph& graph, const MappingProblem& problem, const char* objective, const std::string& mapper)
{
    nlohmann::ordered_json j;
    j["format"] = "opsched-mapping";
    j["version"] = kMappingFormatVersion;
    j["model"] = graph.name();
    j["model_sha256"] = modelFingerprint(graph);
    j["batch"] = graph.batch();
    j["input_shapes"] = inputShapesOf(graph);
    j["objective"] = objective;
    j["mapper"] = mapper;
    auto devices = nlohmann::ordered_json::array();
    for (const auto& d : problem.devices)
        devices.push_back(d.name);
    j["devices"] = devices;
    return j;
}

void addSolveFields(
    nlohmann::ordered_json& j, const char* status, double gap, double solveSeconds, const std::string& note)
{
    j["status"] = status;
    j["gap"] = std::isnan(gap) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(gap);
    j["solve_s"] = solveSeconds;
    if (!note.empty())
        j["note"] = note;
}

nlohmann::ordered_json orderToJson(const MappingProblem& problem, const std::vector<std::vector<std::uint32_t>>& order)
{
    auto out = nlohmann::ordered_json::object();
    for (std::uint32_t u = 0; u < problem.deviceCount(); ++u) {
        auto list = nlohmann::ordered_json::array();
        for (std::uint32_t t : order[u])
            list.push_back(problem.tasks[t].name);
        out[problem.devices[u].name] = list;
    }
    return out;
}

} // namespace opsched::map::json
