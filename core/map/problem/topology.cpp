#include "map/problem/topology.h"

#include "util/error.h"
#include "util/printable.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

namespace opsched::map {
namespace {

using Json = nlohmann::json;

const Json& need(const Json& j, const char* key, const std::string& where)
{
    if (!j.is_object() || !j.contains(key))
        throw Error(where + ": field '" + key + "' is missing");
    return j.at(key);
}

std::string text(const Json& j, const char* key, const std::string& where)
{
    const auto& v = need(j, key, where);
    if (!v.is_string() || v.get<std::string>().empty())
        throw Error(where + "." + key + ": not a non-empty string");
    return v.get<std::string>();
}

double number(const Json& j, const char* key, const std::string& where)
{
    const auto& v = need(j, key, where);
    if (!v.is_number() || !std::isfinite(v.get<double>()))
        throw Error(where + "." + key + ": not a finite number");
    return v.get<double>();
}

Link linkOf(const Json& j, const std::string& where)
{
    const double gbps = number(j, "gbps", where);
    const double us = j.contains("latency_us") ? number(j, "latency_us", where) : 0.0;
    if (!(gbps >= 0)) // 0: no link (the paper's beta = 0): results cannot cross it
        throw Error(where + ".gbps: the bandwidth must be 0 GB/s (no link) or above");
    if (us < 0)
        throw Error(where + ".latency_us: negative latency");
    return { gbps * 1e9, us / 1e6 };
}

std::vector<TopologyDevice> devicesOf(const Json& list, const std::string& where)
{
    if (!list.is_array() || list.empty())
        throw Error(where + ": not a non-empty array of devices");
    std::vector<TopologyDevice> out;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string at = where + "[" + std::to_string(i) + "]";
        TopologyDevice d { text(list[i], "name", at), text(list[i], "type", at), 0, kUnsupported };
        if (d.name.find('/') != std::string::npos)
            throw Error(at + ".name: '" + printable(d.name) + "' holds a '/' (names are NODE/NAME)");
        if (list[i].contains("memory_gb")) {
            const double gb = number(list[i], "memory_gb", at);
            if (!(gb > 0))
                throw Error(at + ".memory_gb: must be above 0");
            d.memoryBytes = gb * 1024.0 * 1024 * 1024;
        }
        out.push_back(d);
    }
    return out;
}

} // namespace

std::vector<std::string> Topology::deviceNames() const
{
    std::vector<std::string> out;
    for (const auto& d : devices)
        out.push_back(d.name);
    return out;
}

std::vector<std::vector<Link>> Topology::links(const std::string& source) const
{
    const std::size_t k = devices.size();
    std::vector<std::vector<Link>> out(k, std::vector<Link>(k));
    for (std::size_t u = 0; u < k; ++u)
        for (std::size_t v = 0; v < k; ++v)
            if (u != v)
                out[u][v] = devices[u].node == devices[v].node ? intra : inter;
    applyLinks(out, deviceNames(), overrides, source);
    return out;
}

Topology parseTopology(const std::string& content, const std::string& source)
{
    Json j;
    try {
        j = Json::parse(content);
    } catch (const Json::parse_error& e) {
        const std::size_t upTo = std::min(e.byte, content.size());
        const auto line = 1 + std::count(content.begin(), content.begin() + static_cast<std::ptrdiff_t>(upTo), '\n');
        throw Error(source + ":" + std::to_string(line) + ": not valid JSON (" + e.what() + ")");
    }
    if (!j.is_object() || j.value("format", std::string()) != "opsched-topology")
        throw Error(source + ": not an opsched topology (expected \"format\": \"opsched-topology\")");
    if (j.value("version", 0) != 1)
        throw Error(source + ": topology version " + j.value("version", Json()).dump() + " (this opsched reads 1)");
    Topology t;
    t.intra = linkOf(need(j, "intra_node", source), source + ": intra_node");
    const auto& nodes = need(j, "nodes", source);
    std::vector<std::vector<TopologyDevice>> perNode;
    if (nodes.is_number_integer()) {
        const auto count = nodes.get<std::int64_t>();
        if (count < 1 || count > 1024)
            throw Error(source + ": nodes: " + std::to_string(count) + " (1 to 1024)");
        const auto template_ = devicesOf(need(j, "node_devices", source), source + ": node_devices");
        for (std::int64_t n = 0; n < count; ++n) {
            t.nodes.push_back("n" + std::to_string(n));
            perNode.push_back(template_);
        }
    } else if (nodes.is_array() && !nodes.empty()) {
        for (std::size_t n = 0; n < nodes.size(); ++n) {
            const std::string at = source + ": nodes[" + std::to_string(n) + "]";
            t.nodes.push_back(nodes[n].contains("name") ? text(nodes[n], "name", at) : "n" + std::to_string(n));
            perNode.push_back(devicesOf(need(nodes[n], "devices", at), at + ".devices"));
        }
    } else {
        throw Error(source + ": nodes: a count (identical nodes) or a non-empty array of {\"name\", \"devices\"}");
    }
    if (t.nodes.size() > 1)
        t.inter = linkOf(need(j, "inter_node", source), source + ": inter_node");
    std::set<std::string> seen;
    for (std::size_t n = 0; n < t.nodes.size(); ++n)
        for (auto d : perNode[n]) {
            d.name = t.nodes[n] + "/" + d.name;
            d.node = static_cast<int>(n);
            if (!seen.insert(d.name).second)
                throw Error(source + ": device " + printable(d.name) + " is listed twice");
            t.devices.push_back(d);
        }
    if (j.contains("links")) {
        const auto& links = j["links"];
        if (!links.is_array())
            throw Error(source + ": \"links\" is not an array");
        for (std::size_t i = 0; i < links.size(); ++i) {
            const std::string at = source + ": links[" + std::to_string(i) + "]";
            LinkEntry e { text(links[i], "from", at), text(links[i], "to", at), linkOf(links[i], at) };
            if (e.from == e.to)
                throw Error(at + ": a link from " + printable(e.from) + " to itself");
            t.overrides.push_back(e);
        }
    }
    t.links(source); // unknown device names in the overrides fail here, with the file's name
    return t;
}

Topology readTopology(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error("topology '" + printable(path) + "' cannot be opened");
    std::stringstream s;
    s << in.rdbuf();
    return parseTopology(s.str(), path);
}

} // namespace opsched::map
