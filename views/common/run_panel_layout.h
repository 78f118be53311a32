// The column the panels that start work share (scheduling, profiling): settings, the buttons that
// start and cancel, the progress bar and status line, then what the work produced.
#pragma once

class QFormLayout;
class QLabel;
class QProgressBar;
class QPushButton;
class QWidget;

namespace opsched {

// Lays `panel` out top to bottom: `form`, `start` and `cancel` side by side, `progress`, `status`,
// then `output`, which takes the remaining height.
void layOutRunPanel(QWidget* panel, QFormLayout* form, QPushButton* start, QPushButton* cancel, QProgressBar* progress,
    QLabel* status, QWidget* output);

} // namespace opsched
