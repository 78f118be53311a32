#include "runs/run_database_panel.h"

#include "engine/results/stored_run.h"
#include "runs/run_list_model.h"
#include "schedules/schedule_results_model.h"

#include "engine/results_database.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QThread>
#include <QVBoxLayout>

#include <algorithm>

namespace opsched {

RunDatabasePanel::RunDatabasePanel(QWidget* parent)
    : QWidget(parent)
{
    runs_ = new RunListModel(this);
    proxy_ = new QSortFilterProxyModel(this);
    proxy_->setSourceModel(runs_);
    proxy_->setSortRole(RunListModel::SortRole);
    selected_ = new ScheduleResultsModel(this);

    status_ = new QLabel(tr("No database open: File > Open a .db file, or profile into one"));
    status_->setObjectName(QStringLiteral("databaseStatus"));
    status_->setWordWrap(true);
    table_ = new QTableView;
    table_->setObjectName(QStringLiteral("runsTable"));
    table_->setModel(proxy_);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::ExtendedSelection); // several runs to compare
    table_->setSortingEnabled(true);
    table_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    table_->verticalHeader()->hide();
    table_->setWordWrap(false);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(status_);
    layout->addWidget(table_, 1);

    connect(
        table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RunDatabasePanel::selectionChanged);
    connect(
        table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &RunDatabasePanel::selectionChanged);
}

RunDatabasePanel::~RunDatabasePanel()
{
    // The workers call back into this panel: let them finish first (a read is short).
    for (QThread* worker : { listWorker_, loadWorker_ })
        if (worker) {
            worker->wait();
            delete worker;
        }
}

void RunDatabasePanel::openDatabase(const QString& path)
{
    // The file shown now stays until the new one has been read: one that cannot be read changes
    // nothing (listDone).
    listing_ = path;
    ++generation_;
    status_->setText(tr("reading %1...").arg(QFileInfo(path).fileName()));
    if (listWorker_) {
        listAgain_ = true;
        return;
    }
    startList();
}

void RunDatabasePanel::followDatabase(const QString& path)
{
    if (path != path_) {
        path_ = path;
        cache_.clear();
        selected_->clear();
        runs_->clear();
    }
    openDatabase(path);
}

void RunDatabasePanel::refresh()
{
    if (listing_.isEmpty())
        listing_ = path_;
    if (listing_.isEmpty())
        return;
    if (listWorker_) {
        listAgain_ = true;
        return;
    }
    startList();
}

