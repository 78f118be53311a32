// The free input dimensions of a model file, asked for when the window opens it: one line per
// input ("NAME=DxDx..."), pre-filled with what was given for that file before, else with the
// symbolic names to replace, and remembered per file (QSettings) for the next time.
#pragma once

#include "engine/model.h"
#include "graph/shape.h"

#include <QString>

#include <optional>
#include <vector>

class QWidget;

namespace opsched {

// The shapes for `path`'s free inputs. Interactive: a dialog (nullopt when cancelled). Not
// interactive (tests, scripted runs): the remembered shapes, or nullopt with `error` saying what
// is missing. A text that does not parse asks again (interactive) or fails naming the problem.
// Dimension 0 of every shape is the batch the model is opened at, whatever the text says.
std::optional<InputShapes> askFreeDimensions(QWidget* parent, const QString& path, const std::vector<FreeInput>& inputs,
    std::int64_t batch, bool interactive, QString* error);

// Remembers the shapes given for `path` ("" forgets them).
void rememberFreeDimensions(const QString& path, const QString& text);

} // namespace opsched
