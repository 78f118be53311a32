// Topologies (topology.h): the shipped Fig. 8 system, links inside and between nodes with
// per-pair overrides, malformed files refused by field, and the symmetry the paper counts
// (6! x 4^6 ~ 2.9e6) found in it.
#include "map/problem/problem_builder.h"
#include "map/problem/topology.h"
#include "map/solvers/milp_mapper.h"
#include "map/solvers/pipeline_mapper.h"
#include "map/solvers/symmetry_cuts.h"
#include "util/error.h"
#include "zoo/zoo.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

namespace opsched::map {
namespace {

std::string fig8Path()
{
    // From the build's source dir, not __FILE__: a compiler cache may compile with relative paths.
    return (std::filesystem::path(OPSCHED_SOURCE_DIR) / "data/topologies/diviml_fig8.json").string();
}

std::string errorOf(const std::string& text)
{
    try {
        parseTopology(text, "t.json");
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(Topology, ShippedFigureEightHasSixNodesOfFiveDevices)
{
    const Topology t = readTopology(fig8Path());
    ASSERT_EQ(t.nodes.size(), 6U);
    ASSERT_EQ(t.devices.size(), 30U);
    EXPECT_EQ(t.devices[0].name, "n0/xeon");
    EXPECT_EQ(t.devices[29].name, "n5/a100.1");
    EXPECT_EQ(t.devices[29].type, "sim:paper-a100");
    EXPECT_EQ(t.devices[29].node, 5);
    const auto links = t.links("fig8");
    EXPECT_EQ(links[3][4].bandwidthBytesPerSecond, 25e9); // n0/a100.0 -> n0/a100.1
    EXPECT_EQ(links[3][8].bandwidthBytesPerSecond, 12.5e9); // n0/a100.0 -> n1/a100.0
    EXPECT_DOUBLE_EQ(links[3][8].latencySeconds, 10e-6);
}

TEST(Topology, SymmetryOfFigureEightIsThePapers)
{
    const Topology t = readTopology(fig8Path());
    const Graph g = zoo::build("gpt3?layers=1&tokens=4", 1);
    std::vector<DeviceCosts> costs;
    for (const auto& d : t.devices) {
        auto c = *simulatedDeviceCosts(g, d.type);
        c.name = d.name;
        costs.push_back(c);
    }
    MappingProblem p = buildProblem(g, costs, t.links("fig8"));
    for (std::size_t u = 0; u < p.deviceCount(); ++u)
        p.devices[u].node = t.devices[u].node;
    const auto c = findSymmetries(p);
    ASSERT_EQ(c.nodes.size(), 1U);
    EXPECT_EQ(c.nodes[0].size(), 6U);
    EXPECT_EQ(c.devices.size(), 12U); // two T4s and two A100s in each node
    EXPECT_DOUBLE_EQ(c.compression(), 720.0 * 4096.0); // 6! x (2! 2!)^6 = 2.9e6, the paper's 4^6 6!
}

// GPT-3's costs on a topology's devices (their memory where the topology gives one), nodes set.
MappingProblem gpt3On(const Topology& t, const std::string& model)
{
    const Graph g = zoo::build(model, 1);
    std::vector<DeviceCosts> costs;
    for (const auto& d : t.devices) {
        auto c = *simulatedDeviceCosts(g, d.type);
        c.name = d.name;
        if (std::isfinite(d.memoryBytes))
            c.memoryBytes = d.memoryBytes;
        costs.push_back(c);
    }
    MappingProblem p = buildProblem(g, costs, t.links("t.json"));
    for (std::size_t u = 0; u < p.deviceCount(); ++u)
        p.devices[u].node = t.devices[u].node;
    return p;
}

// Table V's target on a small instance: GPT-3 with 2 layers on two Fig. 8 nodes whose GPUs are
// small (a layer must spread over a node's devices). Multi-node milp-split, with and without
// symmetry cuts, is never below the replicated single-node MILP (the baseline row), both as
// evaluatePipeline sees them on the whole system.
TEST(Topology, MultiNodeMilpSplitAtLeastReplicatedSingleNode)
{
    if (!milpAvailable())
        GTEST_SKIP() << "no CBC in this build";
    const Topology t = parseTopology(R"({"format": "opsched-topology", "version": 1, "nodes": 2,
        "node_devices": [{"name": "xeon", "type": "sim:paper-xeon"},
            {"name": "t4.0", "type": "sim:paper-t4", "memory_gb": 1.3},
            {"name": "t4.1", "type": "sim:paper-t4", "memory_gb": 1.3},
            {"name": "a100.0", "type": "sim:paper-a100", "memory_gb": 2.9},
            {"name": "a100.1", "type": "sim:paper-a100", "memory_gb": 2.9}],
        "intra_node": {"gbps": 25, "latency_us": 10}, "inter_node": {"gbps": 12.5, "latency_us": 10}})",
        "t.json");
    const MappingProblem p = gpt3On(t, "gpt3?layers=2&tokens=4");
    ASSERT_EQ(p.deviceCount(), 10U);
    MapperOptions o;
    o.timeLimitSeconds = 20;
    const PipelineResult base = mapPipeline("replicated-milp", p, o);
    ASSERT_TRUE(base.times.feasible);
    EXPECT_EQ(base.status, SolveStatus::Optimal); // 14 ops on one node: CBC proves it
    o.timeLimitSeconds = 6; // milp-split runs the replicated MILP inside, for 40% of it
    for (Symmetry s : { Symmetry::None, Symmetry::Tasks, Symmetry::Time, Symmetry::Batches }) {
        o.symmetry = s;
        const PipelineResult multi = mapPipeline("milp-split", p, o);
        ASSERT_TRUE(multi.times.feasible) << toString(s);
        EXPECT_NEAR(evaluatePipeline(p, multi.device).period, multi.times.period, 1e-15);
        EXPECT_GE(multi.times.throughput, base.times.throughput * (1 - 1e-12)) << toString(s);
        EXPECT_NE(multi.note.find("best start: "), std::string::npos) << multi.note;
    }
}

TEST(Topology, ExplicitNodesAndOverrides)
{
    const Topology t = parseTopology(R"({"format": "opsched-topology", "version": 1,
        "nodes": [{"name": "big", "devices": [{"name": "g", "type": "sim:a100", "memory_gb": 80}]},
                  {"devices": [{"name": "g", "type": "sim:t4"}, {"name": "c", "type": "cpu"}]}],
        "intra_node": {"gbps": 25, "latency_us": 10}, "inter_node": {"gbps": 10},
        "links": [{"from": "big/g", "to": "n1/g", "gbps": 50, "latency_us": 1}]})",
        "t.json");
    ASSERT_EQ(t.devices.size(), 3U);
    EXPECT_EQ(t.devices[0].name, "big/g");
    EXPECT_DOUBLE_EQ(t.devices[0].memoryBytes, 80.0 * 1024 * 1024 * 1024);
    const auto links = t.links("t");
    EXPECT_EQ(links[0][1].bandwidthBytesPerSecond, 50e9);
    EXPECT_EQ(links[1][0].bandwidthBytesPerSecond, 50e9);
    EXPECT_EQ(links[0][2].bandwidthBytesPerSecond, 10e9);
    EXPECT_EQ(links[0][2].latencySeconds, 0.0);
    EXPECT_EQ(links[1][2].bandwidthBytesPerSecond, 25e9);
}

