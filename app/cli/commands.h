// Each subcommand registers its options on the parent app and returns a runner that the main
// function calls after parsing. Runners return the process exit code; errors are thrown as
// opsched::Error and reported by main.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace opsched::cli {

using Runner = std::function<int()>;

// What each subcommand's file defines: registers the command on `app`, returns its runner.
using AddCommand = Runner(CLI::App& app);
AddCommand addInfoCommand, addZooCommand, addDevicesCommand, addCompareCommand, addScheduleCommand, addEvaluateCommand,
    addRunCommand, addProfileCommand, addExportCommand, addMergeCommand, addCalibrateCommand, addMapCommand,
    addExplainCommand;

// Exit codes, part of the CLI contract (docs/cli.md, "Exit codes").
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitSomeJobsFailed = 3; // profile: the batch finished, some jobs failed
inline constexpr int kExitInterrupted = 130; // profile: stopped by a signal (128 + its number)

} // namespace opsched::cli
