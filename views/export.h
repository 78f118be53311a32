// Exports from the GUI: images of a view (PNG, SVG) and the selected schedule as a file the CLI
// reads (`opsched-cli evaluate --schedule`).
#pragma once

#include <QString>

#include <functional>

class QPainter;
class QSize;

namespace opsched {

class Graph;
struct ScheduleResult;

// Renders `draw` into FILE: .svg as vector graphics, anything else through QImage (PNG, JPEG).
// Returns an error message, empty on success.
QString exportImage(const QString& file, const QSize& size, const std::function<void(QPainter&, const QSize&)>& draw);

// Writes the result as an opsched-schedule (or opsched-plan) file. Returns an error message.
QString exportSchedule(const QString& file, const Graph& graph, const ScheduleResult& result);

} // namespace opsched
