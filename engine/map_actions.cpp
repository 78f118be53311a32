#include "engine/map_actions.h"

#include "engine/schedule_files.h"

#include "map/bounds/lower_bound.h"
#include "map/files/mapping_file.h"
#include "map/files/throughput_mapping_file.h"
#include "map/registry/mappers.h"
#include "map/solvers/symmetry_cuts.h"
#include "util/error.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <tuple>

namespace opsched::engine {
namespace {

map::MapperOptions mapperOptions(const MapRequest& r, const MapInputOptions& files)
{
    map::MapperOptions mo;
    mo.timeLimitSeconds = r.timeLimitSeconds;
    mo.seed = r.seed;
    mo.maxModuleTasks = r.maxModuleTasks;
    mo.symmetry = symmetryOf(files);
    return mo;
}

void writeIfAsked(const std::string& output, const nlohmann::ordered_json& document)
{
    if (!output.empty())
        writeDocument(output, document);
}

nlohmann::ordered_json pipelineDocument(const Graph& graph, const map::MappingProblem& problem,
    const map::PipelineResult& r, map::MapperOptions::Symmetry symmetry)
{
    nlohmann::ordered_json j;
    j["format"] = "opsched-pipeline-mapping";
    j["model"] = graph.name();
    j["batch"] = graph.batch();
    j["objective"] = "pipeline";
    j["mapper"] = r.mapper;
    j["symmetry"] = map::toString(symmetry);
    j["status"] = map::toString(r.status);
    j["throughput_per_s"] = r.times.throughput;
    j["period_ms"] = r.times.period * 1e3;
    j["bottleneck"] = r.times.bottleneck;
    j["latency_ms"] = std::isfinite(r.latency) ? nlohmann::ordered_json(r.latency * 1e3) : nlohmann::ordered_json();
    j["solve_s"] = r.solveSeconds;
    j["milps"] = r.milps;
    j["symmetry_cuts"] = r.cuts;
    j["symmetry_compression"] = r.compression;
    j["note"] = r.note;
    j["devices"] = nlohmann::ordered_json::array();
    for (std::uint32_t u = 0; u < problem.deviceCount(); ++u) {
        std::size_t ops = 0;
        for (auto d : r.device)
            ops += d == u;
        j["devices"].push_back(
            { { "name", problem.devices[u].name }, { "node", problem.devices[u].node }, { "ops", ops },
                { "busy_ms", r.times.busy[u] * 1e3 }, { "memory_gib", r.times.memoryBytes[u] / 1073741824.0 } });
    }
    j["ops"] = nlohmann::ordered_json::array();
    for (std::size_t t = 0; t < problem.taskCount(); ++t)
        j["ops"].push_back({ { "op", problem.tasks[t].name }, { "device", problem.devices[r.device[t]].name } });
    return j;
}

// The pipeline mappers side by side, each against the row every other is measured by: the
// replicated single-node MILP where the problem is N equal parts on N equal nodes (the paper's
// baseline), else the greedy mapper.
// With `batched`, each mapping is also timed on L inputs in batches (the batch objective), and
// that throughput is the one compared.
nlohmann::ordered_json comparePipelineMappers(const Graph& graph, const map::MappingProblem& problem,
    const map::MapperOptions& options, const map::ThroughputProblem* batched = nullptr)
{
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    map::MapperOptions ranked = options;
    if (batched)
        ranked.pipelineScore = [&](const std::vector<std::uint32_t>& device) {
            return map::evaluateBatchedPipeline(*batched, problem, device).throughput;
        };
    for (const auto& info : map::pipelineMappers()) {
        try {
            const map::PipelineResult r = map::mapPipeline(info.name, problem, ranked);
            nlohmann::ordered_json row;
            row["mapper"] = r.mapper;
            if (batched) {
                const map::BatchedRun run = map::evaluateBatchedPipeline(*batched, problem, r.device);
                if (!run.feasible)
                    throw Error(
                        "its mapping cannot run " + std::to_string(run.inputs) + " inputs in batches: " + run.problem);
                row["throughput_per_s"] = run.throughput;
                row["makespan_ms"] = run.makespan * 1e3;
                row["steady_per_s"] = r.times.throughput;
            } else {
                row["throughput_per_s"] = r.times.throughput;
            }
            row["period_ms"] = r.times.period * 1e3;
            row["bottleneck"] = r.times.bottleneck;
            row["latency_ms"]
                = std::isfinite(r.latency) ? nlohmann::ordered_json(r.latency * 1e3) : nlohmann::ordered_json();
            row["status"] = map::toString(r.status);
            row["solve_s"] = r.solveSeconds;
            row["milps"] = r.milps;
            row["note"] = r.note;
            rows.push_back(std::move(row));
        } catch (const Error& e) {
            // e.g. replicated mappers on a problem that is not N equal parts on N equal nodes
            rows.push_back(nlohmann::ordered_json { { "mapper", info.name }, { "error", e.what() } });
        }
    }
    std::string baseline;
    for (const char* name : { "replicated-milp", "greedy" }) {
        for (const auto& r : rows)
            if (baseline.empty() && r["mapper"] == name && !r.contains("error"))
                baseline = name;
    }
    double base = 0;
    for (const auto& r : rows)
        if (r["mapper"] == baseline)
            base = r["throughput_per_s"].get<double>();
    for (auto& r : rows)
        if (!r.contains("error"))
            r["vs_baseline"] = base > 0 ? nlohmann::ordered_json(r["throughput_per_s"].get<double>() / base)
                                        : nlohmann::ordered_json();
    nlohmann::ordered_json doc;
    doc["model"] = graph.name();
    doc["batch"] = graph.batch();
    doc["devices"] = nlohmann::ordered_json::array();
    for (const auto& d : problem.devices)
        doc["devices"].push_back(d.name);
    doc["objective"] = batched ? "batch" : "pipeline";
    if (batched) {
        doc["inputs"] = batched->inputs;
        doc["batch_size"] = batched->sizes.front();
    }
    doc["symmetry"] = map::toString(options.symmetry);
    doc["baseline"] = baseline;
    doc["results"] = std::move(rows);
    return doc;
}

// One mapper's row: makespan, status, gap, solve time, transfers (and throughput for L inputs).
struct MapperRow {
    double makespan = 0, gap = 0, solveSeconds = 0;
    std::string status;
    std::size_t transfers = 0;
    std::string note;
    double joinedMakespan = 0; // milp-split's joined modules, before the portfolio (map_result.h)
};

nlohmann::ordered_json rowJson(const std::string& mapper, const MapperRow& m, double single, double inputs)
{
    nlohmann::ordered_json r;
    r["mapper"] = mapper;
    r["makespan_ms"] = m.makespan * 1e3;
    if (inputs > 0)
        r["throughput_per_s"] = inputs / m.makespan;
    r["speedup_over_bd"] = single > 0 ? single / m.makespan : 1.0;
    r["status"] = m.status;
    r["gap"] = std::isnan(m.gap) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(m.gap);
    r["solve_s"] = m.solveSeconds;
    r["transfers"] = m.transfers;
    if (m.joinedMakespan > 0)
        r["joined_makespan_ms"] = m.joinedMakespan * 1e3;
    if (!m.note.empty())
        r["note"] = m.note;
    return r;
}

// Reports the phases of one mapping to its sources' progress sink, timed from construction.
class PhaseReporter {
public:
    PhaseReporter(const MapRequest& request, const MapSources& sources)
        : sink_(sources.progress)
        , start_(std::chrono::steady_clock::now())
    {
        event_.mapper = request.mapper;
        event_.objective = request.objective;
        event_.devices = request.devices;
        event_.timeLimitSeconds = request.timeLimitSeconds;
        report(child::MapProgressEvent::Phase::Costs);
    }

