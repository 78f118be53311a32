#include "map/problem/cost_table.h"

#include "util/error.h"
#include "util/printable.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

namespace opsched::map {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

std::string readWhole(const std::string& path, const char* what)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(std::string(what) + " '" + printable(path) + "' cannot be opened");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

bool endsWith(const std::string& s, const std::string& suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::vector<std::string> splitCsv(const std::string& line)
{
    std::vector<std::string> out;
    std::string field;
    std::stringstream in(line);
    while (std::getline(in, field, ','))
        out.push_back(field);
    if (!line.empty() && line.back() == ',')
        out.emplace_back();
    for (auto& f : out) { // trim blanks around fields
        const auto a = f.find_first_not_of(" \t\r"), b = f.find_last_not_of(" \t\r");
        f = a == std::string::npos ? std::string() : f.substr(a, b - a + 1);
    }
    return out;
}

double parseNumber(const std::string& s, const std::string& where)
{
    double v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc {} || end != s.data() + s.size() || !std::isfinite(v))
        throw Error(where + " '" + printable(s) + "' is not a finite number");
    return v;
}

std::int64_t parseBatch(const std::string& s, const std::string& where)
{
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc {} || end != s.data() + s.size() || v < 1)
        throw Error(where + " '" + printable(s) + "' is not a batch size (an integer >= 1)");
    return v;
}

void checkCost(double ms, const std::string& where)
{
    if (ms < 0)
        throw Error(where + ": negative cost " + std::to_string(ms) + " ms");
}

// Every field of a JSON record, typed, with the record's place in the message.
const nlohmann::json& member(const nlohmann::json& j, const char* key, const std::string& where)
{
    if (!j.is_object() || !j.contains(key))
        throw Error(where + ": field '" + key + "' is missing");
    return j.at(key);
}
std::string stringField(const nlohmann::json& j, const char* key, const std::string& where)
{
    const auto& v = member(j, key, where);
    if (!v.is_string() || v.get<std::string>().empty())
        throw Error(where + "." + key + ": not a non-empty string");
    return v.get<std::string>();
}
double numberField(const nlohmann::json& j, const char* key, const std::string& where)
{
    const auto& v = member(j, key, where);
    if (!v.is_number() || !std::isfinite(v.get<double>()))
        throw Error(where + "." + key + ": not a finite number");
    return v.get<double>();
}

LinkEntry linkFrom(const std::string& from, const std::string& to, double gbps, double us, const std::string& where)
{
    if (!(gbps >= 0)) // 0: no link (the paper's beta = 0): results cannot cross it
        throw Error(where + ": bandwidth " + std::to_string(gbps) + " GB/s (must be 0, no link, or above)");
    if (us < 0)
        throw Error(where + ": negative latency " + std::to_string(us) + " us");
    if (from == to)
        throw Error(where + ": a link from " + printable(from) + " to itself");
    return { from, to, { gbps * 1e9, us / 1e6 } };
}

nlohmann::json parseJson(const std::string& text, const std::string& source)
{
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        const std::size_t upTo = std::min(e.byte, text.size());
        const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(upTo), '\n');
        throw Error(source + ":" + std::to_string(line) + ": not valid JSON (" + e.what() + ")");
    }
}

std::vector<LinkEntry> linksFromJson(const nlohmann::json& array, const std::string& source)
{
    if (!array.is_array())
        throw Error(source + ": \"links\" is not an array");
    std::vector<LinkEntry> out;
    for (std::size_t i = 0; i < array.size(); ++i) {
        const std::string where = source + ": links[" + std::to_string(i) + "]";
        const auto& l = array[i];
        const double us = l.is_object() && l.contains("latency_us") ? numberField(l, "latency_us", where) : 0.0;
        out.push_back(linkFrom(
            stringField(l, "from", where), stringField(l, "to", where), numberField(l, "gbps", where), us, where));
    }
    return out;
}

