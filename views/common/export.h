// Exports from the GUI: images of a view (PNG, SVG), the selected schedule as a file the CLI
// reads (`opsched-cli evaluate --schedule`), and the shown run as a Chrome trace or kernels CSV
// (profiler/export, as `opsched-cli export` writes them).
#pragma once

#include <QString>

#include <functional>

class QPainter;
class QSize;

namespace opsched {

class Graph;
struct ScheduleResult;

// Renders `draw` into FILE: .svg as vector graphics, anything else through QImage (PNG, JPEG).
// A non-empty `header` (which run this is) is written in a line above the drawing, so an image
// passed around still says what it shows. Returns an error message, empty on success.
QString exportImage(const QString& file, const QSize& size, const std::function<void(QPainter&, const QSize&)>& draw,
    const QString& header = {});

// Writes the result as an opsched-schedule (or opsched-plan) file. Returns an error message.
// A run read from a database writes the file it ran (`graph` may then be null).
QString exportSchedule(const QString& file, const Graph* graph, const ScheduleResult& result);

enum class TraceExport { ChromeTrace, KernelsCsv };

// Writes the result's timeline as a Chrome trace (Perfetto, chrome://tracing) or its kernels as
// CSV. A run from a database exports as stored; a result computed here is recorded as the
// profiler records a simulated run first (needs `graph`, opened as `modelRef`). Returns an error message.
QString exportTrace(
    const QString& file, TraceExport format, const Graph* graph, const QString& modelRef, const ScheduleResult& result);

} // namespace opsched
