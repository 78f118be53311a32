// Run any scheduler on the open model (scheduler, device, batch, r, s, CUDA graph), off the GUI thread
// with progress and Cancel; list the results; selecting one shows its timeline.
#pragma once

#include "schedule_results_model.h"

#include <QWidget>

#include <atomic>
#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableView;
class QThread;

namespace opsched {

class SchedulePanel : public QWidget {
    Q_OBJECT

public:
    explicit SchedulePanel(QWidget* parent = nullptr);
    ~SchedulePanel() override;
    QSize sizeHint() const override; // wide enough for every column of the results table

    void setGraph(std::shared_ptr<const Graph> graph); // clears the results
    ScheduleResultsModel* results() const { return results_; }
    bool isRunning() const { return worker_ != nullptr; }

public slots:
    // Starts a run with the panel's current settings (or the given scheduler).
    void run();
    void runScheduler(const QString& scheduler);
    void cancel();

signals:
    void resultSelected(std::shared_ptr<const opsched::ScheduleResult> result);
    void finished(bool ok, const QString& message);

private:
    void start(const ScheduleRequest& request);
    void done(std::shared_ptr<const ScheduleResult> result, const QString& error);

    std::shared_ptr<const Graph> graph_;
    ScheduleResultsModel* results_ = nullptr;
    QComboBox* scheduler_ = nullptr;
    QComboBox* device_ = nullptr;
    QSpinBox* batch_ = nullptr;
    QSpinBox* r_ = nullptr;
    QSpinBox* s_ = nullptr;
    QComboBox* lowering_ = nullptr;
    QCheckBox* cudaGraph_ = nullptr;
    QPushButton* runButton_ = nullptr;
    QPushButton* cancelButton_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* status_ = nullptr;
    QTableView* table_ = nullptr;
    QThread* worker_ = nullptr;
    std::shared_ptr<std::atomic<bool>> cancelled_;
    int tableWidthHint_ = 0;
};

} // namespace opsched
