#include "map/files/throughput_mapping_file.h"

#include "map/files/mapping_json.h"
#include "map/problem/problem_builder.h"

#include "graph/fingerprint.h"

#include <algorithm>
#include <cmath>

namespace opsched::map {

using json::fail;
using json::field;
using json::numberField;

nlohmann::ordered_json throughputMappingToJson(
    const Graph& graph, const ThroughputProblem& p, const ThroughputResult& r, double lowerBoundSeconds)
{
    const MappingProblem& base = p.base;
    nlohmann::ordered_json j = json::headerToJson(graph, base, "throughput", r.mapper);
    j["inputs"] = p.inputs;
    j["batch_sizes"] = p.sizes;
    j["throughput_per_s"] = r.times.throughput;
    j["throughput_upper_bound_per_s"] = static_cast<double>(p.inputs) / lowerBoundSeconds;
    j["makespan_ms"] = r.times.makespan * 1e3;
    j["lower_bound_ms"] = lowerBoundSeconds * 1e3;
    json::addSolveFields(j, toString(r.status), r.gap, r.solveSeconds, r.note);
    auto mapping = nlohmann::ordered_json::object();
    for (std::uint32_t t = 0; t < base.taskCount(); ++t) {
        auto split = nlohmann::ordered_json::object();
        const std::uint32_t chosen = r.mapping.split[t];
        for (std::uint32_t u = 0; u < base.deviceCount(); ++u) {
            const auto c = p.splits[chosen][u], m = p.batchesOn(chosen, u);
            if (m > 1) // several batches there, in input order
                split[base.devices[u].name] = std::vector<std::int64_t>(static_cast<std::size_t>(m), c / m);
            else if (c)
                split[base.devices[u].name] = c;
        }
        mapping[base.tasks[t].name] = split;
    }
    j["mapping"] = mapping;
    j["order"] = json::orderToJson(base, r.mapping.order);
    j["transfers"] = r.times.transfers;
    j["transferred_bytes"] = r.times.transferredBytes;
    auto costs = nlohmann::ordered_json::object();
    for (std::uint32_t t = 0; t < base.taskCount(); ++t) {
        auto row = nlohmann::ordered_json::object();
        for (std::uint32_t u = 0; u < base.deviceCount(); ++u) {
            auto perSize = nlohmann::ordered_json::object();
            for (std::size_t k = 0; k < p.sizes.size(); ++k) {
                const double s = p.seconds[t][u][k];
                perSize[std::to_string(p.sizes[k])]
                    = std::isfinite(s) ? nlohmann::ordered_json(s * 1e3) : nlohmann::ordered_json(nullptr);
            }
            row[base.devices[u].name] = perSize;
        }
        costs[base.tasks[t].name] = row;
    }
    j["costs"] = costs;
    j["links"] = json::linksToJson(base);
    return j;
}

namespace {

std::int64_t positiveInteger(const nlohmann::json& v, const std::string& what)
{
    if (!v.is_number_integer() || v.get<std::int64_t>() < 1)
        fail(what + " is not a positive integer");
    return v.get<std::int64_t>();
}

std::vector<std::int64_t> readSizes(const nlohmann::json& j, std::int64_t inputs)
{
    const auto& list = field(j, "batch_sizes");
    if (!list.is_array() || list.empty())
        fail("\"batch_sizes\" is not a non-empty list");
    std::vector<std::int64_t> sizes;
    for (const auto& v : list) {
        const std::int64_t s = positiveInteger(v, "a batch size (" + v.dump() + ")");
        if (s > inputs)
            fail("batch size " + std::to_string(s) + " is more than the " + std::to_string(inputs) + " inputs");
        sizes.push_back(s);
    }
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    return sizes;
}

// Each op's inputs per device (a number: one batch; a list of equal numbers: that many batches in
// input order), checked against the batch sizes and the inputs. `pieces` gets the batch counts.
std::vector<std::vector<std::int64_t>> readCounts(const Graph& graph, const nlohmann::json& j,
    const json::DeviceList& devices, const std::vector<std::int64_t>& sizes, std::int64_t inputs,
    std::vector<std::vector<std::int64_t>>& pieces)
{
    const auto& mapping = field(j, "mapping");
    if (!mapping.is_object())
        fail("\"mapping\" is not an object {op: {device: inputs}}");
    std::vector<std::vector<std::int64_t>> counts(graph.opCount());
    pieces.assign(graph.opCount(), {});
    for (const auto& [op, split] : mapping.items()) {
        const std::uint32_t t = json::opOf(graph, op);
        if (!split.is_object())
            fail("the split of op " + op + " is not an object {device: inputs}");
        counts[t].assign(devices.names.size(), 0);
        pieces[t].assign(devices.names.size(), 0);
        std::int64_t total = 0;
        for (const auto& [dev, value] : split.items()) {
            const std::string what = "the inputs of op " + op + " on " + dev;
            const auto list = value.is_array() ? value : nlohmann::json::array({ value });
            if (list.empty())
                fail(what + " are an empty list");
            const std::int64_t c = positiveInteger(list.front(), what);
            for (const auto& v : list)
                if (positiveInteger(v, what) != c)
                    fail(what + " are batches of different sizes (" + value.dump() + ")");
            if (std::find(sizes.begin(), sizes.end(), c) == sizes.end())
                fail("op " + op + " takes " + std::to_string(c) + " inputs on " + dev
                    + ", which is not one of the batch sizes");
            const auto u = devices.of(dev);
            counts[t][u] = c * static_cast<std::int64_t>(list.size());
            pieces[t][u] = static_cast<std::int64_t>(list.size());
            total += counts[t][u];
        }
        if (total != inputs)
            fail("the batches of op " + op + " add up to " + std::to_string(total) + " inputs, not the file's "
                + std::to_string(inputs));
    }
    for (std::size_t t = 0; t < counts.size(); ++t)
        if (counts[t].empty())
            fail("op " + graph.ops()[t].name + " is not mapped to any device");
    return counts;
}

// The index of the split with these counts and batches per device, added when it is new.
std::uint32_t splitIndex(
    ThroughputProblem& p, const std::vector<std::int64_t>& counts, const std::vector<std::int64_t>& pieces)
{
    p.pieces.resize(p.splits.size());
    for (std::size_t s = 0; s < p.splits.size(); ++s) {
        bool same = p.splits[s] == counts;
        for (std::uint32_t u = 0; same && u < counts.size(); ++u)
            same = p.batchesOn(s, u) == pieces[u];
        if (same)
            return static_cast<std::uint32_t>(s);
    }
    p.splits.push_back(counts);
    p.pieces.push_back(pieces);
    return static_cast<std::uint32_t>(p.splits.size() - 1);
}

// seconds[op][device][size index]; kUnsupported where the file has no number.
std::vector<std::vector<std::vector<double>>> readCosts(const Graph& graph, const nlohmann::json& j,
    const json::DeviceList& devices, const std::vector<std::int64_t>& sizes)
{
    std::vector<std::vector<std::vector<double>>> seconds(graph.opCount(),
        std::vector<std::vector<double>>(devices.names.size(), std::vector<double>(sizes.size(), kUnsupported)));
    const auto& costs = field(j, "costs");
    if (!costs.is_object())
        fail("\"costs\" is not an object {op: {device: {batch_size: ms}}}");
    for (const auto& [op, row] : costs.items()) {
        const std::uint32_t t = json::opOf(graph, op);
        if (!row.is_object())
            fail("the costs of op " + op + " are not an object {device: {batch_size: ms}}");
        for (const auto& [dev, perSize] : row.items()) {
            const std::uint32_t u = devices.of(dev);
            if (!perSize.is_object())
                fail("the costs of op " + op + " on " + dev + " are not an object {batch_size: ms}");
            for (const auto& [size, value] : perSize.items()) {
                const auto it = std::find(sizes.begin(), sizes.end(), std::atoll(size.c_str()));
                if (it == sizes.end() || std::to_string(*it) != size)
                    fail("the costs of op " + op + " on " + dev + " name batch size \"" + size
                        + "\", which is not in \"batch_sizes\"");
                if (value.is_null())
                    continue;
                if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0)
                    fail(
                        "the cost of op " + op + " on " + dev + " at " + size + " inputs is not a non-negative number");
                seconds[t][u][static_cast<std::size_t>(it - sizes.begin())] = value.get<double>() / 1e3;
            }
        }
    }
    return seconds;
}

} // namespace

