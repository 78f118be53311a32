// `merge`: results databases from several machines (one job-array task each) into one file.
#include "commands.h"

#include "engine/results_database.h"

#include <cstdio>
#include <memory>

namespace opsched::cli {

Runner addMergeCommand(CLI::App& app)
{
    struct Options {
        std::string output;
        std::vector<std::string> inputs;
    };
    auto opts = std::make_shared<Options>();
    auto* cmd = app.add_subcommand("merge", "Merge results databases into one (runs already present are skipped)");
    cmd->add_option("OUT", opts->output, "Database to merge into (created if missing)")->required();
    cmd->add_option("IN", opts->inputs, "Databases to read (never modified)")->required();

    return [opts]() {
        // Every input is checked before OUT is written, so a bad one leaves OUT as it was.
        const engine::MergeReport report
            = engine::mergeDatabases(opts->output, opts->inputs, [](const std::string& in, const store::MergeStats& s) {
                  std::printf("%s: %zu runs added, %zu already present, %zu cost-cache entries\n", in.c_str(),
                      s.runsAdded, s.runsAlreadyPresent, s.costEntries);
              });
        std::printf("%s: %zu runs added, %zu already present; %lld runs in all\n", opts->output.c_str(), report.added,
            report.present, static_cast<long long>(report.totalRuns));
        return kExitOk;
    };
}

} // namespace opsched::cli
