// Which run a view shows, said the same way everywhere: the Timeline's title, the status bar, the
// Diff list, export file names and the header drawn into exported images. A stored run carries its
// database id, so two runs of the same scheduler, device and batch stay apart.
#pragma once

#include <QString>

#include <cstdint>

namespace opsched {

struct ScheduleResult;

// "run 8: nimble · sim:h100 · batch 4 · 2.25 ms" (without "run N: " for a result not from a database,
// which ends in " · #N" where the window numbered it);
// a throughput mapping says so: "map:sa · throughput, 16 inputs · sim:t4,sim:a100 · batch 1 · 11.6 ms".
QString runLabel(const ScheduleResult& result);

// " · throughput, 16 inputs" for a throughput mapping (its latency is the makespan of all its
// inputs), empty for everything else.
QString objectiveTag(const ScheduleResult& result);

// How many inputs the result's latency covers: the inputs of a throughput mapping, else 1.
std::int64_t inputsCovered(const ScheduleResult& result);

// The model's name for a result: the stored run's own, else `openModel` (the window's model).
QString runModelName(const ScheduleResult& result, const QString& openModel);

// "googlenet — run 8: nimble · sim:h100 · batch 4 · 2.25 ms": titles, status bar, image headers.
QString runTitle(const ScheduleResult& result, const QString& openModel);

// "googlenet_nimble_sim-h100_b4_run8": a default export file name (without suffix), only
// letters, digits, '.', '-' and '_'.
QString runFileStem(const ScheduleResult& result, const QString& openModel);

} // namespace opsched
