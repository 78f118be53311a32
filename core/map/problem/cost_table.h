// Cost tables: per-op, per-device, per-batch-size costs measured elsewhere (e.g. with torch.fx, as
// the DiviML paper did) or written by opsched from its own costs, plus optional per-pair links.
// Two spellings (docs/formats.md "Cost tables"):
//   CSV:  a header `op,device,batch,ms`, then one row per cost ('#' starts a comment line);
//   JSON: {"format": "opsched-cost-table", "version": 1, "devices": [{"name", "memory_gb"}],
//          "costs": [{"op", "device", "batch", "ms"}], "links": [{"from", "to", "gbps", "latency_us"}]}.
// Ops are matched to a graph by name. Readers throw Error naming the file and the line (CSV) or
// the record (JSON) and the field at fault; costs must be finite and >= 0.
#pragma once

#include "map/problem/mapping_problem.h"
#include "map/problem/problem_builder.h"

#include "graph/graph.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace opsched::map {

struct LinkEntry {
    std::string from, to;
    Link link;
};

struct CostTable {
    struct Device {
        std::string name;
        double memoryBytes = kUnsupported; // infinity: not given
    };
    std::vector<Device> devices; // in the order first seen
    std::vector<std::string> ops; // in the order first seen
    // seconds[op][device][batch]
    std::map<std::string, std::map<std::string, std::map<std::int64_t, double>>> seconds;
    std::vector<LinkEntry> links;

    std::optional<std::size_t> deviceIndex(const std::string& name) const;
    // Adds (or replaces) one cost; registers op and device on first sight.
    void set(const std::string& op, const std::string& device, std::int64_t batch, double seconds);
};

// By extension: .csv is CSV, anything else JSON. Throws Error.
CostTable readCostTable(const std::string& path);
CostTable parseCostTableCsv(const std::string& text, const std::string& source);
CostTable parseCostTableJson(const std::string& text, const std::string& source);

// Writes CSV (.csv) or JSON; JSON keeps memory and links, CSV only the costs. Doubles are written
// so they read back bit for bit.
void writeCostTable(const std::string& path, const CostTable& table);
std::string costTableCsv(const CostTable& table);
std::string costTableJson(const CostTable& table);

// Each device's costs for every op of `graph` at `batch`, matched by name. Throws Error naming
// the first op, device or batch size the table lacks, and ops the table has but the graph not.
DeviceCosts tableDeviceCosts(const CostTable& table, const Graph& graph, const std::string& device, std::int64_t batch);

// The table of `problem` (latency: its tasks' costs at `batch`), devices' memory and every link.
CostTable costTableOf(const MappingProblem& problem, std::int64_t batch);

// Links read from a file: JSON {"links": [...]} (or a cost table's "links") or CSV with a header
// `from,to,gbps,latency_us`. A pair listed once holds both ways unless the other way is listed.
std::vector<LinkEntry> readLinks(const std::string& path);

// Applies `entries` to `links` (indexed like `devices`); throws Error for unknown device names.
void applyLinks(std::vector<std::vector<Link>>& links, const std::vector<std::string>& devices,
    const std::vector<LinkEntry>& entries, const std::string& source);

} // namespace opsched::map
