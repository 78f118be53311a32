// `merge`: results databases from several machines (one job-array task each) into one file.
#include "commands.h"

#include "store/merge.h"

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
        // Check every input before writing anything, so a bad one leaves OUT as it was.
        for (const auto& in : opts->inputs)
            (void)store::Store::open(in, store::OpenMode::ReadOnly);
        store::Store out = store::Store::open(opts->output, store::OpenMode::ReadWrite);
        std::size_t added = 0, present = 0;
        for (const auto& in : opts->inputs) {
            const store::MergeStats s = store::mergeInto(out, in);
            std::printf("%s: %zu runs added, %zu already present, %zu cost-cache entries\n", in.c_str(), s.runsAdded,
                s.runsAlreadyPresent, s.costEntries);
            added += s.runsAdded;
            present += s.runsAlreadyPresent;
        }
        const auto total = out.connection().queryInt("SELECT count(*) FROM runs").value_or(0);
        std::printf("%s: %zu runs added, %zu already present; %lld runs in all\n", opts->output.c_str(), added, present,
            static_cast<long long>(total));
        return kExitOk;
    };
}

} // namespace opsched::cli
