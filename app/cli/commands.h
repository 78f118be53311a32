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

// Exit codes, part of the CLI contract (README).
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;

} // namespace opsched::cli