TEST(Topology, MalformedFilesAreRefusedByField)
{
    const std::string head = R"({"format": "opsched-topology", "version": 1, )";
    const std::string devs = R"("node_devices": [{"name": "g", "type": "sim:a100"}], )";
    EXPECT_NE(errorOf("{\n\"format\":\n}").find("t.json:3: not valid JSON"), std::string::npos);
    EXPECT_NE(errorOf(R"({"format": "opsched-cost-table"})").find("not an opsched topology"), std::string::npos);
    EXPECT_NE(
        errorOf(head + R"("nodes": 2, )" + devs + R"("inter_node": {"gbps": 1}})").find("'intra_node' is missing"),
        std::string::npos);
    EXPECT_NE(
        errorOf(head + R"("nodes": 2, )" + devs + R"("intra_node": {"gbps": 1}})").find("'inter_node' is missing"),
        std::string::npos);
    EXPECT_NE(errorOf(head + R"("nodes": 1, )" + devs + R"("intra_node": {"gbps": -3}})").find("intra_node.gbps"),
        std::string::npos);
    EXPECT_NE(errorOf(head + R"("nodes": 1, "node_devices": [{"name": "g"}], "intra_node": {"gbps": 1}})")
                  .find("node_devices[0]: field 'type' is missing"),
        std::string::npos);
    EXPECT_NE(errorOf(head + R"("nodes": 1, "node_devices": [{"name": "g", "type": "x"}, {"name": "g", "type": "x"}],
                                "intra_node": {"gbps": 1}})")
                  .find("listed twice"),
        std::string::npos);
    EXPECT_NE(errorOf(head + R"("nodes": 1, )" + devs
                  + R"("intra_node": {"gbps": 1}, "links": [{"from": "n0/g", "to": "n9/g", "gbps": 1}]})")
                  .find("'n9/g'"),
        std::string::npos);
    EXPECT_NE(
        errorOf(head + R"("nodes": 0, )" + devs + R"("intra_node": {"gbps": 1}})").find("nodes: 0"), std::string::npos);
}

} // namespace
} // namespace opsched::map