// The number to write for `value` in the file's unit so that the reader's conversion gives
// `value` back bit for bit (a plain x 1e3 then / 1e3 may be one ulp off).
double exactInFile(double value, double (*toFile)(double), double (*fromFile)(double))
{
    const double first = toFile(value);
    for (int step = 0; step < 8; ++step)
        for (double direction : { 1.0, -1.0 }) {
            double m = first;
            for (int i = 0; i < step; ++i)
                m = std::nextafter(m, direction * kUnsupported);
            if (fromFile(m) == value)
                return m;
        }
    return first;
}
double msOf(double seconds)
{
    return exactInFile(
        seconds, [](double s) { return s * 1e3; }, [](double ms) { return ms / 1e3; });
}
double gbpsOf(double bw)
{
    return exactInFile(
        bw, [](double b) { return b / 1e9; }, [](double g) { return g * 1e9; });
}
double usOf(double latency)
{
    return exactInFile(
        latency, [](double l) { return l * 1e6; }, [](double us) { return us / 1e6; });
}

// The records of a CSV file with the header `columns` (blank lines and '#' comments skipped):
// calls record(where, fields) for each, where = "SOURCE:LINE". Throws Error naming the line for a
// wrong header or field count, and for a file without the header (`what` names the file's kind).
template <class Record>
void forEachCsvRecord(const std::string& text, const std::string& source, const std::vector<std::string>& columns,
    const std::string& what, Record record)
{
    std::string names;
    for (const auto& c : columns)
        names += (names.empty() ? "" : ",") + c;
    std::stringstream in(text);
    std::string line;
    std::size_t number = 0;
    bool header = false;
    while (std::getline(in, line)) {
        ++number;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos || line[line.find_first_not_of(" \t")] == '#')
            continue;
        const std::string where = source + ":" + std::to_string(number);
        const auto f = splitCsv(line);
        if (!header) {
            if (f != columns)
                throw Error(where + ": the header must be '" + names + "', got '" + printable(line) + "'");
            header = true;
            continue;
        }
        if (f.size() != columns.size())
            throw Error(where + ": " + std::to_string(f.size()) + " fields, expected " + std::to_string(columns.size())
                + " (" + names + ")");
        record(where, f);
    }
    if (!header)
        throw Error(source + ": empty " + what + " (expected the header '" + names + "')");
}

} // namespace

std::optional<std::size_t> CostTable::deviceIndex(const std::string& name) const
{
    for (std::size_t i = 0; i < devices.size(); ++i)
        if (devices[i].name == name)
            return i;
    return std::nullopt;
}

void CostTable::set(const std::string& op, const std::string& device, std::int64_t batch, double s)
{
    if (!deviceIndex(device))
        devices.push_back({ device, kUnsupported });
    if (!seconds.count(op))
        ops.push_back(op);
    seconds[op][device][batch] = s;
}

CostTable parseCostTableCsv(const std::string& text, const std::string& source)
{
    CostTable t;
    forEachCsvRecord(text, source, { "op", "device", "batch", "ms" }, "cost table",
        [&](const std::string& where, const std::vector<std::string>& f) {
            if (f[0].empty())
                throw Error(where + ": field 'op' is empty");
            if (f[1].empty())
                throw Error(where + ": field 'device' is empty");
            const std::int64_t batch = parseBatch(f[2], where + ": field 'batch'");
            const double ms = parseNumber(f[3], where + ": field 'ms'");
            checkCost(ms, where + ": field 'ms'");
            t.set(f[0], f[1], batch, ms / 1e3);
        });
    if (t.ops.empty())
        throw Error(source + ": the cost table has a header but no costs");
    return t;
}

