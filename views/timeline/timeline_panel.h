// The Timeline dock: a tool row (search with next/previous, flows, critical path, collapse, fit,
// zoom to range), the timeline over the active-warps chart on one time axis, and beside them the
// analysis of the selected range (or the whole run): a summary line, busy time per stream, and the
// GPU kernel summary (sortable, CSV export).
#pragma once

#include <QWidget>

#include <functional>
#include <memory>

class QCheckBox;
class QComboBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QSplitter;
class QTabWidget;
class QTableView;
class QToolButton;

namespace opsched {

struct TimelineData;
class TimelineView;
class WarpChart;
class KernelStatsModel;
class RangeStatsModel;

class TimelinePanel : public QWidget {
    Q_OBJECT

public:
    explicit TimelinePanel(QWidget* parent = nullptr);

    TimelineView* view() const { return view_; }
    WarpChart* warps() const { return warps_; }
    KernelStatsModel* kernelModel() const { return kernelModel_; }
    RangeStatsModel* rangeModel() const { return rangeModel_; }
    QLabel* summary() const { return summary_; }
    QTableView* kernelTable() const { return kernelTable_; }

    // `typeName(colourClass)` names op types for the kernel summary's "by op type" grouping.
    void setData(std::shared_ptr<const TimelineData> data, std::function<QString(std::uint32_t)> describe = {},
        std::function<QString(std::uint32_t)> typeName = {});

    // Empties the Find box (a new model: the last one's op names mean nothing there).
    void clearSearch();

    // Writes the kernel summary shown as CSV; an empty string on success, else what went wrong.
    QString exportKernelCsv(const QString& path) const;

signals:
    void status(const QString& message);

private:
    // The constructor's parts: the tool row above the plots, and the analysis beside them.
    QHBoxLayout* createToolRow();
    void connectSearch(QToolButton* previous, QToolButton* next);
    QWidget* createAnalysis();
    QTableView* createRangeTable();
    QWidget* createKernelPage();
    void updateStatistics();
    void exportKernelCsvDialog();

    TimelineView* view_ = nullptr;
    WarpChart* warps_ = nullptr;
    QLineEdit* search_ = nullptr;
    QLabel* matches_ = nullptr;
    QCheckBox* flows_ = nullptr;
    QCheckBox* critical_ = nullptr;
    QLabel* summary_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    RangeStatsModel* rangeModel_ = nullptr;
    QTableView* rangeTable_ = nullptr;
    KernelStatsModel* kernelModel_ = nullptr;
    QSortFilterProxyModel* kernelProxy_ = nullptr;
    QTableView* kernelTable_ = nullptr;
    QComboBox* grouping_ = nullptr;
    std::function<QString(std::uint32_t)> typeName_;
};

} // namespace opsched
