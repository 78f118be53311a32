// An opsched results database in the window: its runs listed (model, scheduler, batch, device,
// latency), read off the GUI thread so a large file never blocks the window, and reread whenever
// a profiling batch lands a run. Selecting runs loads them whole (kernels, warps) on a worker and
// hands them on for the timeline and the comparison.
#pragma once

#include "engine/results/schedule_result.h"

#include <QWidget>

#include <map>
#include <memory>
#include <vector>

class QLabel;
class QSortFilterProxyModel;
class QTableView;
class QThread;

namespace opsched::store {
struct RunSummary;
}

namespace opsched {

class RunListModel;
class ScheduleResultsModel;

class RunDatabasePanel : public QWidget {
    Q_OBJECT

public:
    explicit RunDatabasePanel(QWidget* parent = nullptr);
    ~RunDatabasePanel() override; // waits for a read in progress

    // Lists the runs of `path` (read-only; the file is never modified). The outcome comes as listed();
    // a file that cannot be read leaves the database shown (path(), its runs) as it was.
    void openDatabase(const QString& path);
    // The database a profiling batch writes to: shown at once, also before the batch has created it,
    // and reread as runs land (refresh).
    void followDatabase(const QString& path);
    QString path() const { return path_; }
    RunListModel* runs() const { return runs_; }
    // The selected runs, loaded whole, in the table's order: what the comparison shows.
    ScheduleResultsModel* selectedRuns() const { return selected_; }
    QTableView* table() const { return table_; }
    bool isBusy() const { return listWorker_ || loadWorker_; }

public slots:
    // Rereads the run list (a profiling batch wrote to the file). Cheap to call often: calls made
    // while a read is running coalesce into one more read.
    void refresh();
    // Selects the runs in these table rows (source model rows).
    void selectRows(const QList<int>& rows);

signals:
    void listed(bool ok, const QString& message);
    // The current run (the one last clicked), loaded; the comparison holds all selected ones.
    void runShown(std::shared_ptr<const opsched::ScheduleResult> result);
    void loadFailed(const QString& message);

private:
    void startList();
    void listDone(int generation, std::vector<store::RunSummary> runs, const QString& error);
    void selectionChanged();
    void startLoad();
    void loadDone(int generation, std::vector<std::shared_ptr<const ScheduleResult>> loaded, const QString& error);
    void showSelection();

    QString path_; // the database shown
    QString listing_; // the one being read: path_, or a file that replaces it once read
    int generation_ = 0; // bumped per file, so reads of a previous file are dropped
    RunListModel* runs_ = nullptr;
    QSortFilterProxyModel* proxy_ = nullptr;
    ScheduleResultsModel* selected_ = nullptr;
    QTableView* table_ = nullptr;
    QLabel* status_ = nullptr;
    QThread* listWorker_ = nullptr;
    bool listAgain_ = false;
    QThread* loadWorker_ = nullptr;
    bool loadAgain_ = false;
    std::map<std::int64_t, std::shared_ptr<const ScheduleResult>> cache_; // run id -> loaded run
};

} // namespace opsched