    void search(const map::MappingProblem& problem)
    {
        event_.ops = problem.taskCount();
        event_.deviceCount = problem.deviceCount();
        std::string names;
        for (const auto& d : problem.devices)
            names += (names.empty() ? "" : ",") + d.name;
        event_.devices = names; // as the problem has them (a topology or cost table may name them)
        report(child::MapProgressEvent::Phase::Search);
    }

    void done(const std::string& status, double objectiveSeconds)
    {
        event_.status = status;
        event_.objectiveMs = objectiveSeconds * 1e3;
        report(child::MapProgressEvent::Phase::Done);
    }

private:
    void report(child::MapProgressEvent::Phase phase)
    {
        if (!sink_)
            return;
        event_.phase = phase;
        event_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        sink_(event_);
    }

    const std::function<void(const child::MapProgressEvent&)>& sink_;
    std::chrono::steady_clock::time_point start_;
    child::MapProgressEvent event_;
};

} // namespace

LatencyMapping mapForLatency(const Graph& graph, const MapRequest& request, const MapSources& sources)
{
    PhaseReporter phases(request, sources);
    LatencyMapping m;
    m.problem = latencyProblem(graph, request.devices, request.link, request.memory, sources.cache, sources.files);
    writeCostsIfAsked(sources.files, m.problem, graph.batch());
    phases.search(m.problem);
    m.result = map::runMapper(request.mapper, m.problem, mapperOptions(request, sources.files));
    m.lowerBound = m.result.lowerBound > 0 ? m.result.lowerBound : map::lowerBound(m.problem);
    m.document = map::mappingToJson(graph, m.problem, m.result, m.lowerBound);
    writeIfAsked(sources.output, m.document);
    phases.done(map::toString(m.result.status), m.result.times.makespan);
    return m;
}

ThroughputMapping mapForThroughput(const Graph& graph, const MapRequest& request, const MapSources& sources)
{
    PhaseReporter phases(request, sources);
    ThroughputMapping m;
    m.problem = throughputProblem(
        graph, request.devices, request.link, request.memory, sources.cache, sources.files, request.inputs);
    writeCostsIfAsked(sources.files, m.problem);
    phases.search(m.problem.base);
    m.result = map::runThroughputMapper(request.mapper, m.problem, mapperOptions(request, sources.files));
    m.lowerBound = map::throughputLowerBound(m.problem);
    m.document = map::throughputMappingToJson(graph, m.problem, m.result, m.lowerBound);
    writeIfAsked(sources.output, m.document);
    phases.done(map::toString(m.result.status), m.result.times.makespan);
    return m;
}

PipelineMapping mapForPipeline(const Graph& graph, const MapRequest& request, const MapSources& sources)
{
    PhaseReporter phases(request, sources);
    PipelineMapping m;
    m.problem = latencyProblem(graph, request.devices, request.link, request.memory, sources.cache, sources.files);
    writeCostsIfAsked(sources.files, m.problem, graph.batch());
    phases.search(m.problem);
    const map::MapperOptions options = mapperOptions(request, sources.files);
    m.result = map::mapPipeline(request.mapper, m.problem, options);
    m.document = pipelineDocument(graph, m.problem, m.result, options.symmetry);
    writeIfAsked(sources.output, m.document);
    phases.done(map::toString(m.result.status), m.result.times.period);
    return m;
}

namespace {

std::int64_t batchSizeOf(const MapRequest& request)
{
    return request.batchSize > 0 ? request.batchSize : std::max<std::int64_t>(1, request.inputs / 4);
}

// The batch objective's two problems: per input for the mappers, batched for the timing.
std::pair<map::MappingProblem, map::ThroughputProblem> batchProblems(
    const Graph& graph, const MapRequest& request, const MapSources& sources)
{
    if (graph.batch() != 1)
        throw Error("--objective batch: give the inputs with --inputs and the batch with --batch-size, and keep "
                    "--batch 1");
    const std::int64_t g = batchSizeOf(request);
    const map::MappingProblem atBatch = latencyProblem(
        graph.withBatch(g), request.devices, request.link, request.memory, sources.cache, sources.files);
    writeCostsIfAsked(sources.files, atBatch, g);
    return { map::perInputProblem(atBatch, g), map::batchedPipelineProblem(atBatch, request.inputs, g) };
}

} // namespace

BatchedMapping mapForBatch(const Graph& graph, const MapRequest& request, const MapSources& sources)
{
    PhaseReporter phases(request, sources);
    BatchedMapping m;
    std::tie(m.perInput, m.batched) = batchProblems(graph, request, sources);
    phases.search(m.perInput);
    map::MapperOptions options = mapperOptions(request, sources.files);
    options.pipelineScore = [&m](const std::vector<std::uint32_t>& device) {
        return map::evaluateBatchedPipeline(m.batched, m.perInput, device).throughput;
    };
    m.result = map::mapPipeline(request.mapper, m.perInput, options);
    m.run = map::evaluateBatchedPipeline(m.batched, m.perInput, m.result.device);
    if (!m.run.feasible)
        throw Error("--objective batch: " + request.mapper + "'s mapping cannot run " + std::to_string(request.inputs)
            + " inputs in batches: " + m.run.problem);
    m.document = pipelineDocument(graph, m.perInput, m.result, options.symmetry);
    m.document["objective"] = "batch";
    m.document["inputs"] = m.run.inputs;
    m.document["batch_size"] = m.run.batch;
    m.document["throughput_per_s"] = m.run.throughput;
    m.document["makespan_ms"] = m.run.makespan * 1e3;
    m.document["steady_per_s"] = m.result.times.throughput;
    m.document["transfers"] = m.run.transfers;
    writeIfAsked(sources.output, m.document);
    phases.done(map::toString(m.result.status), m.run.makespan);
    return m;
}

nlohmann::ordered_json compareMappers(
    const Graph& graph, const MapRequest& request, const MapSources& sources, bool equalTime)
{
    map::MapperOptions options;
    options.timeLimitSeconds = request.timeLimitSeconds;
    options.maxModuleTasks = request.maxModuleTasks;
    options.symmetry = symmetryOf(sources.files);
    if (request.objective == "batch") {
        if (equalTime)
            throw Error("--equal-time applies to latency and throughput (sa and ea are not pipeline mappers)");
        const auto [perInput, batched] = batchProblems(graph, request, sources);
        return comparePipelineMappers(graph, perInput, options, &batched);
    }
    if (request.objective == "pipeline") {
        if (equalTime)
            throw Error("--equal-time applies to latency and throughput (sa and ea are not pipeline mappers)");
        const map::MappingProblem problem
            = latencyProblem(graph, request.devices, request.link, "", sources.cache, sources.files);
        writeCostsIfAsked(sources.files, problem, graph.batch());
        return comparePipelineMappers(graph, problem, options);
    }
    const bool throughput = request.objective == "throughput";
    std::optional<map::MappingProblem> problem;
    std::optional<map::ThroughputProblem> batched;
    if (throughput) {
        batched
            = throughputProblem(graph, request.devices, request.link, "", sources.cache, sources.files, request.inputs);
        writeCostsIfAsked(sources.files, *batched);
    } else {
        problem = latencyProblem(graph, request.devices, request.link, "", sources.cache, sources.files);
        writeCostsIfAsked(sources.files, *problem, graph.batch());
    }
    const double bound = throughput ? map::throughputLowerBound(*batched) : map::lowerBound(*problem);
    auto runRow = [&](const std::string& name, const map::MapperOptions& mine) -> MapperRow {
        if (throughput) {
            const map::ThroughputResult m = map::runThroughputMapper(name, *batched, mine);
            return { m.times.makespan, m.gap, m.solveSeconds, map::toString(m.status), m.times.transfers, m.note };
        }
        const map::MapResult m = map::runMapper(name, *problem, mine);
        return { m.times.makespan, m.gap, m.solveSeconds, map::toString(m.status), m.times.transfers.size(), m.note,
            m.joinedMakespan };
    };
    // The paper's equal-runtime comparison: milp-split first, then sa and ea for as long.
    std::optional<MapperRow> split;
    if (equalTime) {
        try {
            split = runRow("milp-split", options);
        } catch (const Error&) {
        }
    }
    nlohmann::ordered_json results = nlohmann::ordered_json::array();
    double single = 0;
    for (const auto& info : map::mappers()) {
        try {
            map::MapperOptions mine = options;
            if (split && (info.name == "sa" || info.name == "ea"))
                mine.runSeconds = std::max(split->solveSeconds, 1e-3);
            const MapperRow row = split && info.name == "milp-split" ? *split : runRow(info.name, mine);
            if (info.name == "bd")
                single = row.makespan;
            results.push_back(rowJson(info.name, row, single, throughput ? static_cast<double>(request.inputs) : 0.0));
        } catch (const Error& e) {
            // e.g. no CBC in this build, no feasible mapping, a MILP too large for throughput
            results.push_back(nlohmann::ordered_json { { "mapper", info.name }, { "error", e.what() } });
        }
    }
    nlohmann::ordered_json doc;
    doc["model"] = graph.name();
    doc["batch"] = graph.batch();
    doc["devices"] = nlohmann::ordered_json::array();
    for (const auto& d : (throughput ? batched->base : *problem).devices)
        doc["devices"].push_back(d.name);
    doc["objective"] = throughput ? "throughput" : "latency";
    if (throughput)
        doc["inputs"] = request.inputs;
    doc["lower_bound_ms"] = bound * 1e3;
    doc["results"] = std::move(results);
    return doc;
}

} // namespace opsched::engine
