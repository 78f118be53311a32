#include "common/run_panel_layout.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

namespace opsched {

void layOutRunPanel(QWidget* panel, QFormLayout* form, QPushButton* start, QPushButton* cancel, QProgressBar* progress,
    QLabel* status, QWidget* output)
{
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(start);
    buttons->addWidget(cancel);
    auto* layout = new QVBoxLayout(panel);
    layout->addLayout(form);
    layout->addLayout(buttons);
    layout->addWidget(progress);
    layout->addWidget(status);
    layout->addWidget(output, 1);
}

} // namespace opsched