ThroughputMappingDocument throughputMappingFromJson(const Graph& graph, const nlohmann::json& j)
{
    json::checkFormat(j);
    const std::string objective = json::optionalString(j, "objective");
    if (objective != "throughput")
        fail("it is not a throughput mapping (\"objective\" is \"" + objective + "\")");
    // The inputs are the batch: the mapping is over the model at batch 1 (the sizes' costs say the rest).
    if (graph.batch() != 1)
        fail("a throughput mapping is read for the model at batch 1 (its inputs are the batch), not batch "
            + std::to_string(graph.batch()));
    if (j.contains("batch") && j.at("batch") != 1)
        fail("\"batch\" is " + j.at("batch").dump() + "; a throughput mapping has batch 1 (its inputs are the batch)");
    json::checkModel(graph, j);
    ThroughputMappingDocument doc;
    doc.model = json::stringField(j, "model");
    doc.mapper = json::optionalString(j, "mapper");
    doc.status = json::optionalString(j, "status");
    doc.makespanMs = j.contains("makespan_ms") ? numberField(j, "makespan_ms") : 0.0;
    doc.lowerBoundMs = j.contains("lower_bound_ms") ? numberField(j, "lower_bound_ms") : 0.0;
    doc.solveSeconds = j.contains("solve_s") ? numberField(j, "solve_s") : 0.0;
    const std::int64_t inputs = positiveInteger(field(j, "inputs"), "\"inputs\"");
    const json::DeviceList devices = json::readDevices(j);
    const std::size_t n = graph.opCount(), k = devices.names.size();

    ThroughputProblem& p = doc.problem;
    p.inputs = inputs;
    p.sizes = readSizes(j, inputs);
    p.splits = enumerateSplits(inputs, p.sizes, k);
    addPipelinedSplits(p);
    std::vector<std::vector<std::int64_t>> pieces;
    const auto counts = readCounts(graph, j, devices, p.sizes, inputs, pieces);
    doc.mapping.split.resize(n);
    for (std::size_t t = 0; t < n; ++t)
        doc.mapping.split[t] = splitIndex(p, counts[t], pieces[t]);
    doc.mapping.order = json::readOrder(graph, j, devices, [&](std::uint32_t t, std::uint32_t u) {
        return counts[t][u] ? std::string() : std::string("has no inputs there in \"mapping\"");
    });
    for (std::uint32_t u = 0; u < k; ++u)
        for (std::uint32_t t = 0; t < n; ++t)
            if (counts[t][u]
                && std::find(doc.mapping.order[u].begin(), doc.mapping.order[u].end(), t) == doc.mapping.order[u].end())
                fail("the batch of op " + graph.ops()[t].name + " on " + devices.names[u]
                    + " is missing from the device's \"order\"");

    p.seconds = readCosts(graph, j, devices, p.sizes);
    for (std::uint32_t t = 0; t < n; ++t)
        for (std::uint32_t u = 0; u < k; ++u)
            if (counts[t][u] && !std::isfinite(p.costOf(t, u, counts[t][u] / pieces[t][u])))
                fail("no cost for op " + graph.ops()[t].name + "'s batch of "
                    + std::to_string(counts[t][u] / pieces[t][u]) + " inputs on " + devices.names[u] + " in \"costs\"");
    // The base problem carries the devices, links, sizes per input and the DAG; its own costs are
    // unused by the batched evaluation, so each op's cheapest batch stands in (validate() wants them).
    std::vector<DeviceCosts> perDevice;
    for (std::uint32_t u = 0; u < k; ++u) {
        DeviceCosts d { devices.names[u], std::vector<double>(n, kUnsupported), kUnsupported };
        for (std::uint32_t t = 0; t < n; ++t)
            for (double s : p.seconds[t][u])
                d.opSeconds[t] = std::min(d.opSeconds[t], s);
        perDevice.push_back(std::move(d));
    }
    try {
        p.base = buildProblem(graph, perDevice, json::linksFromJson(j, devices));
        p.validate();
    } catch (const MappingFileError&) {
        throw;
    } catch (const Error& e) {
        fail(std::string("its costs do not describe a problem: ") + e.what());
    }
    return doc;
}

} // namespace opsched::map
