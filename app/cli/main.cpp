// opsched-cli: the headless twin of the desktop application. Thin: parses arguments and hands over
// to core and profiler, which the GUI calls the same way.
#include "commands.h"

#include "util/error.h"
#include "util/printable.h"

#include <csignal>
#include <iostream>
#include <map>

int main(int argc, char** argv)
{
    using namespace opsched::cli;
    // Past the file-size limit (ulimit -f, RLIMIT_FSIZE) a write would kill the process with
    // SIGXFSZ, half way through a batch and without a word. Ignored, the write fails with EFBIG:
    // the database rolls the run back and the command says the file cannot grow.
    std::signal(SIGXFSZ, SIG_IGN);
    CLI::App app { "opsched-cli: find, run and compare inter-operator schedules for neural networks" };
    app.name("opsched-cli");
    app.set_version_flag("--version", std::string("opsched-cli ") + OPSCHED_VERSION);
    app.require_subcommand(1);

    std::map<CLI::App*, Runner> runners;
    auto add = [&](AddCommand* factory) {
        const auto before = app.get_subcommands({}).size();
        Runner r = factory(app);
        runners[app.get_subcommands({})[before]] = std::move(r);
    };
    add(addInfoCommand);
    add(addZooCommand);
    add(addScheduleCommand);
    add(addEvaluateCommand);
    add(addRunCommand);
    add(addCompareCommand);
    add(addExplainCommand);
    add(addDevicesCommand);
    add(addProfileCommand);
    add(addExportCommand);
    add(addMergeCommand);
    add(addCalibrateCommand);
    add(addMapCommand);

    // CLI11 would only say "a subcommand is required"; name the word it did not know instead.
    if (argc > 1 && argv[1][0] != '-') {
        bool known = false;
        std::string names;
        for (const auto* sub : app.get_subcommands({})) {
            known = known || sub->get_name() == argv[1];
            names += (names.empty() ? "" : ", ") + sub->get_name();
        }
        if (!known) {
            std::cerr << "opsched-cli: unknown command '" << opsched::printable(argv[1]) << "' (commands: " << names
                      << ")\n";
            std::cerr << "Run 'opsched-cli --help' for usage.\n";
            return kExitUsage;
        }
    }

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "opsched-cli: " << opsched::printable(e.what()) << "\n";
        std::cerr << "Run 'opsched-cli --help' (or 'opsched-cli COMMAND --help') for usage.\n";
        return kExitUsage;
    }

    try {
        for (auto* sub : app.get_subcommands())
            return runners.at(sub)();
    } catch (const opsched::Error& e) {
        std::cerr << "opsched-cli: error: " << opsched::printable(e.what()) << "\n";
        return kExitError;
    } catch (const std::exception& e) {
        std::cerr << "opsched-cli: internal error: " << opsched::printable(e.what()) << "\n";
        return kExitError;
    }
    return kExitUsage;
}
