// The throughput mapping file: what `map --objective throughput -o` writes (throughputMappingToJson
// over the problem the CLI builds for simulated devices) reads back into a problem and mapping
// whose evaluation is the file's makespan; broken files are refused with a message naming the
// problem, and `run --mapping`'s reader still refuses throughput files.
#include "map/bounds/lower_bound.h"
#include "map/files/throughput_mapping_file.h"
#include "map/problem/problem_builder.h"
#include "map/registry/mappers.h"

#include "model/model_ref.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

namespace opsched::map {
namespace {

const char* const kModel = "zoo:rwnn?gen=er&n=8&modules=2&channels=2&seed=3&res=64";
const std::vector<std::string> kDevices { "sim:t4", "sim:a100" };

// The problem `map --devices sim:t4,sim:a100 --objective throughput --inputs 8` maps.
ThroughputProblem simulatedProblem(const Graph& graph)
{
    std::vector<std::vector<Link>> links(2, std::vector<Link>(2));
    links[0][1] = defaultLink(kDevices[0], kDevices[1]);
    links[1][0] = defaultLink(kDevices[1], kDevices[0]);
    auto costsAt = [](const Graph& g) {
        std::vector<DeviceCosts> out;
        for (const auto& name : kDevices)
            out.push_back(*simulatedDeviceCosts(g, name));
        return out;
    };
    return buildThroughputProblem(graph, buildProblem(graph, costsAt(graph), links), 8, costsAt);
}

class ThroughputMappingFile : public ::testing::Test {
protected:
    void SetUp() override
    {
        problem_ = simulatedProblem(graph_);
        result_ = runThroughputMapper("greedy", problem_, {});
        ASSERT_TRUE(result_.times.feasible);
        // Through text, as a file is: what the CLI writes is what is read.
        file_ = nlohmann::json::parse(
            throughputMappingToJson(graph_, problem_, result_, throughputLowerBound(problem_)).dump());
    }

    // The message of the MappingFileError reading `j` throws; empty when it reads.
    std::string refusal(const nlohmann::json& j, const Graph* graph = nullptr)
    {
        try {
            throughputMappingFromJson(graph ? *graph : graph_, j);
        } catch (const MappingFileError& e) {
            return e.what();
        }
        return {};
    }

    // `file_` edited by `edit`, then refused with a message containing `expected`.
    void expectRefused(const std::function<void(nlohmann::json&)>& edit, const std::string& expected)
    {
        nlohmann::json j = file_;
        edit(j);
        const std::string message = refusal(j);
        EXPECT_NE(message.find(expected), std::string::npos) << "message: " << message;
    }