void RunDatabasePanel::startList()
{
    const std::string path = listing_.toStdString();
    const int generation = generation_;
    listWorker_ = QThread::create([this, path, generation] {
        std::vector<store::RunSummary> runs;
        QString error;
        try {
            runs = engine::listRuns(path);
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(
            this,
            [this, generation, runs = std::move(runs), error]() mutable {
                listDone(generation, std::move(runs), error);
            },
            Qt::QueuedConnection);
    });
    listWorker_->start();
}

void RunDatabasePanel::listDone(int generation, std::vector<store::RunSummary> runs, const QString& error)
{
    listWorker_->wait();
    delete listWorker_;
    listWorker_ = nullptr;
    if (generation == generation_) {
        if (!error.isEmpty()) {
            QString text = tr("Cannot read %1: %2").arg(listing_, error);
            if (listing_ != path_ && !path_.isEmpty())
                text += tr(" (still showing %1)").arg(QFileInfo(path_).fileName());
            status_->setText(text);
            listing_ = path_; // the database shown stays the one refreshes read
            emit listed(false, error);
        } else {
            if (listing_ != path_) { // another file, read: it replaces the one shown
                path_ = listing_;
                cache_.clear();
                selected_->clear();
                runs_->clear();
            }
            const std::size_t failed = static_cast<std::size_t>(std::count_if(
                runs.begin(), runs.end(), [](const auto& r) { return r.status != store::RunStatus::Ok; }));
            const bool first = runs_->rowCount() == 0;
            runs_->setRuns(std::move(runs));
            if (first)
                table_->resizeColumnsToContents();
            status_->setText(tr("%1: %n run(s)", nullptr, runs_->rowCount()).arg(QFileInfo(path_).fileName())
                + (failed ? tr(", %n failed", nullptr, static_cast<int>(failed)) : QString()));
            status_->setToolTip(path_);
            emit listed(true, QString());
        }
    }
    if (listAgain_) {
        listAgain_ = false;
        startList();
    }
}

void RunDatabasePanel::selectRows(const QList<int>& rows)
{
    table_->clearSelection();
    for (int row : rows) {
        const QModelIndex index = proxy_->mapFromSource(runs_->index(row, 0));
        if (!index.isValid())
            continue;
        table_->selectionModel()->select(index, QItemSelectionModel::Select | QItemSelectionModel::Rows);
        table_->selectionModel()->setCurrentIndex(index, QItemSelectionModel::NoUpdate);
    }
    selectionChanged();
}

void RunDatabasePanel::selectionChanged()
{
    if (loadWorker_) {
        loadAgain_ = true;
        return;
    }
    startLoad();
}

void RunDatabasePanel::startLoad()
{
    // Runs not loaded yet; the rest come from the cache.
    std::vector<store::RunId> missing;
    for (const QModelIndex& index : table_->selectionModel()->selectedRows())
        if (const auto* run = runs_->run(proxy_->mapToSource(index).row()); run && !cache_.count(run->id.value()))
            missing.push_back(run->id);
    if (missing.empty()) {
        showSelection();
        return;
    }
    status_->setText(tr("loading %n run(s)...", nullptr, static_cast<int>(missing.size())));
    const std::string path = path_.toStdString();
    const int generation = generation_;
    loadWorker_ = QThread::create([this, path, generation, missing] {
        std::vector<std::shared_ptr<const ScheduleResult>> loaded;
        QString error;
        try {
            for (auto& run : engine::loadRuns(path, missing))
                loaded.push_back(resultFromRun(std::move(run))); // the timeline is built here too
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(
            this,
            [this, generation, loaded = std::move(loaded), error]() mutable {
                loadDone(generation, std::move(loaded), error);
            },
            Qt::QueuedConnection);
    });
    loadWorker_->start();
}

void RunDatabasePanel::loadDone(
    int generation, std::vector<std::shared_ptr<const ScheduleResult>> loaded, const QString& error)
{
    loadWorker_->wait();
    delete loadWorker_;
    loadWorker_ = nullptr;
    if (generation == generation_) {
        for (auto& result : loaded)
            cache_[result->stored->id.value()] = std::move(result);
        if (!error.isEmpty()) {
            status_->setText(tr("Cannot load the run: %1").arg(error));
            emit loadFailed(error);
        } else {
            status_->setText(tr("%1: %n run(s)", nullptr, runs_->rowCount()).arg(QFileInfo(path_).fileName()));
        }
        showSelection();
    }
    if (loadAgain_) {
        loadAgain_ = false;
        startLoad();
    }
}

void RunDatabasePanel::showSelection()
{
    // The comparison: every selected run that is loaded, in the table's order.
    QModelIndexList rows = table_->selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(), [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
    selected_->clear();
    for (const QModelIndex& index : rows)
        if (const auto* run = runs_->run(proxy_->mapToSource(index).row()))
            if (auto it = cache_.find(run->id.value()); it != cache_.end())
                selected_->add(it->second);

    const QModelIndex current = table_->selectionModel()->currentIndex();
    const auto* run = current.isValid() && table_->selectionModel()->isRowSelected(current.row(), {})
        ? runs_->run(proxy_->mapToSource(current).row())
        : nullptr;
    if (!run && selected_->rowCount() > 0)
        emit runShown(selected_->result(0));
    else if (run && cache_.count(run->id.value()))
        emit runShown(cache_[run->id.value()]);
}

} // namespace opsched
