// The numbers `opsched-cli info` prints, as a form: how big a model is and how much concurrency its
// graph leaves to exploit.
#pragma once

#include "graph/graph.h"

#include <QWidget>

#include <vector>

class QLabel;

namespace opsched {

struct ModelSummary;

class ModelSummaryWidget : public QWidget {
    Q_OBJECT

public:
    explicit ModelSummaryWidget(QWidget* parent = nullptr);

    // Computes the summary (width and blocks included); null shows dashes.
    void setGraph(const std::shared_ptr<const Graph>& graph);
    void setSummary(const Graph& graph, const ModelSummary& summary);
    void clear();
    // The heaviest chain by FLOPs of the graph shown, in order (empty when none).
    const std::vector<OpId>& criticalPathOps() const { return criticalOps_; }

private:
    QLabel* addRow(const QString& label);

    // The form's values, top to bottom.
    QLabel *model_ = nullptr, *batch_ = nullptr, *ops_ = nullptr, *parameters_ = nullptr, *gflop_ = nullptr,
           *width_ = nullptr, *blocks_ = nullptr, *criticalPath_ = nullptr;
    std::vector<OpId> criticalOps_;
};

} // namespace opsched
