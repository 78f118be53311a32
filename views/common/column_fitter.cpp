#include "common/column_fitter.h"

#include <QAbstractItemModel>
#include <QEvent>
#include <QHeaderView>
#include <QScrollBar>
#include <QTableView>
#include <QTimer>

#include <algorithm>

namespace opsched {

ColumnFitter::ColumnFitter(QTableView* table, QVector<int> optional, int stretchMinimum)
    : QObject(table)
    , table_(table)
    , optional_(std::move(optional))
    , stretchMinimum_(stretchMinimum)
{
    table_->viewport()->installEventFilter(this);
    // Contents change the columns' widths (ResizeToContents): refit once the header has them.
    auto later = [this] { QTimer::singleShot(0, this, &ColumnFitter::refit); };
    if (QAbstractItemModel* model = table_->model()) {
        connect(model, &QAbstractItemModel::modelReset, this, later);
        connect(model, &QAbstractItemModel::rowsInserted, this, later);
        connect(model, &QAbstractItemModel::layoutChanged, this, later);
    }
}

int ColumnFitter::requiredWidth(int hide) const
{
    // What every shown column needs: the stretch column its minimum, the others their contents
    // (sectionSizeHint covers the header, sizeHintForColumn the cells).
    const QHeaderView* header = table_->horizontalHeader();
    int width = 0;
    for (int c = 0; c < header->count(); ++c) {
        const auto at = std::find(optional_.begin(), optional_.end(), c);
        if (at != optional_.end() && at - optional_.begin() < hide)
            continue;
        if (header->sectionResizeMode(c) == QHeaderView::Stretch)
            width += stretchMinimum_;
        else
            width += std::max({ header->sectionSizeHint(c),
                static_cast<const QAbstractItemView*>(table_)->sizeHintForColumn(c), header->minimumSectionSize() });
    }
    return width;
}

void ColumnFitter::refit()
{
    const int available = table_->viewport()->width();
    int hide = 0;
    while (hide < optional_.size() && requiredWidth(hide) > available)
        ++hide;
    if (hide == hidden_)
        return;
    hidden_ = hide;
    for (int i = 0; i < optional_.size(); ++i)
        table_->setColumnHidden(optional_[i], i < hide);
}

bool ColumnFitter::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == table_->viewport() && event->type() == QEvent::Resize)
        refit();
    return QObject::eventFilter(watched, event);
}

} // namespace opsched
