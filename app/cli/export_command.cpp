// `export`: one stored run as its schedule file, a Chrome trace, or its kernels as CSV.
#include "commands.h"

#include "engine/results_database.h"

#include <cstdio>
#include <iostream>
#include <memory>

namespace opsched::cli {

Runner addExportCommand(CLI::App& app)
{
    struct Options {
        std::string db;
        std::int64_t run = 0;
        std::string format;
        std::string output;
    };
    auto opts = std::make_shared<Options>();
    auto* cmd = app.add_subcommand("export", "Export a stored run: schedule file, Chrome trace (Perfetto) or CSV");
    cmd->add_option("--db", opts->db, "Results database (from `profile`)")->required();
    cmd->add_option("--run", opts->run, "Run id (as `profile` and `compare --db` print them)")
        ->required()
        ->check(CLI::PositiveNumber);
    cmd->add_option("--format", opts->format, "schedule, chrome-trace or csv")
        ->required()
        ->check(CLI::IsMember({ "schedule", "chrome-trace", "csv" }));
    cmd->add_option("-o,--output", opts->output, "Output file ('-': standard output)")->required();

    return [opts]() {
        const auto [run, text] = engine::exportStoredRun(opts->db, store::RunId(opts->run), opts->format, opts->output);
        if (opts->output == "-") {
            std::cout << text;
            return kExitOk;
        }
        std::printf("run %lld (%s, %s, batch %lld, %s) as %s: %s (%zu bytes)\n", static_cast<long long>(opts->run),
            run.model.name.c_str(), run.schedule ? run.schedule->scheduler.c_str() : "no schedule",
            static_cast<long long>(run.batch), run.device.key.c_str(), opts->format.c_str(), opts->output.c_str(),
            text.size());
        return kExitOk;
    };
}

} // namespace opsched::cli
