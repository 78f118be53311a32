// Cost tables (cost_table.h): what opsched writes reads back bit for bit and gives the same
// mappings; malformed tables are refused naming the line or record and the field; the paper's
// presets keep Table II's ratios; the mixed presets keep them on average with ops preferring
// different devices.
#include "map/problem/cost_table.h"
#include "map/problem/paper_devices.h"
#include "map/problem/problem_builder.h"
#include "map/registry/mappers.h"
#include "map/solvers/heuristic_mappers.h"
#include "map/solvers/milp_mapper.h"
#include "map_test_support.h"
#include "util/error.h"
#include "zoo/zoo.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <string_view>

namespace opsched::map {
namespace {

Graph smallGraph()
{
    return zoo::build("random?ops=12&width=3&seed=5", 1);
}

MappingProblem simulatedProblem(const Graph& g)
{
    std::vector<DeviceCosts> devices;
    std::vector<std::string> names { "sim:xeon", "sim:t4", "sim:a100" };
    for (const auto& n : names)
        devices.push_back(*simulatedDeviceCosts(g, n));
    std::vector<std::vector<Link>> links(3, std::vector<Link>(3));
    for (std::size_t u = 0; u < 3; ++u)
        for (std::size_t v = 0; v < 3; ++v)
            if (u != v)
                links[u][v] = { (5.0 + static_cast<double>(u + 2 * v)) * 1e9, 7e-6 * static_cast<double>(1 + u) };
    return buildProblem(g, devices, links);
}

// The problem rebuilt from a table alone, as `map --costs` does.
MappingProblem fromTable(const Graph& g, const CostTable& t)
{
    std::vector<DeviceCosts> devices;
    std::vector<std::string> names;
    for (const auto& d : t.devices) {
        devices.push_back(tableDeviceCosts(t, g, d.name, g.batch()));
        names.push_back(d.name);
    }
    std::vector<std::vector<Link>> links(names.size(), std::vector<Link>(names.size()));
    applyLinks(links, names, t.links, "table");
    return buildProblem(g, devices, links);
}

void expectSameProblem(const MappingProblem& a, const MappingProblem& b)
{
    ASSERT_EQ(a.deviceCount(), b.deviceCount());
    for (std::size_t u = 0; u < a.deviceCount(); ++u) {
        EXPECT_EQ(a.devices[u].name, b.devices[u].name);
        EXPECT_EQ(a.devices[u].memoryBytes, b.devices[u].memoryBytes);
        for (std::size_t v = 0; v < a.deviceCount(); ++v) {
            EXPECT_EQ(a.links[u][v].bandwidthBytesPerSecond, b.links[u][v].bandwidthBytesPerSecond);
            EXPECT_EQ(a.links[u][v].latencySeconds, b.links[u][v].latencySeconds);
        }
    }
    for (std::size_t t = 0; t < a.taskCount(); ++t)
        EXPECT_EQ(a.tasks[t].seconds, b.tasks[t].seconds) << a.tasks[t].name;
}

TEST(CostTable, JsonAndCsvRoundTripGiveTheSameMappings)
{
    const Graph g = smallGraph();
    const MappingProblem p = simulatedProblem(g);
    const CostTable written = costTableOf(p, 1);
    const CostTable json = parseCostTableJson(costTableJson(written), "t.json");
    const MappingProblem q = fromTable(g, json);
    expectSameProblem(p, q);
    // CSV carries costs only: links and memory come from elsewhere.
    const CostTable csv = parseCostTableCsv(costTableCsv(written), "t.csv");
    for (const auto& d : p.devices) {
        const auto c = tableDeviceCosts(csv, g, d.name, 1);
        for (std::size_t t = 0; t < p.taskCount(); ++t)
            EXPECT_EQ(c.opSeconds[t], p.tasks[t].seconds[p.devices[0].name == d.name ? 0 : d.name == "sim:t4" ? 1 : 2]);
    }
    for (const char* mapper : { "heft", "greedy", "milp-split" }) {
        MapperOptions o;
        o.maxNodes = 2000;
        o.timeLimitSeconds = 15;
        const MapResult a = runMapper(mapper, p, o), b = runMapper(mapper, q, o);
        EXPECT_EQ(a.mapping.device, b.mapping.device) << mapper;
        EXPECT_EQ(a.times.makespan, b.times.makespan) << mapper;
    }
}

std::string errorOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(CostTable, MalformedCsvIsRefusedNamingLineAndField)
{
    auto csv = [](const std::string& text) { return errorOf([&] { parseCostTableCsv(text, "c.csv"); }); };
    EXPECT_NE(csv("op,dev,batch,ms\n").find("c.csv:1: the header"), std::string::npos);
    EXPECT_NE(csv("op,device,batch,ms\na,sim:t4,1\n").find("c.csv:2: 3 fields"), std::string::npos);
    EXPECT_NE(csv("op,device,batch,ms\n# note\na,sim:t4,1,-2\n").find("c.csv:3: field 'ms': negative cost"),
        std::string::npos);
    EXPECT_NE(csv("op,device,batch,ms\na,sim:t4,1,fast\n").find("c.csv:2: field 'ms'"), std::string::npos);
    EXPECT_NE(csv("op,device,batch,ms\na,sim:t4,0,1\n").find("c.csv:2: field 'batch'"), std::string::npos);
    EXPECT_NE(csv("op,device,batch,ms\n,sim:t4,1,1\n").find("field 'op' is empty"), std::string::npos);
    EXPECT_NE(csv("").find("empty cost table"), std::string::npos);
    EXPECT_NE(csv("op,device,batch,ms\na,sim:t4,1,inf\n").find("not a finite number"), std::string::npos);
}

TEST(CostTable, MalformedJsonIsRefusedNamingTheRecord)
{
    auto json = [](const std::string& text) { return errorOf([&] { parseCostTableJson(text, "c.json"); }); };
    EXPECT_NE(
        json("{\n\"format\": \"opsched-cost-table\",\n  oops\n}").find("c.json:3: not valid JSON"), std::string::npos);
    EXPECT_NE(json("{\"format\": \"x\"}").find("not an opsched cost table"), std::string::npos);
    const std::string head = "{\"format\": \"opsched-cost-table\", \"version\": 1, ";
    EXPECT_NE(json(head
                  + "\"costs\": [{\"op\": \"a\", \"device\": \"d\", \"batch\": 1, \"ms\": 1}, "
                    "{\"op\": \"b\", \"device\": \"d\", \"batch\": 1, \"ms\": -1}]}")
                  .find("costs[1].ms: negative cost"),
        std::string::npos);
    EXPECT_NE(json(head + "\"costs\": [{\"op\": \"a\", \"batch\": 1, \"ms\": 1}]}")
                  .find("costs[0]: field 'device' is missing"),
        std::string::npos);
    EXPECT_NE(json(head + "\"costs\": [{\"op\": \"a\", \"device\": \"d\", \"batch\": 1.5, \"ms\": 1}]}")
                  .find("costs[0].batch"),
        std::string::npos);
    EXPECT_NE(json(head
                  + "\"costs\": [{\"op\": \"a\", \"device\": \"d\", \"batch\": 1, \"ms\": 1}], \"links\": "
                    "[{\"from\": \"d\", \"to\": \"e\", \"gbps\": -1}]}")
                  .find("links[0]: bandwidth"),
        std::string::npos);
}

TEST(CostTable, MissingOpsDevicesAndBatchesAreNamed)
{
    const Graph g = smallGraph();
    CostTable t = costTableOf(simulatedProblem(g), 1);
    EXPECT_NE(errorOf([&] { tableDeviceCosts(t, g, "sim:h100", 1); }).find("no device 'sim:h100'"), std::string::npos);
    EXPECT_NE(errorOf([&] { tableDeviceCosts(t, g, "sim:t4", 4); }).find("has no cost at batch 4"), std::string::npos);
    CostTable extra = t;
    extra.set("not_an_op", "sim:t4", 1, 1e-3);
    EXPECT_NE(
        errorOf([&] { tableDeviceCosts(extra, g, "sim:t4", 1); }).find("op 'not_an_op' is not in"), std::string::npos);
    CostTable missing = parseCostTableCsv("op,device,batch,ms\n" + g.ops().front().name + ",sim:t4,1,1\n", "m.csv");
    EXPECT_NE(errorOf([&] { tableDeviceCosts(missing, g, "sim:t4", 1); }).find("no costs for op"), std::string::npos);
}

TEST(CostTable, LinksFilesAndPerPairOverrides)
{
    const std::vector<std::string> names { "a", "b", "c" };
    std::vector<std::vector<Link>> links(3, std::vector<Link>(3, Link { 1e9, 0 }));
    applyLinks(links, names,
        { { "a", "b", { 50e9, 2e-6 } }, { "b", "a", { 40e9, 3e-6 } }, { "a", "c", { 10e9, 1e-6 } } }, "l");
    EXPECT_EQ(links[0][1].bandwidthBytesPerSecond, 50e9);
    EXPECT_EQ(links[1][0].bandwidthBytesPerSecond, 40e9); // its own direction given
    EXPECT_EQ(links[2][0].bandwidthBytesPerSecond, 10e9); // both ways
    EXPECT_EQ(links[1][2].bandwidthBytesPerSecond, 1e9); // not listed: the default
    EXPECT_NE(errorOf([&] {
        applyLinks(links, names, { { "a", "z", { 1e9, 0 } } }, "l.csv");
    }).find("'z'"),
        std::string::npos);
}

// A bandwidth of 0 is no link (the paper's beta = 0): accepted in tables, and no mapper puts a
// producer and its consumer on the two sides of it; evaluating a mapping that needs it says so.
TEST(CostTable, ZeroBandwidthIsNoLink)
{
    const CostTable t = parseCostTableJson(R"({"format": "opsched-cost-table", "version": 1,
        "costs": [{"op": "a", "device": "d", "batch": 1, "ms": 1}],
        "links": [{"from": "d", "to": "e", "gbps": 0, "latency_us": 0}]})",
        "t.json");
    ASSERT_EQ(t.links.size(), 1U);
    EXPECT_FALSE(t.links.front().link.connected());
    MappingProblem p = test::randomProblem(11, 10, 3, 0.4);
    p.links[0][1] = p.links[1][0] = Link { 0, 0 };
    for (const char* mapper : { "met", "greedy", "heft", "sa", "ea", "milp", "milp-split" }) {
        if ((std::string_view(mapper) == "milp" || std::string_view(mapper) == "milp-split") && !milpAvailable())
            continue;
        MapperOptions o;
        o.maxNodes = 2000;
        o.iterations = 2000;
        o.timeLimitSeconds = 600; // a safety net: nodes and iterations are the limits
        const MapResult r = runMapper(mapper, p, o);
        ASSERT_TRUE(r.times.feasible) << mapper << ": " << r.times.problem;
        for (std::uint32_t a = 0; a < p.taskCount(); ++a)
            for (std::uint32_t b : p.dag.successors[a]) {
                const auto u = r.mapping.device[a], v = r.mapping.device[b];
                EXPECT_FALSE((u == 0 && v == 1) || (u == 1 && v == 0)) << mapper << ": edge " << a << "->" << b;
            }
    }
    Mapping across = mapGreedy(p).mapping;
    for (std::uint32_t a = 0; a < p.taskCount(); ++a)
        if (!p.dag.successors[a].empty()) {
            across.device.assign(p.taskCount(), 0);
            across.device[p.dag.successors[a].front()] = 1;
            across = mappingWithOrder(p, across.device, *topologicalOrder(p.dag));
            break;
        }
    const MappingTimes times = evaluate(p, across);
    EXPECT_FALSE(times.feasible);
    EXPECT_FALSE(times.problem.empty());
}

