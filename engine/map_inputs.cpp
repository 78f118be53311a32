#include "engine/map_inputs.h"

#include "engine/map_devices.h"

#include "map/problem/cost_table.h"
#include "map/problem/problem_builder.h"
#include "map/problem/topology.h"
#include "map/solvers/symmetry_cuts.h"
#include "util/error.h"
#include "util/printable.h"

#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>

namespace opsched::engine {
namespace {

// One device of the problem: its name, where its costs come from, its node.
struct Entry {
    std::string name, type;
    int node = -1;
    double memoryBytes = map::kUnsupported; // the topology's, when given
};

std::vector<Entry> entriesOf(const std::string& devices, const std::optional<map::Topology>& topology,
    const std::optional<map::CostTable>& table)
{
    std::vector<Entry> out;
    if (topology) {
        if (!devices.empty())
            throw Error("--devices and --topology: the topology names the devices; give one of them");
        for (const auto& d : topology->devices)
            out.push_back({ d.name, d.type, d.node, d.memoryBytes });
        return out;
    }
    if (!devices.empty()) {
        for (const auto& name : parseDeviceNames(devices))
            out.push_back({ name, name, -1, map::kUnsupported });
        return out;
    }
    if (!table)
        throw Error("map: give --devices (or --topology FILE, or --costs FILE whose devices are used)");
    for (const auto& d : table->devices)
        out.push_back({ d.name, d.name, -1, map::kUnsupported });
    return out;
}

// Costs of one entry at the graph's batch: the table's (by name, then by type), else measured
// or simulated by type.
map::DeviceCosts costsOf(const Graph& graph, const Entry& e, const std::optional<map::CostTable>& table,
    const std::vector<std::string>& types, const CostCacheOptions& cache)
{
    if (table) {
        for (const std::string& key : { e.name, e.type })
            if (table->deviceIndex(key)) {
                auto c = map::tableDeviceCosts(*table, graph, key, graph.batch());
                c.name = e.name;
                return c;
            }
        try {
            auto c = deviceCosts(graph, e.type, cache, types);
            c.name = e.name;
            return c;
        } catch (const Error& err) {
            throw Error("device '" + printable(e.name) + "' is not in the cost table and " + err.what());
        }
    }
    auto c = deviceCosts(graph, e.type, cache, types);
    c.name = e.name;
    return c;
}

struct Sources {
    std::optional<map::CostTable> table;
    std::optional<map::Topology> topology;
    std::vector<Entry> entries;
    std::vector<std::string> names, types;
};

Sources sourcesOf(const std::string& devices, const MapInputOptions& o)
{
    Sources s;
    if (!o.costs.empty())
        s.table = map::readCostTable(o.costs);
    if (!o.topology.empty())
        s.topology = map::readTopology(o.topology);
    s.entries = entriesOf(devices, s.topology, s.table);
    for (const auto& e : s.entries) {
        s.names.push_back(e.name);
        s.types.push_back(e.type);
    }
    return s;
}

std::vector<std::vector<map::Link>> linksOf(const Sources& s, const std::string& link, const MapInputOptions& o)
{
    auto links = linksFor(s.names, link.empty() ? std::nullopt : std::optional<map::Link>(parseLink(link)));
    if (s.topology)
        links = s.topology->links(o.topology);
    if (s.table) { // the links of a table written by --write-costs, where they name these devices
        std::vector<map::LinkEntry> known;
        for (const auto& l : s.table->links)
            if (std::find(s.names.begin(), s.names.end(), l.from) != s.names.end()
                && std::find(s.names.begin(), s.names.end(), l.to) != s.names.end())
                known.push_back(l);
        map::applyLinks(links, s.names, known, o.costs);
    }
    if (!o.links.empty())
        map::applyLinks(links, s.names, map::readLinks(o.links), o.links);
    return links;
}

} // namespace

bool devicesFromFiles(const MapInputOptions& o)
{
    return !o.costs.empty() || !o.topology.empty();
}

map::MapperOptions::Symmetry symmetryOf(const MapInputOptions& o)
{
    return map::parseSymmetry(o.symmetry);
}

map::MappingProblem latencyProblem(const Graph& graph, const std::string& devices, const std::string& link,
    const std::string& memory, const CostCacheOptions& cache, const MapInputOptions& o)
{
    if (!devicesFromFiles(o)) { // the device list alone (measured CPU hand-offs included), then --links
        auto p = mappingProblemFor(graph, parseDeviceNames(devices), link, memory, cache);
        if (!o.links.empty()) {
            std::vector<std::string> names;
            for (const auto& d : p.devices)
                names.push_back(d.name);
            map::applyLinks(p.links, names, map::readLinks(o.links), o.links);
        }
        return p;
    }
    const Sources s = sourcesOf(devices, o);
    std::vector<map::DeviceCosts> costs;
    for (const auto& e : s.entries) {
        costs.push_back(costsOf(graph, e, s.table, s.types, cache));
        if (std::isfinite(e.memoryBytes))
            costs.back().memoryBytes = e.memoryBytes;
    }
    if (!memory.empty()) {
        const auto sizes = parseMemory(memory, costs.size());
        for (std::size_t i = 0; i < costs.size(); ++i)
            costs[i].memoryBytes = sizes[i];
    }
    auto p = map::buildProblem(graph, costs, linksOf(s, link, o));
    for (std::size_t u = 0; u < s.entries.size(); ++u)
        p.devices[u].node = s.entries[u].node;
    return p;
}

map::ThroughputProblem throughputProblem(const Graph& graph, const std::string& devices, const std::string& link,
    const std::string& memory, const CostCacheOptions& cache, const MapInputOptions& o, std::int64_t inputs)
{
    if (!devicesFromFiles(o) && o.links.empty())
        return throughputProblemFor(graph, parseDeviceNames(devices), link, memory, cache, inputs);
    if (graph.batch() != 1)
        throw Error("--objective throughput: give the inputs with --inputs and keep --batch 1 (the mapper picks the "
                    "batch sizes)");
    const Sources s = devicesFromFiles(o) ? sourcesOf(devices, o) : Sources {};
    auto base = latencyProblem(graph, devices, link, memory, cache, o);
    return map::buildThroughputProblem(graph, std::move(base), inputs, [&](const Graph& batched) {
        std::vector<map::DeviceCosts> out;
        if (!devicesFromFiles(o)) {
            const auto names = parseDeviceNames(devices);
            for (const auto& name : names)
                out.push_back(deviceCosts(batched, name, cache, names));
            return out;
        }
        for (const auto& e : s.entries)
            out.push_back(costsOf(batched, e, s.table, s.types, cache));
        return out;
    });
}

void writeCostsIfAsked(const MapInputOptions& o, const map::MappingProblem& problem, std::int64_t batch)
{
    if (!o.writeCosts.empty())
        map::writeCostTable(o.writeCosts, map::costTableOf(problem, batch));
}

void writeCostsIfAsked(const MapInputOptions& o, const map::ThroughputProblem& p)
{
    if (o.writeCosts.empty())
        return;
    map::CostTable t = map::costTableOf(p.base, 1);
    for (std::size_t i = 0; i < p.base.taskCount(); ++i)
        for (std::size_t u = 0; u < p.base.deviceCount(); ++u)
            for (std::size_t k = 0; k < p.sizes.size(); ++k)
                if (std::isfinite(p.seconds[i][u][k]))
                    t.set(p.base.tasks[i].name, p.base.devices[u].name, p.sizes[k], p.seconds[i][u][k]);
    map::writeCostTable(o.writeCosts, t);
}

} // namespace opsched::engine
