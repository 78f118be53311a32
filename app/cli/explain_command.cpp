// `explain --db FILE --runs A,B`: why run B is faster (or slower) than run A, from what both
// recorded (profiler/analysis/speedup_breakdown.h; docs/explain.md defines the terms).
#include "commands.h"
#include "explain_report.h"

#include "engine/results_database.h"
#include "util/error.h"

#include <iostream>
#include <memory>
#include <stdexcept>

namespace opsched::cli {
namespace {

struct ExplainOptions {
    std::string db;
    std::string runs;
    std::size_t top = 10;
    bool json = false;
};

// "A,B": two run ids.
std::pair<std::int64_t, std::int64_t> parseRuns(const std::string& text)
{
    const auto comma = text.find(',');
    auto id = [&](const std::string& s) -> std::int64_t {
        if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string::npos || std::stoll(s) <= 0)
            throw Error("--runs " + text + ": give two run ids, A,B (as `compare --db` prints them)");
        return std::stoll(s);
    };
    if (comma == std::string::npos)
        throw Error("--runs " + text + ": give two run ids, A,B (as `compare --db` prints them)");
    return { id(text.substr(0, comma)), id(text.substr(comma + 1)) };
}

int explain(const ExplainOptions& o)
{
    const auto [ida, idb] = parseRuns(o.runs);
    const auto [a, b, r] = engine::explainRuns(o.db, store::RunId(ida), store::RunId(idb));
    if (a.device.key != b.device.key)
        std::cerr << "warning: the runs are on different devices (" << a.device.key << ", " << b.device.key
                  << "): the kernel terms compare different hardware\n";
    if (o.json)
        std::cout << breakdownJson(a, b, r, o.top).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
                  << "\n";
    else
        printBreakdown(a, b, r, o.top);
    return kExitOk;
}

} // namespace

Runner addExplainCommand(CLI::App& app)
{
    auto opts = std::make_shared<ExplainOptions>();
    auto* cmd = app.add_subcommand("explain",
        "Why one stored run is faster than another: the latency difference split into kernel time, "
        "overlap, launch and synchronisation idle time");
    cmd->add_option("--db", opts->db, "Results database (from `profile`)")->required();
    cmd->add_option("--runs", opts->runs, "A,B: the baseline run and the run explained (ids as `compare --db` prints)")
        ->required();
    cmd->add_option("--top", opts->top, "Ops to list by the change of their kernel time")
        ->check(CLI::Range(0, 100000))
        ->capture_default_str();
    cmd->add_flag("--json", opts->json, "Print JSON");
    return [opts]() { return explain(*opts); };
}

} // namespace opsched::cli