TEST(CostTable, PaperPresetsKeepTableTwoRatios)
{
    const Graph g = smallGraph();
    const auto a100 = *simulatedDeviceCosts(g, "sim:paper-a100");
    const auto t4 = *simulatedDeviceCosts(g, "sim:paper-t4");
    const auto xeon = *simulatedDeviceCosts(g, "sim:paper-xeon");
    const auto sim = *simulatedDeviceCosts(g, "sim:a100");
    double sa = 0, st = 0, sx = 0;
    for (std::size_t i = 0; i < g.opCount(); ++i) {
        EXPECT_EQ(a100.opSeconds[i], sim.opSeconds[i]);
        sa += a100.opSeconds[i];
        st += t4.opSeconds[i];
        sx += xeon.opSeconds[i];
    }
    EXPECT_NEAR(st / sa, 1.26, 1e-9);
    EXPECT_NEAR(sx / sa, 7.10, 1e-9);
    EXPECT_THROW(simulatedDeviceCosts(g, "sim:paper-k80"), Error);
}

TEST(CostTable, MixedFactorsAreLogNormalWithMeanOne)
{
    // Over many op names: the mean factor is 1 (the device keeps its average speed) and the log
    // of the factor has the spread asked for; each factor is fixed by the two names.
    for (double spread : { 0.3, 0.6 }) {
        const int n = 20000;
        double sum = 0, logSum = 0, logSquares = 0;
        for (int i = 0; i < n; ++i) {
            const double f = mixedCostFactor("op" + std::to_string(i), "sim:mixed-t4", spread);
            sum += f;
            logSum += std::log(f);
            logSquares += std::log(f) * std::log(f);
        }
        const double mean = logSum / n, sd = std::sqrt(logSquares / n - mean * mean);
        EXPECT_NEAR(sum / n, 1.0, 0.02) << spread;
        EXPECT_NEAR(mean, -spread * spread / 2, 0.02) << spread;
        EXPECT_NEAR(sd, spread, 0.02 * spread) << spread;
    }
    EXPECT_EQ(mixedCostFactor("m0.n3", "sim:mixed-t4", 0.3), mixedCostFactor("m0.n3", "sim:mixed-t4", 0.3));
    EXPECT_NE(mixedCostFactor("m0.n3", "sim:mixed-t4", 0.3), mixedCostFactor("m0.n3", "sim:mixed-xeon", 0.3));
    EXPECT_NE(mixedCostFactor("m0.n3", "sim:mixed-t4", 0.3), mixedCostFactor("m0.n4", "sim:mixed-t4", 0.3));
    EXPECT_EQ(mixedCostFactor("m0.n3", "sim:mixed-t4", 0), 1.0);
}

