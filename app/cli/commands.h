// Each subcommand registers its options on the parent app and returns a runner that the main
// function calls after parsing. Runners return the process exit code; errors are thrown as
// opsched::Error and reported by main.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace opsched::cli {

using Runner = std::function<int()>;

Runner addInfoCommand(CLI::App& app);
Runner addZooCommand(CLI::App& app);
Runner addDevicesCommand(CLI::App& app);
Runner addCompareCommand(CLI::App& app);
Runner addScheduleCommand(CLI::App& app);
Runner addEvaluateCommand(CLI::App& app);
Runner addRunCommand(CLI::App& app);
Runner addProfileCommand(CLI::App& app);
Runner addExportCommand(CLI::App& app);
Runner addMergeCommand(CLI::App& app);
Runner addCalibrateCommand(CLI::App& app);
Runner addMapCommand(CLI::App& app);

// Exit codes, part of the CLI contract (docs/cli.md, "Exit codes").
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitSomeJobsFailed = 3; // profile: the batch finished, some jobs failed
inline constexpr int kExitInterrupted = 130; // profile: stopped by a signal (128 + its number)

} // namespace opsched::cli