CostTable parseCostTableJson(const std::string& text, const std::string& source)
{
    const auto j = parseJson(text, source);
    if (!j.is_object() || j.value("format", std::string()) != "opsched-cost-table")
        throw Error(source + ": not an opsched cost table (expected \"format\": \"opsched-cost-table\")");
    if (j.value("version", 0) != 1)
        throw Error(
            source + ": cost table version " + j.value("version", nlohmann::json()).dump() + " (this opsched reads 1)");
    CostTable t;
    if (j.contains("devices")) {
        if (!j["devices"].is_array())
            throw Error(source + ": \"devices\" is not an array");
        for (std::size_t i = 0; i < j["devices"].size(); ++i) {
            const std::string where = source + ": devices[" + std::to_string(i) + "]";
            const auto& d = j["devices"][i];
            CostTable::Device dev { stringField(d, "name", where), kUnsupported };
            if (t.deviceIndex(dev.name))
                throw Error(where + ": device " + printable(dev.name) + " is listed twice");
            if (d.contains("memory_gb") && !d["memory_gb"].is_null()) {
                const double gb = numberField(d, "memory_gb", where);
                if (!(gb > 0))
                    throw Error(where + ".memory_gb: must be above 0");
                dev.memoryBytes = gb * kGiB;
            }
            t.devices.push_back(dev);
        }
    }
    const auto& costs = member(j, "costs", source);
    if (!costs.is_array() || costs.empty())
        throw Error(source + ": \"costs\" is not a non-empty array");
    for (std::size_t i = 0; i < costs.size(); ++i) {
        const std::string where = source + ": costs[" + std::to_string(i) + "]";
        const auto& c = costs[i];
        const auto& b = member(c, "batch", where);
        if (!b.is_number_integer() || b.get<std::int64_t>() < 1)
            throw Error(where + ".batch: not a batch size (an integer >= 1)");
        const double ms = numberField(c, "ms", where);
        checkCost(ms, where + ".ms");
        t.set(stringField(c, "op", where), stringField(c, "device", where), b.get<std::int64_t>(), ms / 1e3);
    }
    if (j.contains("links"))
        t.links = linksFromJson(j["links"], source);
    return t;
}

CostTable readCostTable(const std::string& path)
{
    const std::string text = readWhole(path, "cost table");
    return endsWith(path, ".csv") ? parseCostTableCsv(text, path) : parseCostTableJson(text, path);
}

std::string costTableCsv(const CostTable& t)
{
    std::string out = "op,device,batch,ms\n";
    char buf[64];
    for (const auto& op : t.ops)
        for (const auto& [device, batches] : t.seconds.at(op))
            for (const auto& [batch, s] : batches) {
                std::snprintf(buf, sizeof buf, "%.17g", msOf(s));
                out += op + "," + device + "," + std::to_string(batch) + "," + buf + "\n";
            }
    return out;
}

std::string costTableJson(const CostTable& t)
{
    nlohmann::ordered_json j;
    j["format"] = "opsched-cost-table";
    j["version"] = 1;
    j["unit"] = "ms";
    j["devices"] = nlohmann::ordered_json::array();
    for (const auto& d : t.devices) {
        nlohmann::ordered_json jd { { "name", d.name } };
        jd["memory_gb"]
            = std::isfinite(d.memoryBytes) ? nlohmann::ordered_json(d.memoryBytes / kGiB) : nlohmann::ordered_json();
        j["devices"].push_back(jd);
    }
    j["costs"] = nlohmann::ordered_json::array();
    for (const auto& op : t.ops)
        for (const auto& d : t.devices)
            if (auto it = t.seconds.at(op).find(d.name); it != t.seconds.at(op).end())
                for (const auto& [batch, s] : it->second)
                    j["costs"].push_back({ { "op", op }, { "device", d.name }, { "batch", batch }, { "ms", msOf(s) } });
    if (!t.links.empty()) {
        j["links"] = nlohmann::ordered_json::array();
        for (const auto& l : t.links)
            j["links"].push_back({ { "from", l.from }, { "to", l.to },
                { "gbps", gbpsOf(l.link.bandwidthBytesPerSecond) }, { "latency_us", usOf(l.link.latencySeconds) } });
    }
    return j.dump(1) + "\n";
}

void writeCostTable(const std::string& path, const CostTable& table)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out)
        throw Error("--write-costs: cannot write '" + printable(path) + "'");
    out << (endsWith(path, ".csv") ? costTableCsv(table) : costTableJson(table));
    if (!out)
        throw Error("--write-costs: writing '" + printable(path) + "' failed");
}

