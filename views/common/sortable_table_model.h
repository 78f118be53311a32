// The base of the window's tables: a proxy sorts them by SortRole, which gives raw values (numbers
// for numeric columns, so 10 sorts after 9; text otherwise) where the display shows formatted text.
#pragma once

#include <QAbstractTableModel>

namespace opsched {

class SortableTableModel : public QAbstractTableModel {
public:
    static constexpr int SortRole = Qt::UserRole + 1;
    // A name column's ending that tells its row apart from the others (common/name_fit.h), for
    // NameFitDelegate when the column is too narrow for the whole name.
    static constexpr int DistinctNameRole = Qt::UserRole + 3;

    using QAbstractTableModel::QAbstractTableModel;
};

} // namespace opsched
