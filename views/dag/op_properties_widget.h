// What is known about the selected op: its shapes and work, and, for the shown schedule, its
// stage, group, stream and simulated start, end and duration.
#pragma once

#include "graph/graph.h"

#include <QWidget>

#include <memory>

class QFormLayout;
class QLabel;

namespace opsched {

struct ScheduleResult;

class OpPropertiesWidget : public QWidget {
    Q_OBJECT

public:
    explicit OpPropertiesWidget(QWidget* parent = nullptr);
    // `result` may be null (no schedule shown); an invalid op clears the panel.
    void show(const std::shared_ptr<const Graph>& graph, OpId op, const std::shared_ptr<const ScheduleResult>& result);
    QString text(const QString& field) const; // for tests: the value shown for a field

private:
    QLabel* field(const QString& name);
    QFormLayout* form_ = nullptr;
    std::vector<std::pair<QString, QLabel*>> fields_;
};

} // namespace opsched
