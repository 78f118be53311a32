// The contract between opsched-cli and the window that runs it as a child process (profiling and
// mapping on measured devices go through the driver, CUPTI and oneDNN; a crash there must not take
// the window down): a request as the child's arguments, the exit codes, and the progress the child
// reports as JSON lines (`--progress json`), written by the CLI and read by the window with the same
// code. The same events printed for people are describe()'s lines.
#pragma once

#include "engine/requests.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opsched::engine::child {

// opsched-cli's exit codes.
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1; // the request failed: bad input, a device that cannot be used
inline constexpr int kExitUsage = 2; // the command line did not parse
inline constexpr int kExitSomeJobsFailed = 3; // profile: the batch finished, some jobs failed
inline constexpr int kExitInterrupted = 130; // profile: stopped by a signal (128 + its number)

// One line of progress. Job: a job of a profile batch is finished (its run is in the database, or it
// was skipped or failed); Waiting: another batch holds the job, this one comes back to it; Summary:
// the batch is over.
struct ProgressEvent {
    enum class Kind { Job, Waiting, Summary } kind = Kind::Job;
    enum class Outcome { Done, Skipped, Failed } outcome = Outcome::Done;
    std::size_t done = 0; // Job: jobs finished so far, this one included
    std::size_t total = 0; // jobs in the batch
    std::string what; // "squeezenet ios batch 1"
    std::string error; // Failed
    std::string otherBatch; // Waiting; Skipped or Failed after waiting: "pid 1234 on node7"
    std::optional<double> medianMs; // Done
    std::optional<double> activeWarps; // Done, where recorded
    std::int64_t run = 0; // Done: the stored run's id
    double seconds = 0; // Job: its wall time; Summary: the batch's
    std::string notes; // Done: the run's notes
    // Summary.
    std::size_t ran = 0, skipped = 0, failed = 0;
    bool interrupted = false;
    std::string database;
};

// The event as one JSON object on one line (no newline), and back: nullopt for a line that is not
// one (text a child prints for people, a JSON value of another shape).
std::string toJsonLine(const ProgressEvent& event);
std::optional<ProgressEvent> parseProgressLine(std::string_view line);

// The line a person reads: "[3/42] squeezenet ios batch 1: 0.385 ms (run 7, 0.20 s)", "waiting: ...",
// "42 jobs: 40 run, 1 already in the database, 1 failed; 12.5 s; database runs.db".
std::string describe(const ProgressEvent& event);

// A mapping's progress (`map --progress json`), one line per phase: Costs (every op priced on every
// device: measured on cpu and cuda devices, which is what takes a while there), Search (the mapper
// runs, for at most its time limit), Done (the mapping found; its file is written). The event's
// JSON has "map" naming the phase, so a profile line is never taken for one and the other way round.
struct MapProgressEvent {
    enum class Phase { Costs, Search, Done } phase = Phase::Costs;
    std::string mapper;
    std::string objective; // latency, throughput, pipeline
    std::string devices; // "cpu:0,cpu:1"
    double timeLimitSeconds = 0;
    double seconds = 0; // since the mapping started
    std::size_t ops = 0, deviceCount = 0; // Search, Done
    std::string status; // Done: optimal, feasible, timeout, heuristic
    double objectiveMs = 0; // Done: the makespan (latency, throughput) or the period (pipeline)
};

std::string toJsonLine(const MapProgressEvent& event);
std::optional<MapProgressEvent> parseMapProgressLine(std::string_view line);
// "pricing ops on cpu:0,cpu:1", "searching: milp over 2 devices, 120 ops, 3 s of at most 60 s",
// "found: 12.345 ms, optimal, after 4.2 s".
std::string describe(const MapProgressEvent& event);

// The child's command lines, from the first argument on ("profile", "map"): every field of the
// request that differs from its default, and JSON progress.
std::vector<std::string> profileArguments(const ProfileRequest& request);
// `output`: where the child writes the mapping file (the window reads it back); its stdout has the
// progress lines, then the summary as JSON (not read).
std::vector<std::string> mapArguments(const MapRequest& request, const std::string& output);

} // namespace opsched::engine::child
