// Two runs side by side on one time axis (the longer run's), run A over run B, the waterfall of
// where their difference comes from (runs/speedup_waterfall.h) and the per-op diff table. The runs to choose from are
// those shown in the Timeline since the window opened (results computed in the window and stored runs alike).
#pragma once

#include "runs/run_diff_model.h"

#include <QWidget>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QTableView;

namespace opsched {

class SpeedupWaterfall;
class TimelineView;

class RunComparePanel : public QWidget {
    Q_OBJECT

public:
    explicit RunComparePanel(QWidget* parent = nullptr);

    // Offers a run (newest first; the same timeline or label twice is offered once). The newest becomes B and
    // the one before it A.
    void addRun(const QString& label, std::shared_ptr<const TimelineData> timeline,
        std::function<QString(std::uint32_t)> describe = {});
    void clearRuns();
    int runCount() const;
    void setRuns(int a, int b); // indices into the offered runs, newest first

    TimelineView* viewA() const { return a_; }
    TimelineView* viewB() const { return b_; }
    RunDiffModel* model() const { return model_; }
    QLabel* summary() const { return summary_; }
    SpeedupWaterfall* waterfall() const { return waterfall_; }
    // Writes the breakdown of the shown runs: .csv as its terms, .svg and others as the chart.
    // Returns an error message, empty on success.
    QString exportBreakdown(const QString& file) const;
    // Outlines in A and B the ops whose kernels the breakdown's term `key` counts (kernel terms;
    // other terms clear the outlines). Returns the number of spans outlined.
    int showTerm(const QString& key);

private:
    struct Run {
        QString label;
        std::shared_ptr<const TimelineData> timeline;
        std::function<QString(std::uint32_t)> describe;
    };
    void update();

    std::vector<Run> runs_;
    QComboBox *pickA_ = nullptr, *pickB_ = nullptr;
    QLabel* summary_ = nullptr;
    SpeedupWaterfall* waterfall_ = nullptr;
    struct TermOps {
        std::vector<std::uint32_t> shared, onlyA, onlyB; // sorted op ids
    };
    TermOps termOps_; // the ops each kernel term of the breakdown counts
    TimelineView *a_ = nullptr, *b_ = nullptr;
    RunDiffModel* model_ = nullptr;
    QTableView* table_ = nullptr;
};

} // namespace opsched
