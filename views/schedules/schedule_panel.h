// Run any scheduler on the open model (scheduler, device, batch, r, s, CUDA graph), off the GUI thread
// with progress and Cancel; list the results; selecting one shows its timeline. Devices, defaults
// and ranges are the engine's (engine/device_ref.h, engine/limits.h), as opsched-cli's. A mapper over a
// device list that names a measured device runs as `opsched-cli map` in a child process.
#pragma once

#include "schedules/schedule_results_model.h"

#include <QWidget>

#include <atomic>
#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;
class QThread;
class QTimer;

namespace opsched {

class MapProcess;

class SchedulePanel : public QWidget {
    Q_OBJECT

public:
    explicit SchedulePanel(QWidget* parent = nullptr);
    ~SchedulePanel() override;
    QSize sizeHint() const override; // wide enough for every column of the results table

    void setGraph(std::shared_ptr<const Graph> graph); // clears the results
    // How the open model was opened (zoo:NAME?..., a file): what opsched-cli map is given.
    // The open model as opsched-cli opens it for measured devices, with its free input dimensions.
    void setModelRef(const QString& ref, const InputShapes& shapes = {});
    ScheduleResultsModel* results() const { return results_; }
    bool isRunning() const;
    // Lists a result made elsewhere (a mapping file) and selects it, as if it had just been run.
    void addResult(std::shared_ptr<const ScheduleResult> result);
    MapProcess* mapProcess() const { return mapProcess_; }

public slots:
    // Starts a run with the panel's current settings (or the given scheduler).
    void run();
    void runScheduler(const QString& scheduler);
    void cancel();

signals:
    void resultSelected(std::shared_ptr<const opsched::ScheduleResult> result);
    void finished(bool ok, const QString& message);
    // A run on `device` (one device, or a mapper's list) succeeded: the Profile panel follows it.
    void deviceUsed(const QString& device);

private:
    void createSettings(); // scheduler, device, batch, pruning, lowering: the engine's defaults and ranges
    void updateEnabledSettings(); // lowering for schedulers, objective (and inputs) for mappers
    // The device (list: the mappers' list) of the last run, else the engine's default.
    static QString rememberedDevice(bool list);
    QSortFilterProxyModel* createTable();
    void start(const ScheduleRequest& request);
    void startBusy(const ScheduleRequest& request, const QString& how);
    void startMapProcess(const ScheduleRequest& request);
    // The status line while a mapping runs: seconds, limit and, from a child, its phase.
    void showMapStatus();
    void mapProcessFinished(bool ok, const QString& message, const QString& file);
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
    QComboBox* objective_ = nullptr; // mappers: latency or throughput
    QSpinBox* inputs_ = nullptr; // mappers, throughput: inputs split per op
    QPushButton* runButton_ = nullptr;
    QPushButton* cancelButton_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* status_ = nullptr;
    QTableView* table_ = nullptr;
    QThread* worker_ = nullptr;
    MapProcess* mapProcess_ = nullptr;
    ScheduleRequest mapRequest_; // what the child maps
    QTimer* elapsed_ = nullptr; // counts the child's seconds in the status line
    int elapsedSeconds_ = 0;
    bool mapInChild_ = false; // the shown mapping runs in opsched-cli (measured devices)
    QString mapPhase_; // what the child last said it is doing ("pricing every op on cpu:0,cpu:1")
    double mapLimitSeconds_ = 0; // the child's time limit, once it reports its search
    QString modelRef_;
    InputShapes modelShapes_;
    std::shared_ptr<std::atomic<bool>> cancelled_;
    int tableWidthHint_ = 0;
    std::int64_t resultCount_ = 0; // numbers the results listed since the panel was made
};

} // namespace opsched