TEST(CostTable, MixedPresetsMakeOpsPreferDifferentDevices)
{
    // The paper presets scale one roofline, so one device is the fastest for every op; under the
    // mixed presets both GPUs are the fastest for some ops.
    const Graph g = zoo::build("rwnn?gen=er&modules=3&channels=2&dep=wdep&res=64", 1);
    const std::vector<std::string> paper { "sim:paper-xeon", "sim:paper-t4", "sim:paper-a100" };
    const std::vector<std::string> mixed { "sim:mixed-xeon", "sim:mixed-t4", "sim:mixed-a100" };
    auto fastest = [&](const std::vector<std::string>& names) {
        std::vector<DeviceCosts> costs;
        for (const auto& n : names)
            costs.push_back(*simulatedDeviceCosts(g, n));
        std::set<std::size_t> devices;
        for (std::size_t i = 0; i < g.opCount(); ++i) {
            std::size_t best = 0;
            for (std::size_t u = 1; u < costs.size(); ++u)
                if (costs[u].opSeconds[i] < costs[best].opSeconds[i])
                    best = u;
            devices.insert(best);
        }
        return devices;
    };
    EXPECT_EQ(fastest(paper), (std::set<std::size_t> { 2 }));
    EXPECT_TRUE(fastest(mixed).count(1) && fastest(mixed).count(2));
    // The A100 is the reference; the others keep Table II's ratios on average, within sampling.
    const auto a100 = *simulatedDeviceCosts(g, "sim:mixed-a100");
    const auto ref = *simulatedDeviceCosts(g, "sim:a100");
    EXPECT_EQ(a100.opSeconds, ref.opSeconds);
    const auto xeon = *simulatedDeviceCosts(g, "sim:mixed-xeon");
    double logRatio = 0;
    for (std::size_t i = 0; i < g.opCount(); ++i)
        logRatio += std::log(xeon.opSeconds[i] / a100.opSeconds[i]);
    EXPECT_NEAR(std::exp(logRatio / static_cast<double>(g.opCount()) + 0.6 * 0.6 / 2), 7.10, 7.10 * 0.3);
}

} // namespace
} // namespace opsched::map
