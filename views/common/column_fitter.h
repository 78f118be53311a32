// Keeps a table's columns in view without horizontal scrolling on narrow panels: when the columns
// no longer fit, optional columns are hidden (in the order given) and come back when the table
// is wide enough again. One stretch column (e.g. a name) takes what the others leave, down to a
// minimum width.
#pragma once

#include <QObject>
#include <QVector>

class QTableView;

namespace opsched {

class ColumnFitter : public QObject {
    Q_OBJECT
public:
    // `optional`: columns that may be hidden, the first hidden first. `stretchMinimum`: the least
    // width the stretch column (the header's Stretch section) should keep.
    ColumnFitter(QTableView* table, QVector<int> optional, int stretchMinimum);

    // Hides or shows the optional columns for the table's current width (also run on resize and
    // when the model's contents change).
    void refit();
    int hiddenCount() const { return hidden_; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    int requiredWidth(int hide) const;

    QTableView* table_;
    QVector<int> optional_;
    int stretchMinimum_;
    int hidden_ = 0;
};

} // namespace opsched
