// A multi-node system (DiviML section VI, Fig. 8): nodes holding devices, one link inside a node
// and one between nodes (bandwidth, latency), per-pair overrides. docs/formats.md "Topologies":
//   {"format": "opsched-topology", "version": 1,
//    "nodes": 6,                                  // identical nodes, or an array of
//                                                 // {"name", "devices": [...]} for different ones
//    "node_devices": [{"name": "a100.0", "type": "sim:paper-a100", "memory_gb": 40}, ...],
//    "intra_node": {"gbps": 25, "latency_us": 10},
//    "inter_node": {"gbps": 12.5, "latency_us": 5},
//    "links": [{"from": "n0/a100.0", "to": "n1/a100.0", "gbps": 50}]}   // optional
// Device names are "NODE/NAME" (nodes named n0, n1, ... unless named); `type` says where the
// costs come from: a device `map --devices` knows (sim:NAME, cpu, cuda:N) or a --costs table's.
#pragma once

#include "map/problem/cost_table.h"
#include "map/problem/mapping_problem.h"

#include <string>
#include <vector>

namespace opsched::map {

struct TopologyDevice {
    std::string name; // "n0/a100.0"
    std::string type; // "sim:paper-a100"
    int node = 0;
    double memoryBytes = kUnsupported; // infinity: the type's own
};

struct Topology {
    std::vector<std::string> nodes;
    std::vector<TopologyDevice> devices;
    Link intra, inter;
    std::vector<LinkEntry> overrides;

    std::vector<std::string> deviceNames() const;
    // Every pair: intra inside a node, inter across, then the overrides.
    std::vector<std::vector<Link>> links(const std::string& source) const;
};

// Throws Error naming the file and the field at fault.
Topology readTopology(const std::string& path);
Topology parseTopology(const std::string& text, const std::string& source);

} // namespace opsched::map
