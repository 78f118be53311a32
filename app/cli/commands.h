// Each subcommand registers its options on the parent app and returns a runner that the main
// function calls after parsing. Runners return the process exit code; errors are thrown as
// opsched::Error and reported by main.
#pragma once

#include "engine/child_protocol.h"

#include <CLI/CLI.hpp>

#include <functional>

namespace opsched::cli {

using Runner = std::function<int()>;

// What each subcommand's file defines: registers the command on `app`, returns its runner.
using AddCommand = Runner(CLI::App& app);
AddCommand addInfoCommand, addZooCommand, addDevicesCommand, addCompareCommand, addScheduleCommand, addEvaluateCommand,
    addRunCommand, addProfileCommand, addExportCommand, addMergeCommand, addCalibrateCommand, addMapCommand,
    addExplainCommand;

// Exit codes, part of the CLI contract (docs/cli.md, "Exit codes"); the window reads them too.
using engine::child::kExitError;
using engine::child::kExitInterrupted;
using engine::child::kExitOk;
using engine::child::kExitSomeJobsFailed;
using engine::child::kExitUsage;

} // namespace opsched::cli
