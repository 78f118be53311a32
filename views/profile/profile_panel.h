// The Profile panel: runs `opsched-cli profile` on the open model (schedulers, batch sizes, device,
// database, active warps) as a child process, with progress, a log and Cancel. Each job the child
// finishes is in the database at once; runLanded() tells the database panel to reread it.
#pragma once

#include "profile/profile_process.h"

#include <QWidget>

class QCheckBox;
class QSpinBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QToolButton;

namespace opsched {

class ProfilePanel : public QWidget {
    Q_OBJECT

public:
    explicit ProfilePanel(QWidget* parent = nullptr);

    // The open model (what a batch profiles) and the free input dimensions it was opened with.
    void setModelRef(const QString& ref, const InputShapes& shapes = {});
    void setDatabase(const QString& path);
    // The database the Runs panel opened (and read): profiling next adds to it, and the panel says
    // so. Ignored while a batch runs.
    void offerDatabase(const QString& path);
    // The device the Schedules panel last ran on, when it is one a batch can profile on (sim:...,
    // cuda:N; not a mapper's list nor a CPU): the panel takes it unless a batch runs.
    void followDevice(const QString& device);
    // Where results go by default: <data folder>/opsched/results.db, one opsched folder.
    static QString defaultDatabase();
    QString database() const;
    ProfileProcess* process() const { return process_; }
    // The request the panel's fields describe.
    engine::ProfileRequest request() const;
    bool isRunning() const { return process_->isRunning(); }

public slots:
    void start();
    void cancel() { process_->cancel(); }

signals:
    void databaseChosen(const QString& path); // a batch is about to write there
    void runLanded();
    void finished(bool ok, const QString& message);

private:
    // The constructor's parts, in the order it calls them.
    QToolButton* createInputs();
    void createRunControls();
    void layOut(QToolButton* browse);
    void connectSignals();
    void chooseDatabase();
    void appendLog(const QString& line); // and follow it, unless the user scrolled up
    void revealProgress(); // scroll the panel so progress and status are in view
    void setRunning(bool running);

    ProfileProcess* process_ = nullptr;
    QLineEdit* model_ = nullptr;
    QString shapesRef_; // the model `shapes_` were given for (typing another drops them)
    InputShapes shapes_;
    QListWidget* schedulers_ = nullptr;
    QLineEdit* batches_ = nullptr;
    QComboBox* device_ = nullptr;
    QLineEdit* database_ = nullptr;
    QCheckBox* warps_ = nullptr;
    QSpinBox* repeat_ = nullptr;
    QSpinBox* r_ = nullptr;
    QSpinBox* s_ = nullptr;
    QCheckBox* cudaGraph_ = nullptr;
    QPushButton* startButton_ = nullptr;
    QPushButton* cancelButton_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* status_ = nullptr;
    QPlainTextEdit* log_ = nullptr;
};

} // namespace opsched