DeviceCosts tableDeviceCosts(const CostTable& t, const Graph& graph, const std::string& device, std::int64_t batch)
{
    const auto index = t.deviceIndex(device);
    if (!index) {
        std::string known;
        for (const auto& d : t.devices)
            known += (known.empty() ? "" : ", ") + d.name;
        throw Error("cost table: no device '" + printable(device) + "' (it has " + known + ")");
    }
    std::set<std::string> inGraph;
    DeviceCosts out { device, std::vector<double>(graph.opCount(), kUnsupported), t.devices[*index].memoryBytes };
    for (const Op& op : graph.ops()) {
        inGraph.insert(op.name);
        const auto o = t.seconds.find(op.name);
        if (o == t.seconds.end())
            throw Error("cost table: no costs for op '" + printable(op.name) + "' of " + graph.name() + " ("
                + std::to_string(graph.opCount()) + " ops; `map ... --write-costs FILE` lists their names)");
        const auto d = o->second.find(device);
        if (d == o->second.end())
            throw Error(
                "cost table: op '" + printable(op.name) + "' has no cost on device '" + printable(device) + "'");
        const auto b = d->second.find(batch);
        if (b == d->second.end())
            throw Error("cost table: op '" + printable(op.name) + "' on '" + printable(device)
                + "' has no cost at batch " + std::to_string(batch));
        out.opSeconds[op.id.value()] = b->second;
    }
    for (const auto& op : t.ops)
        if (!inGraph.count(op))
            throw Error("cost table: op '" + printable(op) + "' is not in " + graph.name()
                + " (is the table for another model?)");
    return out;
}

CostTable costTableOf(const MappingProblem& p, std::int64_t batch)
{
    CostTable t;
    for (const auto& d : p.devices)
        t.devices.push_back({ d.name, d.memoryBytes });
    for (std::size_t i = 0; i < p.taskCount(); ++i)
        for (std::size_t u = 0; u < p.deviceCount(); ++u)
            if (std::isfinite(p.tasks[i].seconds[u]))
                t.set(p.tasks[i].name, p.devices[u].name, batch, p.tasks[i].seconds[u]);
    for (std::size_t u = 0; u < p.deviceCount(); ++u)
        for (std::size_t v = 0; v < p.deviceCount(); ++v)
            if (u != v && p.links[u][v].connected())
                t.links.push_back({ p.devices[u].name, p.devices[v].name, p.links[u][v] });
    return t;
}

std::vector<LinkEntry> readLinks(const std::string& path)
{
    const std::string text = readWhole(path, "links file");
    if (!endsWith(path, ".csv")) {
        const auto j = parseJson(text, path);
        if (!j.is_object() || !j.contains("links"))
            throw Error(path + ": expected an object with \"links\": [{\"from\", \"to\", \"gbps\", \"latency_us\"}]");
        return linksFromJson(j["links"], path);
    }
    std::vector<LinkEntry> out;
    forEachCsvRecord(text, path, { "from", "to", "gbps", "latency_us" }, "links file",
        [&](const std::string& where, const std::vector<std::string>& f) {
            if (f[0].empty() || f[1].empty())
                throw Error(where + ": field '" + std::string(f[0].empty() ? "from" : "to") + "' is empty");
            out.push_back(linkFrom(f[0], f[1], parseNumber(f[2], where + ": field 'gbps'"),
                parseNumber(f[3], where + ": field 'latency_us'"), where));
        });
    return out;
}

void applyLinks(std::vector<std::vector<Link>>& links, const std::vector<std::string>& devices,
    const std::vector<LinkEntry>& entries, const std::string& source)
{
    auto index = [&](const std::string& name) {
        for (std::size_t i = 0; i < devices.size(); ++i)
            if (devices[i] == name)
                return i;
        std::string known;
        for (const auto& d : devices)
            known += (known.empty() ? "" : ", ") + d;
        throw Error(
            source + ": link names device '" + printable(name) + "', which is not mapped to (devices: " + known + ")");
    };
    // Both ways first, then the entries that give one direction explicitly win.
    std::set<std::pair<std::size_t, std::size_t>> given;
    for (const auto& e : entries)
        given.insert({ index(e.from), index(e.to) });
    for (const auto& e : entries) {
        const std::size_t u = index(e.from), v = index(e.to);
        links[u][v] = e.link;
        if (!given.count({ v, u }))
            links[v][u] = e.link;
    }
}

} // namespace opsched::map
