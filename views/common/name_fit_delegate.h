// A table column of names (ops, kernels) elided the way the DAG fits them (common/name_fit.h):
// whole when it fits, else the ending that tells the row apart (the model's DistinctNameRole), its
// first component kept, instead of Qt's middle elision that makes ten layers read the same.
#pragma once

#include <QStyledItemDelegate>

namespace opsched {

class NameFitDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override;
};

} // namespace opsched