    Graph graph_ = loadModel(kModel, 1);
    ThroughputProblem problem_;
    ThroughputResult result_;
    nlohmann::json file_;
};

TEST_F(ThroughputMappingFile, RoundTripEvaluatesToTheFilesMakespan)
{
    const ThroughputMappingDocument doc = throughputMappingFromJson(graph_, file_);
    EXPECT_EQ(doc.mapper, "greedy");
    EXPECT_EQ(doc.problem.inputs, 8);
    EXPECT_EQ(doc.problem.sizes, problem_.sizes);
    EXPECT_EQ(doc.problem.base.deviceCount(), 2u);
    EXPECT_EQ(doc.problem.base.devices[1].name, "sim:a100");
    for (std::uint32_t t = 0; t < graph_.opCount(); ++t)
        EXPECT_EQ(doc.problem.splits[doc.mapping.split[t]], problem_.splits[result_.mapping.split[t]]);
    EXPECT_EQ(doc.mapping.order, result_.mapping.order);
    std::vector<Transfer> transfers;
    const ThroughputTimes times = evaluate(doc.problem, doc.mapping, &transfers);
    ASSERT_TRUE(times.feasible) << times.problem;
    const double fileMs = file_.at("makespan_ms").get<double>();
    EXPECT_NEAR(times.makespan * 1e3, fileMs, 1e-9 * fileMs);
    EXPECT_EQ(times.transfers, file_.at("transfers").get<std::size_t>());
    EXPECT_EQ(transfers.size(), times.transfers);
    for (const Transfer& x : transfers) {
        EXPECT_NE(x.fromDevice, x.toDevice);
        EXPECT_GT(x.end, x.start);
        EXPECT_NEAR(x.start, times.finish[x.fromTask][x.fromDevice], 1e-15);
        EXPECT_LE(x.end, times.start[x.toTask][x.toDevice] + 1e-15);
    }
}

TEST_F(ThroughputMappingFile, TheFileCarriesCostsPerBatchSizeAndLinks)
{
    const std::string& op = graph_.ops()[0].name;
    for (std::size_t k = 0; k < problem_.sizes.size(); ++k)
        EXPECT_DOUBLE_EQ(file_.at("costs").at(op).at("sim:t4").at(std::to_string(problem_.sizes[k])).get<double>(),
            problem_.seconds[0][0][k] * 1e3);
    EXPECT_DOUBLE_EQ(file_.at("links").at("sim:t4->sim:a100").at("bandwidth_gbps").get<double>(), 25.0);
    EXPECT_EQ(file_.at("objective"), "throughput");
}

TEST_F(ThroughputMappingFile, RefusesAnotherModelOrBatch)
{
    const Graph other = loadModel("zoo:rwnn?gen=er&n=8&modules=2&channels=2&seed=4&res=64", 1);
    EXPECT_NE(refusal(file_, &other).find("another model or batch"), std::string::npos) << refusal(file_, &other);
    const Graph batch2 = graph_.withBatch(2);
    EXPECT_NE(refusal(file_, &batch2).find("at batch 1 (its inputs are the batch), not batch 2"), std::string::npos)
        << refusal(file_, &batch2);
    nlohmann::json j = file_;
    j["batch"] = 4;
    EXPECT_NE(refusal(j).find("\"batch\" is 4"), std::string::npos) << refusal(j);
}

TEST_F(ThroughputMappingFile, RefusesBrokenFiles)
{
    const std::string op = graph_.ops()[3].name;
    expectRefused([](auto& j) { j = nlohmann::json::array(); }, "not a JSON object");
    expectRefused([](auto& j) { j["version"] = 7; }, "version 7 is not supported");
    expectRefused([](auto& j) { j["objective"] = "latency"; }, "not a throughput mapping");
    expectRefused([](auto& j) { j.erase("inputs"); }, "missing \"inputs\"");
    expectRefused([](auto& j) { j["inputs"] = -3; }, "\"inputs\" is not a positive integer");
    expectRefused(
        [&](auto& j) {
            j["mapping"][op] = { { "sim:t4", 2 }, { "sim:a100", 4 } };
        },
        "the batches of op " + op + " add up to 6 inputs, not the file's 8");
    expectRefused(
        [&](auto& j) {
            j["mapping"][op] = { { "sim:t4", 3 }, { "sim:a100", 6 } };
        },
        "op " + op + " takes 3 inputs on sim:t4, which is not one of the batch sizes");
    expectRefused([&](auto& j) { j["mapping"].erase(op); }, "op " + op + " is not mapped to any device");
    expectRefused(
        [&](auto& j) {
            j["mapping"]["nosuchop"] = { { "sim:t4", 8 } };
        },
        "op \"nosuchop\" is not in model rwnn");
    expectRefused(
        [&](auto& j) {
            j["mapping"][op] = { { "sim:h100", 8 } };
        },
        "device \"sim:h100\" is not in \"devices\"");
    expectRefused([](auto& j) { j["devices"] = { "sim:t4", "sim:t4" }; }, "listed twice");
    expectRefused([](auto& j) { j.erase("costs"); }, "missing \"costs\"");
    expectRefused(
        [&](auto& j) {
            for (auto& [dev, perSize] : j["costs"][op].items())
                for (auto& [size, ms] : perSize.items())
                    ms = nullptr;
        },
        "no cost for op " + op + "'s batch of");
    expectRefused([&](auto& j) { j["costs"][op]["sim:t4"]["5"] = 1.0; }, "batch size \"5\", which is not in");
    expectRefused([&](auto& j) { j["costs"][op]["sim:t4"]["2"] = -1.0; }, "is not a non-negative number");
    // The order must list every batch, and only batches that exist.
    expectRefused(
        [&](auto& j) {
            for (auto& [dev, ops] : j["order"].items())
                ops = nlohmann::json::array();
        },
        "is missing from the device's \"order\"");
    expectRefused(
        [&](auto& j) {
            const bool onT4 = j["mapping"][op].contains("sim:t4"), onA100 = j["mapping"][op].contains("sim:a100");
            ASSERT_FALSE(onT4 && onA100) << "the test wants an op on one device";
            j["order"][onT4 ? "sim:a100" : "sim:t4"].push_back(op);
        },
        "op " + op + " is in the order of");
}

TEST_F(ThroughputMappingFile, RunMappingStillRefusesThroughputFiles)
{
    try {
        mappingFromJson(graph_, file_);
        FAIL() << "a throughput file read as a latency mapping";
    } catch (const MappingFileError& e) {
        EXPECT_NE(std::string(e.what()).find("it is a throughput mapping"), std::string::npos) << e.what();
    }
}

} // namespace
} // namespace opsched::map
